/**
 * `npm run e2e`: builds the panel, starts the production server on a free port with a database
 * of its own, runs the Playwright suite against it and exits with the suite's status.
 *
 * Database: a fresh embedded PGlite under a temporary DATA_DIR, or, when E2E_DATABASE_URL or
 * TEST_DATABASE_URL names a PostgreSQL server, a database created for this run and dropped after.
 * Shared PostgreSQL databases are made on the cluster TEST_TENANT_CLUSTER_URL names, when set.
 * E2E_SKIP_BUILD=1 reuses the existing build. Arguments are passed on to `playwright test`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startAppServer, type AppServer } from '../test/appServer.ts';
import { buildApp, logTail, ROOT, run } from '../test/processes.ts';

const OUTPUT_DIR = path.join(ROOT, 'e2e', '.output');
const SERVER_LOG = path.join(OUTPUT_DIR, 'server.log');

async function main(): Promise<number> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  // The server and the journeys share it: the apps journey signs git host 1's push events with the secret derived from it.
  process.env.AUTH_SECRET ??= randomBytes(48).toString('base64url');
  if (process.env.E2E_SKIP_BUILD !== '1') {
    // What `npm start` runs: the Next build and the compiled server, rebuilt when older than their sources.
    const built = await buildApp();
    if (built !== 0) {
      console.error('e2e: the build failed');
      return built;
    }
  }

  let server: AppServer | undefined;
  const stopOnSignal = () => void (server?.stop() ?? Promise.resolve()).then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const adminUrl = process.env.E2E_DATABASE_URL || process.env.TEST_DATABASE_URL;
    server = await startAppServer({ label: 'e2e', logFile: SERVER_LOG, adminUrl });
    console.log(`e2e: server on ${server.baseUrl} (${server.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}), log in ${path.relative(ROOT, SERVER_LOG)}`);
    // Journeys that need time to pass (billing's month close and dunning) move the clock in the app's database when it is PostgreSQL.
    const status = await run('npx', ['playwright', 'test', ...process.argv.slice(2)], {
      ...process.env,
      E2E_BASE_URL: server.baseUrl,
      E2E_APP_DATABASE_URL: server.databaseUrl ?? '',
    });
    if (status !== 0) printServerLogTail();
    return status;
  } catch (err) {
    console.error(`e2e: ${err instanceof Error ? err.message : String(err)}`);
    printServerLogTail();
    return 1;
  } finally {
    await server?.stop();
  }
}

function printServerLogTail(): void {
  console.error(`e2e: last lines of ${path.relative(ROOT, SERVER_LOG)}:\n${logTail(SERVER_LOG)}`);
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

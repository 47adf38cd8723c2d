/**
 * `npm run test:clients`: the SDK's and the CLI's tests, against the real server. Builds what
 * `npm start` runs when it is missing or stale, starts it on a free port with the embedded
 * database (PGlite under a temporary DATA_DIR, as a newcomer's `npm start` has it), runs
 * clients/vitest.config.ts against it and stops it. E2E_SKIP_BUILD=1 reuses the existing build.
 * Arguments are passed on to vitest.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startAppServer, type AppServer } from '../../test/appServer.ts';
import { buildApp, logTail, ROOT, run } from '../../test/processes.ts';

const OUTPUT_DIR = path.join(ROOT, 'clients', 'test', '.output');
const SERVER_LOG = path.join(OUTPUT_DIR, 'server.log');

async function main(): Promise<number> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  if (process.env.E2E_SKIP_BUILD !== '1' && (await buildApp()) !== 0) {
    console.error('test:clients: the build failed');
    return 1;
  }
  let server: AppServer | undefined;
  try {
    server = await startAppServer({ label: 'clients', logFile: SERVER_LOG });
    console.log(`test:clients: server on ${server.baseUrl} (embedded PGlite), log in ${path.relative(ROOT, SERVER_LOG)}`);
    const status = await run('npx', ['vitest', 'run', '--config', 'clients/vitest.config.ts', ...process.argv.slice(2)], {
      ...process.env,
      CLIENTS_TEST_BASE_URL: server.baseUrl,
    });
    if (status !== 0) console.error(`test:clients: last lines of ${path.relative(ROOT, SERVER_LOG)}:\n${logTail(SERVER_LOG)}`);
    return status;
  } catch (err) {
    console.error(`test:clients: ${err instanceof Error ? err.message : String(err)}\n${logTail(SERVER_LOG)}`);
    return 1;
  } finally {
    await server?.stop();
  }
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * `npm run test:instances`: the platform scaled out as in production. Two web processes with
 * JOBS_IN_PROCESS=false and one worker (`dist/worker.js`, what `npm run worker` runs) share one
 * PostgreSQL database created for the run; the suite in this folder talks to both over HTTP.
 *
 * Needs a PostgreSQL server: INSTANCES_DATABASE_URL, E2E_DATABASE_URL or TEST_DATABASE_URL.
 * E2E_SKIP_BUILD=1 reuses the existing build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, createTemporaryDatabase, freePort, logTail, ROOT, run, stopProcessGroup, waitForHealth } from '../processes';

const OUTPUT_DIR = path.join(ROOT, 'test', 'instances', '.output');

/** Small budgets, so the suite can show a limit shared by both instances without thousands of requests. */
const INSTANCE_RATE_LIMIT = { perMinute: 40, anonymousPerMinute: 20 };

async function main(): Promise<number> {
  const adminUrl = process.env.INSTANCES_DATABASE_URL || process.env.E2E_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    console.error('test:instances needs a PostgreSQL server: set TEST_DATABASE_URL (the embedded database belongs to one process)');
    return 1;
  }
  mkdirSync(OUTPUT_DIR, { recursive: true });
  if (process.env.E2E_SKIP_BUILD !== '1' && (await buildApp()) !== 0) {
    console.error('test:instances: the build failed');
    return 1;
  }

  const database = await createTemporaryDatabase(adminUrl, 'panel_instances');
  const ports = [await freePort(), await freePort()];
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  // Both instances sit behind one public address, as behind a load balancer; the first port plays it.
  const appUrl = urls[0]!;
  // The processes of one host share the registry: the one holding the front door's port runs it,
  // and all sign its tokens with the key kept there.
  const registryDir = mkdtempSync(path.join(os.tmpdir(), 'panel-registry-'));
  const shared: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    HOST: '127.0.0.1',
    APP_URL: appUrl,
    NEXTAUTH_URL: appUrl,
    DATABASE_URL: database.url,
    AUTH_SECRET: randomBytes(32).toString('hex'),
    JOBS_IN_PROCESS: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DEV_MAILBOX: 'true',
    RATE_LIMIT_PER_MINUTE: String(INSTANCE_RATE_LIMIT.perMinute),
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(INSTANCE_RATE_LIMIT.anonymousPerMinute),
    INFRA_SIM_PROVISION_SECONDS: '2',
    INFRA_SIM_ACTION_SECONDS: '2',
    REGISTRY_DATA_DIR: registryDir,
    REGISTRY_ENDPOINT_PORT: String(await freePort()),
  };
  delete shared.SMTP_URL;
  delete shared.PGLITE_DIR;

  const processes: Array<{ name: string; child: ChildProcess; log: string }> = [];
  const start = (name: string, script: string, env: NodeJS.ProcessEnv) => {
    const log = path.join(OUTPUT_DIR, `${name}.log`);
    const fd = openSync(log, 'w');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `panel-${name}-`));
    const child = spawn(process.execPath, ['--max-semi-space-size=16', script], {
      cwd: ROOT,
      env: { ...env, DATA_DIR: dataDir },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    child.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
    processes.push({ name, child, log });
    return child;
  };
  const printLogs = () => {
    for (const p of processes) console.error(`test:instances: last lines of ${path.relative(ROOT, p.log)}:\n${logTail(p.log)}`);
  };

  try {
    // The first instance applies the migrations; the others start on a migrated database.
    const first = start('web-a', 'dist/server.js', { ...shared, PORT: String(ports[0]) });
    await waitForHealth(urls[0]!, first);
    const second = start('web-b', 'dist/server.js', { ...shared, PORT: String(ports[1]) });
    start('worker', 'dist/worker.js', shared);
    await waitForHealth(urls[1]!, second);
    console.log(`test:instances: web ${urls.join(' and ')}, one worker, database ${new URL(database.url).pathname.slice(1)}`);
    const status = await run('npx', ['vitest', 'run', '--config', 'vitest.instances.config.ts', ...process.argv.slice(2)], {
      ...process.env,
      INSTANCE_URLS: urls.join(','),
      INSTANCE_APP_URL: appUrl,
      INSTANCE_DATABASE_URL: database.url,
      INSTANCE_RATE_LIMIT_PER_MINUTE: String(INSTANCE_RATE_LIMIT.perMinute),
    });
    if (status !== 0) printLogs();
    return status;
  } catch (err) {
    console.error(`test:instances: ${err instanceof Error ? err.message : String(err)}`);
    printLogs();
    return 1;
  } finally {
    for (const p of processes) await stopProcessGroup(p.child);
    rmSync(registryDir, { recursive: true, force: true });
    await database.drop().catch((err: unknown) => console.error('test:instances: could not drop the database:', err));
  }
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

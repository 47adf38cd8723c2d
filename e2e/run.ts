/**
 * `npm run e2e`: builds the panel, starts the production server on a free port with a database
 * of its own, runs the Playwright suite against it and exits with the suite's status.
 *
 * Database: a fresh embedded PGlite under a temporary DATA_DIR, or, when E2E_DATABASE_URL or
 * TEST_DATABASE_URL names a PostgreSQL server, a database created for this run and dropped after.
 * E2E_SKIP_BUILD=1 reuses the existing build. Arguments are passed on to `playwright test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

const ROOT = process.cwd();
const OUTPUT_DIR = path.join(ROOT, 'e2e', '.output');
const SERVER_LOG = path.join(OUTPUT_DIR, 'server.log');
const HEALTH_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

interface TemporaryDatabase {
  url: string;
  drop(): Promise<void>;
}

async function main(): Promise<number> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  if (process.env.E2E_SKIP_BUILD !== '1') {
    // What `npm start` runs: the Next build and the compiled server, rebuilt when older than their sources.
    const built = await run(process.execPath, ['scripts/start.mjs', '--build-only'], { ...process.env, NEXT_TELEMETRY_DISABLED: '1' });
    if (built !== 0) {
      console.error('e2e: the build failed');
      return built;
    }
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'panel-e2e-'));
  const database = await createTemporaryDatabase();
  let server: ChildProcess | undefined;
  const stopOnSignal = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  async function cleanup(): Promise<void> {
    if (server) await stopProcessGroup(server);
    server = undefined;
    if (database) await database.drop().catch((err: unknown) => console.error('e2e: could not drop the test database:', err));
    rmSync(dataDir, { recursive: true, force: true });
  }

  try {
    server = startServer(port, baseUrl, dataDir, database?.url);
    console.log(`e2e: server starting on ${baseUrl} (${database ? 'PostgreSQL' : 'embedded PGlite'}), log in ${path.relative(ROOT, SERVER_LOG)}`);
    await waitForHealth(baseUrl, server);
    // Journeys that need time to pass (billing's month close and dunning) move the clock in the app's database when it is PostgreSQL.
    const status = await run('npx', ['playwright', 'test', ...process.argv.slice(2)], {
      ...process.env,
      E2E_BASE_URL: baseUrl,
      E2E_APP_DATABASE_URL: database?.url ?? '',
    });
    if (status !== 0) printServerLogTail();
    return status;
  } catch (err) {
    console.error(`e2e: ${err instanceof Error ? err.message : String(err)}`);
    printServerLogTail();
    return 1;
  } finally {
    await cleanup();
  }
}

function startServer(port: number, baseUrl: string, dataDir: string, databaseUrl: string | undefined): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    HOST: '127.0.0.1',
    PORT: String(port),
    // The server checks the Origin of cookie-authenticated writes against APP_URL.
    APP_URL: baseUrl,
    NEXTAUTH_URL: baseUrl,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Simulated servers boot and apply power actions in seconds, so journeys can watch them settle.
    INFRA_SIM_PROVISION_SECONDS: '2',
    INFRA_SIM_ACTION_SECONDS: '2',
  };
  // The suite reads mail from the dev mailbox, which only exists without SMTP.
  delete env.SMTP_URL;
  env.DEV_MAILBOX = 'true';
  delete env.PGLITE_DIR;
  const log = openSync(SERVER_LOG, 'w');
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: { ...env, NODE_ENV: 'production' },
    stdio: ['ignore', log, log],
    detached: true,
  });
  closeSync(log);
  return child;
}

async function waitForHealth(baseUrl: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with status ${server.exitCode} before it was healthy`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`GET /healthz did not answer 200 within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

/** Signal the whole group, so nothing the server started is left behind. */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child.pid, 'SIGTERM');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS));
  if ((await Promise.race([exited, timer])) === 'timeout') {
    signalGroup(child.pid, 'SIGKILL');
    await exited;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

async function createTemporaryDatabase(): Promise<TemporaryDatabase | undefined> {
  const adminUrl = process.env.E2E_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!adminUrl) return undefined;
  const name = `panel_e2e_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function printServerLogTail(): void {
  try {
    const lines = readFileSync(SERVER_LOG, 'utf8').trimEnd().split('\n');
    console.error(`e2e: last lines of ${path.relative(ROOT, SERVER_LOG)}:\n${lines.slice(-40).join('\n')}`);
  } catch {
    console.error('e2e: no server log was written');
  }
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * The built app (`dist/server.js`, what `npm start` runs) on a free port with a database and a
 * DATA_DIR of its own, set up so suites can drive every area over HTTP: the Playwright journeys
 * and the SDK's and CLI's tests.
 *
 * Database: embedded PGlite under the temporary DATA_DIR, or a database created on the PostgreSQL
 * server `adminUrl` names and dropped by `stop`. Shared PostgreSQL tenants are made on the cluster
 * TEST_TENANT_CLUSTER_URL names, when set.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTemporaryDatabase, freePort, ROOT, stopProcessGroup, waitForHealth, type TemporaryDatabase } from './processes.ts';

export interface AppServerOptions {
  /** Names the temporary directory and database, and the log lines of the runner. */
  label: string;
  /** Where the server's output goes. */
  logFile: string;
  /** A PostgreSQL server to make the app's database on; embedded PGlite without one. */
  adminUrl?: string;
  /** Settings of the suite's own, over the defaults below. */
  env?: NodeJS.ProcessEnv;
}

export interface AppServer {
  baseUrl: string;
  /** The app's database, when it is PostgreSQL. */
  databaseUrl: string | undefined;
  child: ChildProcess;
  /** Stops the server and everything it started, drops its database and removes its DATA_DIR. */
  stop(): Promise<void>;
}

/** Ports of their own for the run's redis-server processes, away from the default range a dev server on this host uses. */
const REDIS_PORT_RANGE = '28600-28699';

/** Starts the server and waits until /healthz answers; on failure everything started is stopped again. */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const port = await freePort();
  const nameserverPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `panel-${options.label}-`));
  const database: TemporaryDatabase | undefined = options.adminUrl ? await createTemporaryDatabase(options.adminUrl, `panel_${options.label}`) : undefined;
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
    DATABASE_URL: database?.url ?? '',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Simulated servers boot and apply power actions in seconds, so suites can watch them settle.
    INFRA_SIM_PROVISION_SECONDS: '2',
    INFRA_SIM_ACTION_SECONDS: '2',
    // Packs of secrets are sold only where a price is configured; the suites buy some.
    SECRETS_PACK_PRICE_MONTHLY: process.env.SECRETS_PACK_PRICE_MONTHLY ?? '300',
    // Webhooks are delivered to receivers on loopback.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    REDIS_PORT_RANGE,
    // Domain ownership is proved with real TXT lookups, answered by the DNS simulator's own nameserver.
    DNS_SIM_NAMESERVER: `127.0.0.1:${nameserverPort}`,
    DNS_RESOLVERS: `127.0.0.1:${nameserverPort}`,
    // The embedded endpoints (S3, the registry's front door, hosting's nginx and SFTP, PgBouncer) listen on ports of
    // their own, so parallel runs never share one.
    OBJECT_STORAGE_ENDPOINT_PORT: String(await freePort()),
    REGISTRY_ENDPOINT_PORT: String(await freePort()),
    HOSTING_HTTP_PORT: String(await freePort()),
    HOSTING_SFTP_PORT: String(await freePort()),
    // With a PostgreSQL run, the sites' databases are made on this machine's MariaDB.
    HOSTING_MYSQL_ADMIN_URL: database ? 'mysql://root@127.0.0.1:3306' : '',
    DATABASES_ADMIN_URL: process.env.TEST_TENANT_CLUSTER_URL ?? '',
    DATABASES_POOL_PORT: String(await freePort()),
    // Simulated builds step quickly, so a deployment goes live in seconds.
    BUILD_SIM_STEP_MS: process.env.BUILD_SIM_STEP_MS ?? '200',
    ...options.env,
  };
  // Suites read mail from the dev mailbox, which only exists without SMTP.
  delete env.SMTP_URL;
  env.DEV_MAILBOX = 'true';
  delete env.PGLITE_DIR;
  const log = openSync(options.logFile, 'w');
  const child = spawn(process.execPath, ['dist/server.js'], { cwd: ROOT, env, stdio: ['ignore', log, log], detached: true });
  closeSync(log);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopProcessGroup(child);
    await stopRedisServers(dataDir, options.label);
    if (database) await database.drop().catch((err: unknown) => console.error(`${options.label}: could not drop the test database:`, err));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(baseUrl, child);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, databaseUrl: database?.url, child, stop };
}

/**
 * Embedded Redis databases run detached so they outlive an app restart; a suite that failed
 * before deleting its database would leave one running after the run. Each process is stopped by
 * its pid file under the run's DATA_DIR, once its title shows the port its redis.conf names (a
 * pid file can outlive its process, and the pid be reused).
 */
async function stopRedisServers(dataDir: string, label: string): Promise<void> {
  const root = path.join(dataDir, 'redis');
  if (!existsSync(root)) return;
  const pids: number[] = [];
  for (const database of readdirSync(root)) {
    for (const role of ['primary', 'replica']) {
      const dir = path.join(root, database, role);
      const pid = Number(readOptional(path.join(dir, 'redis.pid')));
      const port = /^port (\d+)$/m.exec(readOptional(path.join(dir, 'redis.conf')))?.[1];
      if (Number.isInteger(pid) && pid > 0 && port && processTitle(pid).includes(`:${port}`)) pids.push(pid);
    }
  }
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(100);
  for (const pid of pids.filter(isAlive)) signal(pid, 'SIGKILL');
  if (pids.length > 0) console.log(`${label}: stopped ${pids.length} redis-server process(es) left by the run`);
}

function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function processTitle(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

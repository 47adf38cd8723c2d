/**
 * `npm run e2e`: builds the panel, starts the production server on a free port with a database
 * of its own, runs the Playwright suite against it and exits with the suite's status.
 *
 * Database: a fresh embedded PGlite under a temporary DATA_DIR, or, when E2E_DATABASE_URL or
 * TEST_DATABASE_URL names a PostgreSQL server, a database created for this run and dropped after.
 * Shared PostgreSQL databases are made on the cluster TEST_TENANT_CLUSTER_URL names, when set.
 * E2E_SKIP_BUILD=1 reuses the existing build. Arguments are passed on to `playwright test`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp, createTemporaryDatabase, freePort, logTail, ROOT, run, stopProcessGroup, waitForHealth, type TemporaryDatabase } from '../test/processes';

const OUTPUT_DIR = path.join(ROOT, 'e2e', '.output');
const SERVER_LOG = path.join(OUTPUT_DIR, 'server.log');
/** Ports of their own for the run's redis-server processes, away from the default range a dev server on this host uses. */
const REDIS_PORT_RANGE = '28600-28699';

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

  const port = await freePort();
  const nameserverPort = await freePort();
  const objectStoragePort = await freePort();
  const registryPort = await freePort();
  const hostingPorts = { http: await freePort(), sftp: await freePort() };
  const databasesPoolPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'panel-e2e-'));
  const adminUrl = process.env.E2E_DATABASE_URL || process.env.TEST_DATABASE_URL;
  const database: TemporaryDatabase | undefined = adminUrl ? await createTemporaryDatabase(adminUrl, 'panel_e2e') : undefined;
  let server: ChildProcess | undefined;
  const stopOnSignal = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  async function cleanup(): Promise<void> {
    if (server) await stopProcessGroup(server);
    server = undefined;
    await stopRedisServers(dataDir);
    if (database) await database.drop().catch((err: unknown) => console.error('e2e: could not drop the test database:', err));
    rmSync(dataDir, { recursive: true, force: true });
  }

  try {
    server = startServer(port, baseUrl, dataDir, database?.url, nameserverPort, objectStoragePort, registryPort, hostingPorts, databasesPoolPort);
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

function startServer(
  port: number,
  baseUrl: string,
  dataDir: string,
  databaseUrl: string | undefined,
  nameserverPort: number,
  objectStoragePort: number,
  registryPort: number,
  hostingPorts: { http: number; sftp: number },
  databasesPoolPort: number,
): ChildProcess {
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
    // Packs of secrets are sold only where a price is configured; the secrets journey buys some.
    SECRETS_PACK_PRICE_MONTHLY: process.env.SECRETS_PACK_PRICE_MONTHLY ?? '300',
    // The webhooks journey delivers to a receiver on loopback.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    REDIS_PORT_RANGE,
    // The domains journey proves ownership with real TXT lookups, answered by the DNS simulator's own nameserver.
    DNS_SIM_NAMESERVER: `127.0.0.1:${nameserverPort}`,
    DNS_RESOLVERS: `127.0.0.1:${nameserverPort}`,
    // The embedded S3 endpoint listens on a port of its own, so parallel runs never share one.
    OBJECT_STORAGE_ENDPOINT_PORT: String(objectStoragePort),
    // So does the container registry's front door, which the registry journey pushes images through.
    REGISTRY_ENDPOINT_PORT: String(registryPort),
    // Hosting's nginx and SFTP server too; with a PostgreSQL run, the sites' databases are made on this machine's MariaDB.
    HOSTING_HTTP_PORT: String(hostingPorts.http),
    HOSTING_SFTP_PORT: String(hostingPorts.sftp),
    HOSTING_MYSQL_ADMIN_URL: process.env.E2E_DATABASE_URL ? 'mysql://root@127.0.0.1:3306' : '',
    // Shared PostgreSQL tenants live on the cluster TEST_TENANT_CLUSTER_URL names (prepared with scripts/postgres-tenant-cluster.sh);
    // without it the databases journey skips. The run's PgBouncer listens on a port of its own.
    DATABASES_ADMIN_URL: process.env.TEST_TENANT_CLUSTER_URL ?? '',
    DATABASES_POOL_PORT: String(databasesPoolPort),
    // Simulated builds step quickly, so the apps journey watches a deployment go live in seconds.
    BUILD_SIM_STEP_MS: process.env.BUILD_SIM_STEP_MS ?? '200',
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

/**
 * Embedded Redis databases run detached so they outlive an app restart; a journey that failed
 * before deleting its database would leave one running after the run. Each process is stopped by
 * its pid file under the run's DATA_DIR, once its title shows the port its redis.conf names (a
 * pid file can outlive its process, and the pid be reused).
 */
async function stopRedisServers(dataDir: string): Promise<void> {
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
  if (pids.length > 0) console.log(`e2e: stopped ${pids.length} redis-server process(es) left by the run`);
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

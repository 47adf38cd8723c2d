import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, chown, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { freePort, portIsFree } from '../../platform/ports';
import { SupervisedProcess, writeAtomically, type ProcessUser } from '../process/supervisedProcess';
import { ensureCertificate } from './tls';
import type { PoolMode, PoolSpec } from './types';

/**
 * The admin console's user. It exists only in PgBouncer's auth file, never on the cluster, and the
 * hyphen keeps it out of the tenants' names (`^[a-z_][a-z0-9_]*$`), so no tenant can be it.
 */
export const POOLER_ADMIN_USER = 'platform-pooler-admin';

/** Files in the pooler's folder, which is also its working directory: the configuration names them relatively. */
const FILES = {
  ini: 'pgbouncer.ini',
  auth: 'users.txt',
  key: 'tls.key',
  certificate: 'tls.crt',
  log: 'pgbouncer.log',
  pid: 'pgbouncer.pid',
  adminPassword: 'admin.password',
} as const;

/** How long another process's PgBouncer, seen answering its console, counts as serving without asking again. */
const ELSEWHERE_FRESH_MS = 10_000;
/** How long a live PgBouncer over the folder is given to answer before it is taken for a leftover. */
const ELSEWHERE_ANSWER_MS = 5_000;

const DEFAULT_START_TIMEOUT_MS = 20_000;
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const HOST = /^[A-Za-z0-9.:_-]+$/;

export interface PoolerOptions {
  /** Absolute path of pgbouncer. */
  binary: string;
  /** Configuration, auth file, TLS key, log and pid file; made 0700 and handed to `user`. */
  dir: string;
  /** `listen_addr`: one address, or several separated by commas, or `*`. */
  listenAddr: string;
  /** 0 takes a free port at each start. */
  port: number;
  /** The cluster the pools connect to (the admin URL's host and port). */
  server: { host: string; port: number };
  /** The certificate's name: the host tenants connect to. */
  commonName: string;
  /** Set when the app runs as root: PgBouncer refuses to run as root. */
  user?: ProcessUser;
  startTimeoutMs?: number;
}

/** One line of the auth file: a tenant's login and its SCRAM verifier (or the admin's plain password). */
export interface AuthEntry {
  user: string;
  secret: string;
}

/** What the pooler serves: the pools and the logins allowed through it. Asked for at each start and each change. */
export type PoolerContents = () => Promise<{ pools: readonly PoolSpec[]; users: readonly AuthEntry[] }>;

/** A row of the admin console's `SHOW DATABASES`, the fields the platform reads. */
export interface PoolerDatabase {
  name: string;
  database: string;
  forceUser: string | null;
  poolSize: number;
  poolMode: string | null;
  paused: boolean;
  disabled: boolean;
}

/**
 * PgBouncer 1.18 over files in one folder, one per folder (so one per host: every process of the
 * host shares DATABASES_DATA_DIR). The first process that needs it starts it as a supervised child
 * (it dies with that process: see spawnOwned); the other processes find it through its pid file
 * (a live pgbouncer over this folder) or its configured port (its admin console answers with the
 * password kept in this folder) and use it without starting another: they rewrite both files and
 * send RELOAD, KILL and RESUME through the console as its owner does. When it is gone, the next
 * process needing it starts it and supervises it from then on.
 *
 * Every change rewrites the configuration and the auth file whole (atomically) from the owner's
 * `contents` and reloads them. The owner's `serially` must exclude every other process of the host
 * too (EmbeddedTenantCluster takes an advisory lock on the cluster): restarts run in it, and every
 * other call is made from inside it.
 */
export class PgBouncer {
  private readonly process: SupervisedProcess;
  private readonly startTimeoutMs: number;
  /** The port of the PgBouncer this process runs (kept across restarts). */
  private port: number | null = null;
  private adminPassword: string | null = null;
  /**
   * Another process's PgBouncer over this folder, last seen answering its console at `seenAt`;
   * `pid` when its pid file named it (it then serves exactly as long as that process lives).
   */
  private elsewhere: { port: number; seenAt: number; pid: number | null } | null = null;
  private probing = false;
  private lastProbeAt = 0;

  constructor(
    private readonly options: PoolerOptions,
    private readonly contents: PoolerContents,
    serially: <T>(task: () => Promise<T>) => Promise<T>,
  ) {
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.process = new SupervisedProcess(
      {
        name: 'pgbouncer',
        binary: options.binary,
        args: () => [FILES.ini],
        pidFile: FILES.pid,
        marker: FILES.ini,
        titlePrefix: options.binary,
        logFile: FILES.log,
        cwd: options.dir,
        user: options.user,
        prepare: () => this.prepare(),
        waitReady: (hasExited) => this.waitReady(hasExited),
        servedElsewhere: () => this.findElsewhere(),
      },
      serially,
    );
  }

  /** Whether this process runs (and supervises) the PgBouncer of the folder. */
  runsHere(): boolean {
    return this.process.isRunning();
  }

  /**
   * Where tenants reach the pools: this process's PgBouncer, else one another process of the host
   * runs over the same folder (its pid file names a live pgbouncer here; or, failing that, its
   * console answered on the configured port lately). Null when none serves. Synchronous, for
   * `endpoints()`; a console probe runs in the background when only the port can tell.
   */
  listenPort(): number | null {
    if (this.process.isRunning()) return this.port;
    const pid = this.process.servingPid();
    if (pid !== null) {
      const port = this.options.port || this.iniPort();
      if (port) return port;
    }
    const seen = this.elsewhere;
    // One found through its pid file is gone with its process; one found on the port alone counts while it answered lately.
    if (seen && (seen.pid === null ? Date.now() - seen.seenAt < ELSEWHERE_FRESH_MS : seen.pid === pid)) return seen.port;
    this.probeInBackground();
    return null;
  }

  /**
   * Makes sure a PgBouncer serves the folder: this process's, one another process runs (checked
   * to answer now), or a new one started here. In the owner's queue and lock.
   */
  async ensure(): Promise<void> {
    if (this.process.isRunning()) return;
    await this.process.start();
    if (!this.process.isRunning() && this.elsewhere === null) throw upstream('pgbouncer is neither running nor startable');
  }

  /** Stops this process's PgBouncer; one another process runs is left alone (in the owner's queue). */
  async stop(): Promise<void> {
    this.elsewhere = null;
    await this.process.stop();
  }

  /**
   * Rewrites both files from the owner's contents and reloads them, wherever PgBouncer runs (in the
   * owner's queue and lock). Nothing to do while none runs: the next start writes them.
   */
  async apply(): Promise<void> {
    const port = this.servingPort();
    if (port === null) return;
    await this.writeFiles(port);
    await this.command('RELOAD');
  }

  /**
   * Drops every client and server connection of a pool at once, then lets new clients in again
   * (KILL leaves the pool paused). A pool PgBouncer does not know has nothing to drop.
   */
  async killClients(pool: string, resume = true): Promise<void> {
    if (this.servingPort() === null) return;
    await this.commandOnPool('KILL', pool);
    if (resume) await this.commandOnPool('RESUME', pool);
  }

  /** `SHOW DATABASES`, for diagnostics and tests. */
  async databases(): Promise<PoolerDatabase[]> {
    const rows = await this.admin((sql) => sql.unsafe<Record<string, string | null>[]>('SHOW DATABASES'));
    return rows.map((row) => ({
      name: String(row.name),
      database: String(row.database),
      forceUser: row.force_user ?? null,
      poolSize: Number(row.pool_size),
      poolMode: row.pool_mode ?? null,
      paused: row.paused === '1',
      disabled: row.disabled === '1',
    }));
  }

  /** The port of the PgBouncer the last `ensure` found or started. */
  private servingPort(): number | null {
    if (this.process.isRunning()) return this.port;
    return this.elsewhere?.port ?? null;
  }

  /**
   * Before each start and restart (in the lock): whether another process's PgBouncer serves this
   * folder. A pid file naming a live pgbouncer over this folder says so when its console answers
   * (given a few seconds: a busy one is not killed for being slow); otherwise the configured port
   * is asked. A live one that never answers is left to the start, which kills it as a leftover.
   */
  private async findElsewhere(): Promise<boolean> {
    const previous = this.elsewhere;
    this.elsewhere = null;
    await this.ensureFolder();
    const pid = this.process.servingPid();
    const port = pid !== null ? this.options.port || this.iniPort() : this.options.port;
    if (!port) return false;
    const deadline = Date.now() + (pid !== null ? ELSEWHERE_ANSWER_MS : 0);
    for (;;) {
      if (await this.answersAt(port)) {
        this.elsewhere = { port, seenAt: Date.now(), pid };
        if (previous?.port !== port || previous.pid !== pid) getLogger().info({ port, pid }, 'pgbouncer of this folder runs in another process; using it');
        return true;
      }
      if (Date.now() >= deadline || (pid !== null && this.process.servingPid() === null)) break;
      await sleep(200);
    }
    if (pid !== null) getLogger().warn({ pid, port }, 'a pgbouncer runs over this folder but its console does not answer');
    return false;
  }

  private async answersAt(port: number): Promise<boolean> {
    try {
      await this.admin((sql) => sql.unsafe('SHOW VERSION'), port);
      return true;
    } catch {
      return false;
    }
  }

  /** For `listenPort` when only the configured port can tell: at most one probe at a time, one every few seconds. */
  private probeInBackground(): void {
    if (this.options.port === 0 || this.probing || Date.now() - this.lastProbeAt < ELSEWHERE_FRESH_MS / 2) return;
    this.probing = true;
    this.lastProbeAt = Date.now();
    void (async () => {
      try {
        this.adminPassword ??= await readSecret(path.join(this.options.dir, FILES.adminPassword));
        if (this.adminPassword === null) return;
        if (await this.answersAt(this.options.port)) this.elsewhere = { port: this.options.port, seenAt: Date.now(), pid: null };
      } catch (err) {
        getLogger().debug({ err }, 'pgbouncer probe failed');
      } finally {
        this.probing = false;
      }
    })();
  }

  /** `listen_port` of the configuration in the folder: the port the running PgBouncer was started on. */
  private iniPort(): number | null {
    try {
      const match = /^listen_port = (\d+)$/m.exec(readFileSync(path.join(this.options.dir, FILES.ini), 'utf8'));
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  /** The folder (0700, the daemon's) and the console's password, made once and kept there. */
  private async ensureFolder(): Promise<void> {
    const { dir, user } = this.options;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    if (user) await chown(dir, user.uid, user.gid);
    this.adminPassword ??= await ensureSecret(path.join(dir, FILES.adminPassword));
  }

  /** Before each start of this process's own: the folder, a port, the certificate and both files. */
  private async prepare(): Promise<void> {
    await this.ensureFolder();
    await rm(path.join(this.options.dir, FILES.pid), { force: true });
    const bindHost = bindAddress(this.options.listenAddr);
    if (this.port === null || (this.options.port === 0 && !(await portIsFree(this.port, bindHost)))) {
      this.port = this.options.port === 0 ? await freePort(bindHost) : this.options.port;
    }
    await ensureCertificate(path.join(this.options.dir, FILES.key), path.join(this.options.dir, FILES.certificate), this.options.commonName, this.options.user);
    await this.writeFiles(this.port);
  }

  private async writeFiles(port: number): Promise<void> {
    if (this.adminPassword === null) await this.ensureFolder();
    const { pools, users } = await this.contents();
    const owner = this.options.user;
    const ini = renderPgBouncerIni(pools, {
      server: this.options.server,
      listenAddr: this.options.listenAddr,
      listenPort: port,
    });
    await writeAtomically(path.join(this.options.dir, FILES.auth), renderAuthFile([...users, { user: POOLER_ADMIN_USER, secret: this.adminPassword ?? '' }]), {
      owner,
    });
    await writeAtomically(path.join(this.options.dir, FILES.ini), ini, { owner });
  }

  /** Until the admin console answers over TLS. */
  private async waitReady(hasExited: () => boolean): Promise<void> {
    const deadline = Date.now() + this.startTimeoutMs;
    let last: unknown = null;
    while (Date.now() < deadline && !hasExited()) {
      try {
        await this.admin((sql) => sql.unsafe('SHOW VERSION'));
        return;
      } catch (err) {
        last = err;
        await sleep(50);
      }
    }
    throw upstream(hasExited() ? 'pgbouncer exited while starting' : 'pgbouncer did not answer in time', last ?? undefined);
  }

  private async commandOnPool(command: 'KILL' | 'RESUME', pool: string): Promise<void> {
    checkName(pool);
    try {
      await this.command(`${command} ${pool}`);
    } catch (err) {
      // Already gone (removed by a reload) or not paused: nothing to do.
      const message = err instanceof Error ? err.message : '';
      if (/no such database|not paused/i.test(message)) return;
      throw err;
    }
  }

  private async command(text: string): Promise<void> {
    await this.admin((sql) => sql.unsafe(text));
  }

  /**
   * One connection per call: calls are rare, and the PgBouncer answering may change between two
   * (another process's, then this one's). `unsafe` without parameters runs on the simple query
   * protocol, the only one the admin console speaks.
   */
  private async admin<T>(call: (sql: postgres.Sql) => Promise<T>, port = this.servingPort() ?? this.port ?? this.options.port): Promise<T> {
    if (this.adminPassword === null) throw upstream('The pgbouncer console password is not read yet');
    const sql = postgres({
      host: connectAddress(this.options.listenAddr),
      port,
      database: 'pgbouncer',
      username: POOLER_ADMIN_USER,
      password: this.adminPassword,
      ssl: 'require',
      fetch_types: false,
      prepare: false,
      max: 1,
      connect_timeout: 5,
      onnotice: () => {},
    });
    try {
      return await call(sql);
    } finally {
      await sql.end({ timeout: 1 }).catch((err: unknown) => getLogger().debug({ err }, 'pgbouncer admin connection did not close cleanly'));
    }
  }
}

/**
 * The console's password, made once (random, 0600, the app's own: PgBouncer reads it from the
 * auth file) so that every process of the host reaches the console of whichever runs PgBouncer.
 * Made beside and linked into place, so two processes making it at once agree on the first.
 */
async function ensureSecret(file: string): Promise<string> {
  const existing = await readSecret(file);
  if (existing !== null) return existing;
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
    try {
      await link(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    await rm(temporary, { force: true });
  }
  const made = await readSecret(file);
  if (made === null) throw upstream(`The pgbouncer console password in ${file} is empty`);
  return made;
}

async function readSecret(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export interface IniSettings {
  server: { host: string; port: number };
  listenAddr: string;
  listenPort: number;
}

/**
 * The whole configuration. Each pool logs in to the cluster as the tenant's pool user (forced
 * `user=`), with no `password=`: PgBouncer 1.18 reuses the SCRAM keys the client proved for the
 * server login (pgbouncer/pgbouncer#1461, #944), which is why the pool user is given the very
 * verifier of the tenant's login (see EmbeddedTenantCluster). No unix socket: tenants come over
 * TCP with TLS only (`client_tls_sslmode = require`), and the pools reach the cluster over TLS too,
 * as pg_hba demands of tenant roles.
 */
export function renderPgBouncerIni(pools: readonly PoolSpec[], settings: IniSettings): string {
  const host = settings.server.host;
  if (!HOST.test(host)) throw upstream(`The tenant cluster's host "${host}" cannot be written into the PgBouncer configuration`);
  if (!HOST.test(settings.listenAddr.replace(/[,\s*]/g, '') || 'x')) throw upstream('DATABASES_POOL_LISTEN_ADDR is not a list of addresses');
  const databases = [...pools]
    .sort((a, b) => a.dbName.localeCompare(b.dbName))
    .map((pool) => {
      checkName(pool.dbName);
      checkName(pool.poolUser);
      const size = positiveInteger(pool.poolSize, 'pool size');
      return (
        `${pool.dbName} = host=${host} port=${settings.server.port} dbname=${pool.dbName} user=${pool.poolUser} ` +
        `pool_size=${size} max_db_connections=${size} pool_mode=${poolModeSetting(pool.poolMode)}`
      );
    });
  return [
    '; Written by the platform (server/providers/databases); every change rewrites it whole.',
    '[databases]',
    ...databases,
    '',
    '[pgbouncer]',
    `listen_addr = ${settings.listenAddr}`,
    `listen_port = ${settings.listenPort}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${FILES.auth}`,
    `admin_users = ${POOLER_ADMIN_USER}`,
    'client_tls_sslmode = require',
    `client_tls_key_file = ${FILES.key}`,
    `client_tls_cert_file = ${FILES.certificate}`,
    'server_tls_sslmode = require',
    `logfile = ${FILES.log}`,
    `pidfile = ${FILES.pid}`,
    // A line per connection would grow the log without bound; failures are still logged.
    'log_connections = 0',
    'log_disconnections = 0',
    'ignore_startup_parameters = extra_float_digits',
    'max_client_conn = 1000',
    '',
  ].join('\n');
}

/** `"user" "secret"` lines, double quotes doubled, as PgBouncer reads them. */
export function renderAuthFile(entries: readonly AuthEntry[]): string {
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  return entries.map((entry) => `${quote(entry.user)} ${quote(entry.secret)}\n`).join('');
}

export function poolModeSetting(mode: PoolMode): 'transaction' | 'session' | 'statement' {
  switch (mode) {
    case 'TRANSACTION':
      return 'transaction';
    case 'SESSION':
      return 'session';
    case 'STATEMENT':
      return 'statement';
    default:
      throw new AppError('VALIDATION_ERROR', `Unknown pool mode ${String(mode)}`);
  }
}

/** The address a free port is looked for on: the first listened on (any, for `*`). */
function bindAddress(listenAddr: string): string {
  const first = listenAddr.split(',')[0]?.trim() ?? '';
  return first === '*' || first === '' ? '0.0.0.0' : first;
}

/** The address the admin console is reached on: the first listened on, loopback for a wildcard. */
function connectAddress(listenAddr: string): string {
  const first = bindAddress(listenAddr);
  if (first === '0.0.0.0') return '127.0.0.1';
  if (first === '::') return '::1';
  return first;
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new AppError('VALIDATION_ERROR', `"${name}" is not a valid tenant name (lowercase letters, digits and underscores, 63 at most)`);
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) throw new AppError('VALIDATION_ERROR', `The ${what} must be a positive integer`);
  return value;
}

function upstream(message: string, cause?: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, cause === undefined ? {} : { cause });
}

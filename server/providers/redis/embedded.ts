import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { z } from 'zod';
import { AppError, notFound, validationError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import {
  REDIS_ID_PATTERN,
  REDIS_PERSISTENCE,
  redisSpecSchema,
  type RedisEndpoint,
  type RedisPersistence,
  type RedisProvider,
  type RedisSpec,
  type RedisStatus,
  type RedisUsage,
} from './types';

export interface EmbeddedRedisOptions {
  binary: string;
  /** `$DATA_DIR/redis`: one directory per database. */
  rootDir: string;
  ports: { first: number; last: number };
  startTimeoutMs: number;
}

const HOST = '127.0.0.1';
const MB = 1024 * 1024;
/** How many times a process that died on its own is started again before the database is `failed`. */
const MAX_RESTARTS = 3;

/** What is written next to the processes' directories; the password stays only in their redis.conf. */
const instanceFileSchema = z.object({
  id: z.string().regex(REDIS_ID_PATTERN),
  memoryMb: z.number().int().positive(),
  replication: z.boolean(),
  persistence: z.enum(REDIS_PERSISTENCE),
  port: z.number().int(),
  replicaPort: z.number().int().nullable(),
  /** Set while writes are refused (a billing suspension); applied again after every start. */
  readOnly: z.boolean().default(false),
});
type InstanceFile = z.infer<typeof instanceFileSchema>;

type Role = 'primary' | 'replica';

interface Instance {
  file: InstanceFile;
  password: string;
  status: RedisStatus;
  stopping: boolean;
  restarts: number;
  /** The start under way, which a deprovision waits for so no process is spawned behind its back. */
  starting: Promise<void> | null;
  /** Pids of the processes this app spawned, known before their pid files are written. */
  spawned: Partial<Record<Role, number>>;
}

/**
 * Persistence as the option names it. Snapshots are taken when at least one key changed in the
 * period; AOF databases take no snapshots, so one write path is paid for, as with managed services.
 */
function persistenceLines(persistence: RedisPersistence): string[] {
  switch (persistence) {
    case 'NONE':
      return ['save ""', 'appendonly no'];
    case 'AOF_EVERY_WRITE':
      return ['save ""', 'appendonly yes', 'appendfsync always'];
    case 'AOF_EVERY_1_SECOND':
      return ['save ""', 'appendonly yes', 'appendfsync everysec'];
    case 'SNAPSHOT_EVERY_1_HOUR':
      return ['save 3600 1', 'appendonly no'];
    case 'SNAPSHOT_EVERY_6_HOURS':
      return ['save 21600 1', 'appendonly no'];
    case 'SNAPSHOT_EVERY_12_HOURS':
      return ['save 43200 1', 'appendonly no'];
  }
}

/** The memory each process may fill: replication splits the plan between primary and replica. */
export function maxmemoryBytes(spec: Pick<RedisSpec, 'memoryMb' | 'replication'>): number {
  return Math.floor((spec.replication ? spec.memoryMb / 2 : spec.memoryMb) * MB);
}

/** A Redis config string: quoted so a data directory with spaces stays one argument. */
const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * noeviction, as managed services default to: a full database refuses writes with an OOM error
 * instead of silently dropping keys the customer may treat as durable.
 */
function configText(file: InstanceFile, role: Role, dir: string, password: string): string {
  const port = role === 'primary' ? file.port : file.replicaPort!;
  return [
    `port ${port}`,
    `bind ${HOST}`,
    'protected-mode yes',
    'daemonize no',
    `dir ${quoted(dir)}`,
    `pidfile ${quoted(path.join(dir, 'redis.pid'))}`,
    `logfile ${quoted(path.join(dir, 'redis.log'))}`,
    `requirepass ${password}`,
    `maxmemory ${maxmemoryBytes(file)}`,
    'maxmemory-policy noeviction',
    // One replica at most: waiting for more to join a full sync only delays the one there is.
    'repl-diskless-sync-delay 0',
    ...persistenceLines(file.persistence),
    ...(role === 'replica' ? [`replicaof ${HOST} ${file.port}`, `masterauth ${password}`] : []),
    '',
  ].join('\n');
}

function upstream(message: string, cause?: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, cause === undefined ? {} : { cause });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs one command on one process with a short-lived connection; no retries, so failures surface. */
async function withClient<T>(port: number, password: string, run: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: HOST,
    port,
    password,
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await run(client);
  } finally {
    client.disconnect();
  }
}

/** The default user keeps every command but those of the @write category while read-only. */
async function applyAccessMode(port: number, password: string, readOnly: boolean): Promise<void> {
  await withClient(port, password, (client) => client.call('ACL', 'SETUSER', 'default', readOnly ? '-@write' : '+@all'));
}

function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

export class EmbeddedRedisProvider implements RedisProvider {
  readonly kind = 'embedded' as const;
  readonly description: string;
  private readonly instances = new Map<string, Instance>();
  /** Ports handed out by this process but perhaps not yet written to an instance file. */
  private readonly reservedPorts = new Set<number>();

  constructor(private readonly options: EmbeddedRedisOptions) {
    this.description = `Embedded: one ${path.basename(options.binary)} process per database on ${HOST}, ports ${options.ports.first}-${options.ports.last}`;
  }

  async provision(input: RedisSpec): Promise<RedisEndpoint> {
    const parsed = redisSpecSchema.safeParse(input);
    if (!parsed.success) throw validationError(parsed.error.issues);
    const spec = parsed.data;
    const existing = this.instances.get(spec.id) ?? (await this.load(spec.id));
    if (existing) {
      // A retried creation also revives a database whose processes never started or stopped for good.
      const stopped = this.roles(existing.file).filter((role) => this.runningPid(existing, role) === null);
      if (existing.status === 'failed' && !existing.starting && stopped.length > 0) {
        existing.restarts = 0;
        existing.status = 'provisioning';
        void this.start(existing, stopped);
      }
      return this.endpointOf(existing);
    }
    const port = await this.allocatePort();
    const replicaPort = spec.replication ? await this.allocatePort() : null;
    const file: InstanceFile = {
      id: spec.id,
      memoryMb: spec.memoryMb,
      replication: spec.replication,
      persistence: spec.persistence,
      port,
      replicaPort,
      readOnly: false,
    };
    const password = randomBytes(24).toString('base64url');
    try {
      await this.writeInstance(file, password);
    } catch (err) {
      this.releasePorts(file);
      throw upstream(`Could not prepare the data directory of Redis database ${spec.id}`, err);
    }
    const instance: Instance = { file, password, status: 'provisioning', stopping: false, restarts: 0, starting: null, spawned: {} };
    this.instances.set(spec.id, instance);
    this.releasePorts(file);
    void this.start(instance);
    getLogger().info({ redisId: spec.id, port, replicaPort }, 'redis database provisioning');
    return this.endpointOf(instance);
  }

  async status(id: string): Promise<RedisStatus> {
    const instance = await this.known(id);
    if (instance.status === 'ready' && !this.roles(instance.file).every((role) => this.runningPid(instance, role) !== null)) {
      // An adopted process is not our child, so its death is noticed here rather than by an exit event.
      void this.recover(instance);
    }
    return instance.status;
  }

  async usage(id: string): Promise<RedisUsage> {
    const instance = await this.known(id);
    const memoryLimitBytes = maxmemoryBytes(instance.file);
    if (instance.status === 'provisioning') return { memoryUsedBytes: 0, memoryLimitBytes, networkInBytes: 0, networkOutBytes: 0, operations: 0 };
    let info: string;
    try {
      info = await withClient(instance.file.port, instance.password, (client) => client.info());
    } catch (err) {
      throw upstream(`Redis database ${id} cannot be reached`, err);
    }
    const number = (name: string) => Number(infoField(info, name) ?? 0);
    return {
      memoryUsedBytes: number('used_memory'),
      memoryLimitBytes,
      networkInBytes: number('total_net_input_bytes'),
      networkOutBytes: number('total_net_output_bytes'),
      operations: number('total_commands_processed'),
    };
  }

  async setReadOnly(id: string, readOnly: boolean): Promise<void> {
    const instance = await this.known(id);
    instance.file = { ...instance.file, readOnly };
    try {
      await writeFile(path.join(this.dirOf(id), 'instance.json'), JSON.stringify(instance.file, null, 2), { mode: 0o600 });
    } catch (err) {
      throw upstream(`Could not record the access mode of Redis database ${id}`, err);
    }
    if (this.runningPid(instance, 'primary') === null) return;
    try {
      await applyAccessMode(instance.file.port, instance.password, readOnly);
    } catch (err) {
      throw upstream(`Redis database ${id} cannot be reached`, err);
    }
    getLogger().info({ redisId: id, readOnly }, 'redis database access mode changed');
  }

  async deprovision(id: string): Promise<void> {
    checkId(id);
    const instance = this.instances.get(id) ?? (await this.load(id));
    if (instance) {
      instance.stopping = true;
      await instance.starting;
      for (const role of this.roles(instance.file).reverse()) await this.stopProcess(instance, role);
      this.instances.delete(id);
    }
    try {
      await rm(this.dirOf(id), { recursive: true, force: true });
    } catch (err) {
      throw upstream(`Could not remove the data of Redis database ${id}`, err);
    }
    getLogger().info({ redisId: id }, 'redis database deprovisioned');
  }

  async adopt(ids: string[]): Promise<void> {
    const known = new Set(ids);
    const entries = existsSync(this.options.rootDir) ? await readdir(this.options.rootDir, { withFileTypes: true }) : [];
    const unknown = entries.filter((e) => e.isDirectory() && !known.has(e.name)).map((e) => e.name);
    if (unknown.length > 0) getLogger().warn({ directories: unknown, rootDir: this.options.rootDir }, 'redis data directories of unknown databases left alone');
    const starts: Promise<void>[] = [];
    for (const id of ids) {
      const instance = REDIS_ID_PATTERN.test(id) ? (this.instances.get(id) ?? (await this.load(id))) : null;
      if (!instance) {
        getLogger().error({ redisId: id }, 'redis database has no data directory to adopt');
        continue;
      }
      const stopped = this.roles(instance.file).filter((role) => this.runningPid(instance, role) === null);
      if (stopped.length === 0) {
        instance.status = 'ready';
        continue;
      }
      getLogger().info({ redisId: id, roles: stopped }, 'redis database restarted on adoption');
      instance.status = 'provisioning';
      starts.push(this.start(instance, stopped));
    }
    await Promise.all(starts);
  }

  async shutdown(): Promise<void> {
    // Databases keep serving while the app restarts; adopt() takes them over again.
    this.instances.clear();
  }

  private async known(id: string): Promise<Instance> {
    checkId(id);
    const instance = this.instances.get(id) ?? (await this.load(id));
    if (!instance) throw notFound('Redis database');
    return instance;
  }

  /** An instance this process has not seen yet, from its directory; its status is what its processes show. */
  private async load(id: string): Promise<Instance | null> {
    const dir = this.dirOf(id);
    let file: InstanceFile;
    let password: string;
    try {
      file = instanceFileSchema.parse(JSON.parse(await readFile(path.join(dir, 'instance.json'), 'utf8')));
      const conf = await readFile(path.join(dir, 'primary', 'redis.conf'), 'utf8');
      password = /^requirepass (\S+)$/m.exec(conf)?.[1] ?? '';
    } catch {
      return null;
    }
    if (!password) return null;
    const instance: Instance = { file, password, status: 'failed', stopping: false, restarts: 0, starting: null, spawned: {} };
    if (this.roles(file).every((role) => this.runningPid(instance, role) !== null)) instance.status = 'ready';
    this.instances.set(id, instance);
    return instance;
  }

  private endpointOf(instance: Instance): RedisEndpoint {
    return { host: HOST, port: instance.file.port, tls: false, password: instance.password };
  }

  private dirOf(id: string): string {
    return path.join(this.options.rootDir, id);
  }

  private roles(file: InstanceFile): Role[] {
    return file.replicaPort === null ? ['primary'] : ['primary', 'replica'];
  }

  private portOf(file: InstanceFile, role: Role): number {
    return role === 'primary' ? file.port : file.replicaPort!;
  }

  private async writeInstance(file: InstanceFile, password: string): Promise<void> {
    const dir = this.dirOf(file.id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const role of this.roles(file)) {
      const roleDir = path.join(dir, role);
      await mkdir(roleDir, { recursive: true, mode: 0o700 });
      await writeFile(path.join(roleDir, 'redis.conf'), configText(file, role, roleDir, password), { mode: 0o600 });
    }
    await writeFile(path.join(dir, 'instance.json'), JSON.stringify(file, null, 2), { mode: 0o600 });
  }

  /** Ports in use by another database's files are skipped even while that database is stopped, so it can come back on its own port. */
  private async allocatePort(): Promise<number> {
    const taken = new Set(this.reservedPorts);
    const entries = existsSync(this.options.rootDir) ? await readdir(this.options.rootDir) : [];
    for (const name of entries) {
      try {
        const file = instanceFileSchema.parse(JSON.parse(await readFile(path.join(this.options.rootDir, name, 'instance.json'), 'utf8')));
        taken.add(file.port);
        if (file.replicaPort !== null) taken.add(file.replicaPort);
      } catch {
        continue;
      }
    }
    for (let port = this.options.ports.first; port <= this.options.ports.last; port += 1) {
      if (taken.has(port) || !(await portIsFree(port))) continue;
      this.reservedPorts.add(port);
      return port;
    }
    throw upstream(`No free port left for a Redis database in ${this.options.ports.first}-${this.options.ports.last}`);
  }

  private releasePorts(file: InstanceFile): void {
    this.reservedPorts.delete(file.port);
    if (file.replicaPort !== null) this.reservedPorts.delete(file.replicaPort);
  }

  /** The pid in the process's pid file when that process is alive and is the redis-server of this port. */
  private runningPid(instance: Instance, role: Role): number | null {
    const roleDir = path.join(this.dirOf(instance.file.id), role);
    let pid: number;
    try {
      pid = Number(readFileSync(path.join(roleDir, 'redis.pid'), 'utf8').trim());
    } catch {
      return null;
    }
    if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!new RegExp(`:${this.portOf(instance.file, role)}(?![0-9])`).test(cmdline)) return null;
    } catch {
      // Without /proc the pid is trusted: the pid file is ours and removed when the process stops.
    }
    return pid;
  }

  private start(instance: Instance, roles: Role[] = this.roles(instance.file)): Promise<void> {
    const starting = this.startAll(instance, roles).finally(() => {
      if (instance.starting === starting) instance.starting = null;
    });
    instance.starting = starting;
    return starting;
  }

  private async startAll(instance: Instance, roles: Role[]): Promise<void> {
    try {
      for (const role of roles) {
        if (instance.stopping) return;
        this.spawnProcess(instance, role);
        await this.waitUntilServing(instance, role);
        // The ACL lives in the process, not in redis.conf: a restarted primary takes the mode again.
        if (role === 'primary' && instance.file.readOnly) await applyAccessMode(instance.file.port, instance.password, true);
      }
      if (!instance.stopping) instance.status = 'ready';
    } catch (err) {
      if (instance.stopping) return;
      instance.status = 'failed';
      getLogger().error({ redisId: instance.file.id, err }, 'redis database failed to start');
    }
  }

  private spawnProcess(instance: Instance, role: Role): void {
    const conf = path.join(this.dirOf(instance.file.id), role, 'redis.conf');
    // Detached so the database outlives the app; its stdio goes nowhere, redis.log holds its messages.
    const child = spawn(this.options.binary, [conf], { detached: true, stdio: 'ignore' });
    if (child.pid !== undefined) instance.spawned[role] = child.pid;
    child.on('error', (err) => {
      if (!instance.stopping) getLogger().error({ redisId: instance.file.id, role, err }, 'redis-server could not be run');
    });
    child.on('exit', (code, signal) => {
      if (instance.spawned[role] === child.pid) delete instance.spawned[role];
      if (instance.stopping || this.instances.get(instance.file.id) !== instance) return;
      getLogger().warn({ redisId: instance.file.id, role, code, signal }, 'redis-server exited');
      void this.recover(instance);
    });
    child.unref();
  }

  /** Supervision: a process that died on its own is started again, a few times, before the database is `failed`. */
  private async recover(instance: Instance): Promise<void> {
    if (instance.stopping || instance.status === 'provisioning') return;
    if (!existsSync(path.join(this.dirOf(instance.file.id), 'instance.json'))) {
      // Deprovisioned by another process sharing the data directory: nothing is left to supervise.
      this.instances.delete(instance.file.id);
      return;
    }
    const stopped = this.roles(instance.file).filter((role) => this.runningPid(instance, role) === null);
    if (stopped.length === 0) return;
    if (instance.restarts >= MAX_RESTARTS) {
      instance.status = 'failed';
      return;
    }
    instance.restarts += 1;
    instance.status = 'provisioning';
    await this.start(instance, stopped);
  }

  private async waitUntilServing(instance: Instance, role: Role): Promise<void> {
    const port = this.portOf(instance.file, role);
    const deadline = Date.now() + this.options.startTimeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline && !instance.stopping) {
      try {
        const info = await withClient(port, instance.password, (client) => client.info('replication'));
        if (role === 'primary' || infoField(info, 'master_link_status') === 'up') return;
      } catch (err) {
        lastError = err;
      }
      await sleep(100);
    }
    if (!instance.stopping) throw upstream(`Redis database ${instance.file.id} (${role}) did not start`, lastError);
  }

  private async stopProcess(instance: Instance, role: Role): Promise<void> {
    const spawned = instance.spawned[role];
    const pid = this.runningPid(instance, role) ?? (spawned !== undefined && isAlive(spawned) ? spawned : null);
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    const deadline = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < deadline) await sleep(50);
    if (!isAlive(pid)) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return;
    }
    const killDeadline = Date.now() + 5000;
    while (isAlive(pid) && Date.now() < killDeadline) await sleep(50);
    if (isAlive(pid)) throw upstream(`Redis database ${instance.file.id} (${role}) could not be stopped`);
  }
}

function checkId(id: string): void {
  if (!REDIS_ID_PATTERN.test(id)) throw new AppError('NOT_FOUND', 'Redis database not found');
}

import { randomBytes } from 'node:crypto';
import { getConfig, type REDIS_SIM_OPERATIONS } from '../../platform/config';
import { AppError, notFound, validationError } from '../../platform/errors';
import { maxmemoryBytes } from './embedded';
import { REDIS_ID_PATTERN, redisSpecSchema, type RedisEndpoint, type RedisProvider, type RedisSpec, type RedisStatus, type RedisUsage } from './types';

type SimulatedOperation = (typeof REDIS_SIM_OPERATIONS)[number];

interface SimulatedDatabase {
  spec: RedisSpec;
  endpoint: RedisEndpoint;
  createdAt: number;
  /** Decided at provisioning: REDIS_SIM_FAIL=start makes the database end `failed`. */
  failsToStart: boolean;
  readOnly: boolean;
}

export interface RedisSimulatorOptions {
  /** Why the simulator runs, said in `description`. */
  reason?: string;
  now?: () => number;
}

/** A small checksum of the id, so each simulated database has its own, stable traffic shape. */
function seedOf(id: string): number {
  let seed = 0;
  for (const char of id) seed = (seed * 31 + char.charCodeAt(0)) % 997;
  return seed;
}

/**
 * The Redis provider without Redis: databases live in this process's memory, take
 * REDIS_SIM_PROVISION_SECONDS to become ready, and report usage that grows with their age. Nothing
 * listens on the endpoint it returns. Being in memory, it forgets databases when the app restarts;
 * `adopt` brings the known ids back as ready ones with new passwords.
 */
export class RedisSimulator implements RedisProvider {
  readonly kind = 'simulator' as const;
  readonly description: string;
  private readonly databases = new Map<string, SimulatedDatabase>();
  private readonly now: () => number;

  constructor(options: RedisSimulatorOptions = {}) {
    this.now = options.now ?? Date.now;
    this.description = `Simulator: databases are simulated in memory and accept no connections${options.reason ? ` (${options.reason})` : ''}`;
  }

  async provision(input: RedisSpec): Promise<RedisEndpoint> {
    this.failIfInjected('provision');
    const parsed = redisSpecSchema.safeParse(input);
    if (!parsed.success) throw validationError(parsed.error.issues);
    const spec = parsed.data;
    const existing = this.databases.get(spec.id);
    if (existing) return existing.endpoint;
    const database = this.record(spec, this.now(), this.injected('start'));
    return database.endpoint;
  }

  async status(id: string): Promise<RedisStatus> {
    this.failIfInjected('status');
    const database = this.known(id);
    if (this.now() - database.createdAt < getConfig().REDIS_SIM_PROVISION_SECONDS * 1000) return 'provisioning';
    return database.failsToStart ? 'failed' : 'ready';
  }

  async usage(id: string): Promise<RedisUsage> {
    this.failIfInjected('usage');
    const database = this.known(id);
    const memoryLimitBytes = maxmemoryBytes(database.spec);
    if ((await this.status(id)) !== 'ready') return { memoryUsedBytes: 0, memoryLimitBytes, networkInBytes: 0, networkOutBytes: 0, operations: 0 };
    const seconds = (this.now() - database.createdAt) / 1000 - getConfig().REDIS_SIM_PROVISION_SECONDS;
    const seed = seedOf(id);
    const opsPerSecond = 20 + (seed % 80);
    const operations = Math.floor(seconds * opsPerSecond);
    // An empty Redis already holds about a megabyte; data grows towards a fifth of the limit and then breathes.
    const fill = Math.min(1, seconds / 3600) * 0.2 + 0.02 * Math.sin(seconds / 600 + seed);
    const memoryUsedBytes = Math.min(memoryLimitBytes, Math.floor(900_000 + Math.max(0, fill) * memoryLimitBytes));
    return { memoryUsedBytes, memoryLimitBytes, networkInBytes: operations * 48, networkOutBytes: operations * 160, operations };
  }

  async setReadOnly(id: string, readOnly: boolean): Promise<void> {
    this.known(id).readOnly = readOnly;
  }

  /** What `setReadOnly` last set, for tests. */
  isReadOnly(id: string): boolean {
    return this.known(id).readOnly;
  }

  async deprovision(id: string): Promise<void> {
    this.failIfInjected('deprovision');
    checkId(id);
    this.databases.delete(id);
  }

  async adopt(ids: string[]): Promise<void> {
    for (const id of ids) {
      if (!REDIS_ID_PATTERN.test(id) || this.databases.has(id)) continue;
      const restoredLongAgo = this.now() - getConfig().REDIS_SIM_PROVISION_SECONDS * 1000;
      this.record({ id, memoryMb: 256, replication: false, persistence: 'NONE' }, restoredLongAgo, false);
    }
  }

  async shutdown(): Promise<void> {
    this.databases.clear();
  }

  private record(spec: RedisSpec, createdAt: number, failsToStart: boolean): SimulatedDatabase {
    const endpoint: RedisEndpoint = {
      host: `${spec.id.toLowerCase().replace(/_/g, '-')}.redis.simulator.invalid`,
      port: 6379,
      tls: false,
      password: randomBytes(24).toString('base64url'),
    };
    const database = { spec: { ...spec }, endpoint, createdAt, failsToStart, readOnly: false };
    this.databases.set(spec.id, database);
    return database;
  }

  private known(id: string): SimulatedDatabase {
    checkId(id);
    const database = this.databases.get(id);
    if (!database) throw notFound('Redis database');
    return database;
  }

  private injected(operation: SimulatedOperation): boolean {
    return getConfig().REDIS_SIM_FAIL.includes(operation);
  }

  private failIfInjected(operation: Exclude<SimulatedOperation, 'start'>): void {
    if (this.injected(operation)) throw new AppError('UPSTREAM_ERROR', `The Redis provider is unavailable (simulated failure of ${operation})`);
  }
}

function checkId(id: string): void {
  if (!REDIS_ID_PATTERN.test(id)) throw notFound('Redis database');
}

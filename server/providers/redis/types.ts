import { z } from 'zod';

/**
 * The Redis provider: where managed Redis databases actually run, one instance per database. The
 * embedded provider runs a `redis-server` per database on this host; the simulator stands in where
 * no binary is installed; the managed-api provider has a managed-Redis HTTP API run them. Every method throws AppError('UPSTREAM_ERROR') when a process cannot be
 * started or reached, and AppError('NOT_FOUND') for an id the provider does not know where noted.
 */

/** SPEC's `dataPersistence` values. */
export const REDIS_PERSISTENCE = [
  'NONE',
  'AOF_EVERY_WRITE',
  'AOF_EVERY_1_SECOND',
  'SNAPSHOT_EVERY_1_HOUR',
  'SNAPSHOT_EVERY_6_HOURS',
  'SNAPSHOT_EVERY_12_HOURS',
] as const;
export type RedisPersistence = (typeof REDIS_PERSISTENCE)[number];

/** Ids name data directories, so they are kept to characters that are safe in a path. */
export const REDIS_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const redisSpecSchema = z.object({
  /** Ours (the database's id); the provider keys everything by it. */
  id: z.string().regex(REDIS_ID_PATTERN),
  /** The plan's memory; with replication, half of it is reserved for the replica. */
  memoryMb: z.number().int().min(2).max(1_048_576),
  replication: z.boolean(),
  persistence: z.enum(REDIS_PERSISTENCE),
});
export type RedisSpec = z.infer<typeof redisSpecSchema>;

export interface RedisEndpoint {
  host: string;
  port: number;
  tls: boolean;
  /** The default user's password; the provider never logs it. */
  password: string;
}

/** `provisioning` until every process of the database answers, then `ready`; `failed` when it cannot be started. */
export type RedisStatus = 'provisioning' | 'ready' | 'failed';

export interface RedisUsage {
  memoryUsedBytes: number;
  /** What the customer can fill: the plan's memory, halved with replication. */
  memoryLimitBytes: number;
  networkInBytes: number;
  networkOutBytes: number;
  /** Commands processed since the primary last started. */
  operations: number;
}

export interface RedisProvider {
  readonly kind: 'embedded' | 'simulator' | 'managed-api';
  /** One sentence for /healthz and the panel. */
  readonly description: string;
  /**
   * Starts the database and answers at once; `status` follows its readiness. Provisioning an id
   * that already exists answers its endpoint again, so a retried creation makes no second database;
   * on a `failed` database it also starts the processes again. VALIDATION_ERROR for a spec out of range.
   */
  provision(spec: RedisSpec): Promise<RedisEndpoint>;
  /** NOT_FOUND for an unknown id. */
  status(id: string): Promise<RedisStatus>;
  /**
   * Read-only refuses every write command (NOPERM) and keeps reads, replication and the data; it
   * survives restarts. A billing suspension uses it. NOT_FOUND for an unknown id.
   */
  setReadOnly(id: string, readOnly: boolean): Promise<void>;
  /** Stops every process of the database and removes its data; succeeds for an id that is already gone. */
  deprovision(id: string): Promise<void>;
  /** Figures read from the primary's INFO; zeroes while provisioning. NOT_FOUND for an unknown id. */
  usage(id: string): Promise<RedisUsage>;
  /**
   * On app start, with the ids the app knows: running databases are taken over, stopped ones are
   * started again with their port and password. Data of ids not given is left alone and logged.
   */
  adopt(ids: string[]): Promise<void>;
  /** Databases outlive the app process: this releases the app's own resources and stops no database. */
  shutdown(): Promise<void>;
}

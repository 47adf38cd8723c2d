import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

/** SPEC's `dataPersistence` values (the same list as the provider's). */
export const REDIS_DATA_PERSISTENCE = [
  'NONE',
  'AOF_EVERY_WRITE',
  'AOF_EVERY_1_SECOND',
  'SNAPSHOT_EVERY_1_HOUR',
  'SNAPSHOT_EVERY_6_HOURS',
  'SNAPSHOT_EVERY_12_HOURS',
] as const;

/**
 * PROVISIONING until every process of the database answers, then READY. FAILED when the provider
 * could not start it after its retries: billing stopped and the month credited back. Terminated
 * databases are not a status: their rows are hidden by `terminatedAt`.
 */
export const REDIS_STATUSES = ['PROVISIONING', 'READY', 'FAILED'] as const;
export type RedisStatusValue = (typeof REDIS_STATUSES)[number];

/**
 * The plan catalogue (seeded by the migration; operators edit prices and availability here).
 * `priceMonthly` is in whole currency units, as SPEC's plan entry has it.
 */
export const redisPlans = pgTable('redis_plans', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  provider: text('provider').notNull(),
  engine: text('engine').notNull(),
  planType: text('plan_type').notNull(),
  memoryMb: integer('memory_mb').notNull(),
  throughputOps: integer('throughput_ops'),
  cpuMilli: integer('cpu_milli').notNull(),
  supportsReplication: boolean('supports_replication').notNull(),
  supportsPersistence: boolean('supports_persistence').notNull(),
  priceMonthly: integer('price_monthly').notNull(),
  /** A plan no longer sold: kept for the databases that run on it, refused to new ones. */
  available: boolean('available').notNull().default(true),
  sortOrder: integer('sort_order').notNull(),
});

export const redisRegions = pgTable('redis_regions', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  country: text('country').notNull(),
  available: boolean('available').notNull().default(true),
  sortOrder: integer('sort_order').notNull(),
});

/** Which plans are sold in which region; a plan absent here for a region cannot be created there. */
export const redisPlanRegions = pgTable(
  'redis_plan_regions',
  {
    planSlug: text('plan_slug')
      .notNull()
      .references(() => redisPlans.slug, { onDelete: 'cascade' }),
    regionSlug: text('region_slug')
      .notNull()
      .references(() => redisRegions.slug, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.planSlug, t.regionSlug] })],
);

/**
 * A managed Redis database. The plan's memory and price are copied at creation, so a later catalogue
 * change does not alter a running database. The password is sealed, bound to the row's id. Rows
 * stay after deletion (`terminatedAt`) so charges and events keep pointing at something.
 */
export const redisDatabases = pgTable(
  'redis_databases',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    planSlug: text('plan_slug').notNull(),
    region: text('region').notNull(),
    memoryMb: integer('memory_mb').notNull(),
    replication: boolean('replication').notNull(),
    dataPersistence: text('data_persistence', { enum: REDIS_DATA_PERSISTENCE }).notNull(),
    status: text('status', { enum: REDIS_STATUSES }).notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    tls: boolean('tls').notNull(),
    sealedPassword: text('sealed_password').notNull(),
    billingItemId: text('billing_item_id').notNull(),
    /** How many times a failed start was retried; the database turns FAILED after the last. */
    startAttempts: integer('start_attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Set while a billing suspension keeps the database read-only; cleared once the invoice is paid. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    terminatedAt: timestamp('terminated_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('redis_databases_project_live_name_key')
      .on(t.projectId, t.name)
      .where(sql`${t.terminatedAt} is null`),
    index('redis_databases_project_created_idx').on(t.projectId, t.createdAt),
    index('redis_databases_provisioning_idx')
      .on(t.status)
      .where(sql`${t.terminatedAt} is null`),
  ],
);

/** One reading of a database's INFO, taken at most once a minute; the usage chart draws these. */
export const redisUsageSamples = pgTable(
  'redis_usage_samples',
  {
    redisId: text('redis_id')
      .notNull()
      .references(() => redisDatabases.id, { onDelete: 'cascade' }),
    sampledAt: timestamp('sampled_at', { withTimezone: true, mode: 'date' }).notNull(),
    memoryUsedBytes: bigint('memory_used_bytes', { mode: 'number' }).notNull(),
    memoryLimitBytes: bigint('memory_limit_bytes', { mode: 'number' }).notNull(),
    networkInBytes: bigint('network_in_bytes', { mode: 'number' }).notNull(),
    networkOutBytes: bigint('network_out_bytes', { mode: 'number' }).notNull(),
    operations: bigint('operations', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.redisId, t.sampledAt] })],
);

import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

export const DATABASE_TIERS = ['MICRO', 'STARTER', 'GROWTH', 'SCALE'] as const;
export const POOL_MODES = ['TRANSACTION', 'SESSION', 'STATEMENT'] as const;

export type DatabaseTier = (typeof DATABASE_TIERS)[number];

/**
 * A shared PostgreSQL tenant: a logical database on the shared cluster with its owner role, a
 * login for direct connections and one for the pooler. The database name is the cluster's, so one
 * tenant holds it across every project until its retained database is dropped (`purgedAt`).
 */
export const databaseTenants = pgTable(
  'database_tenants',
  {
    id: text('id').primaryKey(),
    /** Null once the project is gone: the row outlives it to drop the retained database on time. */
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    dbName: text('db_name').notNull(),
    dbUser: text('db_user').notNull(),
    poolUser: text('pool_user').notNull(),
    tier: text('tier', { enum: DATABASE_TIERS }).notNull(),
    poolMode: text('pool_mode', { enum: POOL_MODES }).notNull(),
    billingItemId: text('billing_item_id').notNull(),
    /** The last `pg_database_size` reading and when it was taken. */
    storageBytes: bigint('storage_bytes', { mode: 'number' }),
    storageMeasuredAt: timestamp('storage_measured_at', { withTimezone: true, mode: 'date' }),
    /** Set while the database is over its tier's storage limit and read-only. */
    readOnlySince: timestamp('read_only_since', { withTimezone: true, mode: 'date' }),
    /** Set while a billing suspension refuses the tenant's logins. */
    billingSuspendedAt: timestamp('billing_suspended_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Deprovisioned: logins refused and the pool removed; the database is kept for recovery. */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /** The retained database and its roles were dropped at the end of the retention. */
    purgedAt: timestamp('purged_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('database_tenants_cluster_name_key')
      .on(t.dbName)
      .where(sql`${t.purgedAt} is null`),
    index('database_tenants_project_idx').on(t.projectId, t.createdAt),
  ],
);

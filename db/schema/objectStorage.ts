import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/** SPEC's bucket tiers, cheapest first. */
export const BUCKET_TIERS = ['STARTER', 'GROWTH', 'SCALE', 'ENTERPRISE'] as const;
export type BucketTier = (typeof BUCKET_TIERS)[number];

/** SPEC's provider value (brand neutralised). */
export const OBJECT_STORAGE_PROVIDER_NAME = 'S3_PROVIDER';

/** active, or suspended when usage exceeds the tier's allowance by 10% (an upgrade reactivates). */
export const BUCKET_STATUSES = ['active', 'suspended'] as const;

/** A CORS rule as SPEC names its fields. */
export interface StoredCorsRule {
  allowedOrigins: string[];
  allowedMethods: Array<'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD'>;
  allowedHeaders?: string[];
  exposeHeaders?: string[];
  maxAgeSeconds?: number;
}

/**
 * A bucket bought in a project. Its name is the endpoint's global bucket name, so one live bucket
 * holds a name across every project. Deleted rows stay (`deletedAt`) for the charges that point at them.
 */
export const buckets = pgTable(
  'buckets',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    region: text('region').notNull(),
    tier: text('tier', { enum: BUCKET_TIERS }).notNull(),
    publicAccess: boolean('public_access').notNull(),
    versioning: boolean('versioning').notNull(),
    corsRules: jsonb('cors_rules').$type<StoredCorsRule[]>().notNull(),
    cdnEnabled: boolean('cdn_enabled').notNull(),
    /** Set once the CDN has been provisioned; null while disabled or provisioning. */
    cdnDomain: text('cdn_domain'),
    /** When the CDN was asked for; it is provisioned a little later. */
    cdnRequestedAt: timestamp('cdn_requested_at', { withTimezone: true, mode: 'date' }),
    status: text('status', { enum: BUCKET_STATUSES }).notNull(),
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    /** Set while a billing suspension (an invoice unpaid past its grace period) keeps the bucket closed. */
    billingSuspendedAt: timestamp('billing_suspended_at', { withTimezone: true, mode: 'date' }),
    billingItemId: text('billing_item_id').notNull(),
    /** The last usage reading (SPEC: up to 24 hours old). */
    storageBytes: bigint('storage_bytes', { mode: 'number' }).notNull().default(0),
    objects: bigint('objects', { mode: 'number' }).notNull().default(0),
    egressBytes: bigint('egress_bytes', { mode: 'number' }).notNull().default(0),
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    usageMeasuredAt: timestamp('usage_measured_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('buckets_live_name_key')
      .on(t.name)
      .where(sql`${t.deletedAt} is null`),
    index('buckets_project_idx').on(t.projectId, t.createdAt),
  ],
);

export const STORAGE_CREDENTIAL_ACCESS = ['read', 'write', 'full'] as const;

/**
 * An access key that reaches a project's buckets: scoped to some (`bucketIds`) or project-wide
 * (null). Legacy ones (the `iam-users` family) reach one bucket and cannot be re-scoped. The secret
 * is returned once and not kept here.
 */
export const storageCredentials = pgTable(
  'storage_credentials',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    accessKeyId: text('access_key_id').notNull(),
    bucketIds: jsonb('bucket_ids').$type<string[]>(),
    access: text('access', { enum: STORAGE_CREDENTIAL_ACCESS }).notNull(),
    legacy: boolean('legacy').notNull().default(false),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('storage_credentials_access_key_key').on(t.accessKeyId), uniqueIndex('storage_credentials_project_name_key').on(t.projectId, t.name)],
);

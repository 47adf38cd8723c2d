import { bigint, boolean, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The embedded object-storage endpoint's own records: s3rver keeps the objects, and the gateway in
 * front of it enforces what s3rver cannot (signatures, credential scopes, public access, suspension)
 * from these tables, and meters traffic into them.
 */
export const s3GatewayBuckets = pgTable('s3_gateway_buckets', {
  name: text('name').primaryKey(),
  region: text('region').notNull(),
  publicAccess: boolean('public_access').notNull(),
  versioning: boolean('versioning').notNull(),
  corsRules: jsonb('cors_rules').$type<unknown[]>().notNull(),
  suspended: boolean('suspended').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Access keys the gateway accepts. The secret is sealed (bound to the key id): SigV4 needs it in the clear to check a signature. */
export const s3GatewayCredentials = pgTable('s3_gateway_credentials', {
  accessKeyId: text('access_key_id').primaryKey(),
  label: text('label').notNull(),
  sealedSecret: text('sealed_secret').notNull(),
  /** The bucket names it reaches. */
  buckets: jsonb('buckets').$type<string[]>().notNull(),
  access: text('access', { enum: ['read', 'write', 'full'] }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Requests and bytes sent per bucket and hour, as the gateway counted them. */
export const s3GatewayTraffic = pgTable(
  's3_gateway_traffic',
  {
    bucket: text('bucket').notNull(),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    egressBytes: bigint('egress_bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.hour] })],
);

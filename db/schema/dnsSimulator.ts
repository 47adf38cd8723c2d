import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The DNS simulator's own zones and records: what the upstream DNS provider would hold. An account
 * is the SHA-256 of the API token that reaches it, so no token is stored.
 */
export const dnsSimZones = pgTable(
  'dns_sim_zones',
  {
    id: text('id').primaryKey(),
    account: text('account').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: ['active', 'pending'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('dns_sim_zones_account_name_key').on(t.account, t.name)],
);

export const dnsSimRecords = pgTable(
  'dns_sim_records',
  {
    id: text('id').primaryKey(),
    zoneId: text('zone_id')
      .notNull()
      .references(() => dnsSimZones.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    /** Fully qualified, lower-case, without a trailing dot. */
    name: text('name').notNull(),
    content: text('content').notNull(),
    ttl: integer('ttl').notNull(),
    proxied: boolean('proxied').notNull(),
    priority: integer('priority'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('dns_sim_records_zone_idx').on(t.zoneId), index('dns_sim_records_name_idx').on(t.name)],
);

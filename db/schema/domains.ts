import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/** SPEC shows EXTERNAL only; registering and moving a domain in are not done through the API. */
export const DOMAIN_TYPES = ['EXTERNAL'] as const;

/** PENDING until the verification TXT record is found (SPEC names PENDING; VERIFIED is ours). */
export const DOMAIN_STATUSES = ['PENDING', 'VERIFIED'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** What the last ownership check saw: the TXT values at the record's name, or why none were read. */
export interface DomainCheck {
  at: string;
  found: string[];
  /** `NXDOMAIN`, `NODATA`, `TIMEOUT`, `SERVFAIL`…: why nothing was found; null when records were read. */
  error: string | null;
}

/**
 * A domain a project uses. One project holds a name at a time: the unique index makes the claim,
 * and a removed domain's row is deleted, which frees the name.
 */
export const domains = pgTable(
  'domains',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** Lower-case ASCII (punycode for IDNs), without a trailing dot. */
    name: text('name').notNull(),
    type: text('type', { enum: DOMAIN_TYPES }).notNull(),
    status: text('status', { enum: DOMAIN_STATUSES }).notNull(),
    /** The value of the TXT record that proves ownership; random per domain. */
    verificationToken: text('verification_token').notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true, mode: 'date' }),
    lastCheck: jsonb('last_check').$type<DomainCheck>(),
    /** How many background checks found nothing, which spaces the next one out. */
    checkAttempts: integer('check_attempts').notNull().default(0),
    /** When the background job looks again; null once verified or given up. */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true, mode: 'date' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('domains_name_key').on(t.name),
    index('domains_project_created_idx').on(t.projectId, t.createdAt),
    index('domains_next_check_idx')
      .on(t.nextCheckAt)
      .where(sql`${t.nextCheckAt} is not null`),
  ],
);

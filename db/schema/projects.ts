import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    billingEmail: text('billing_email'),
    /** The user whose name-space the project's name is unique in (case-insensitive). */
    createdByUserId: text('created_by_user_id')
      .notNull()
      .references(() => users.id),
    /** The member whose saved card pays for the project; the creator until billing is transferred. */
    billerUserId: text('biller_user_id')
      .notNull()
      .references(() => users.id),
    blockedAt: timestamp('blocked_at', { withTimezone: true, mode: 'date' }),
    blockedReason: text('blocked_reason'),
    /** Set when an invoice stayed unpaid past the grace period: paid resources are stopped until it is paid. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('projects_slug_key').on(t.slug), uniqueIndex('projects_creator_name_key').on(t.createdByUserId, sql`lower(${t.name})`)],
);

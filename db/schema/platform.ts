import { bigint, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './projects';

/** Domain events written in the same transaction as the change they describe. */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('events_project_created_idx').on(t.projectId, t.createdAt)],
);

/**
 * Rate-limit state shared by every app instance: per key, the theoretical arrival time of the
 * generic cell rate algorithm (server/platform/rateLimit), in microseconds since the epoch. A row
 * whose time has passed says no more than a missing one, so the purge job drops those. The table
 * is UNLOGGED (see its migration): losing it in a database crash only restores everyone's budget.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  tatUs: bigint('tat_us', { mode: 'number' }).notNull(),
});

/** Messages sent through the embedded mailer, readable at /dev/mailbox. */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: text('id').primaryKey(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('mail_messages_to_idx').on(t.to, t.createdAt)],
);

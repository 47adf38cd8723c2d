import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { users } from './accounts';
import { projects } from './projects';

/**
 * Domain events written in the same transaction as the change they describe, then handed once to
 * every domain's event handlers (webhook deliveries, notifications) by the dispatcher
 * (server/platform/events/dispatch.ts), which marks them dispatched.
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    /** Insertion order: events of one transaction share their creation time. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true, mode: 'date' }),
    /** Dispatches that failed (a handler threw); after a few the event is set aside, logged, as dispatched. */
    dispatchAttempts: integer('dispatch_attempts').notNull().default(0),
  },
  (t) => [
    index('events_project_created_idx').on(t.projectId, t.createdAt),
    index('events_undispatched_idx')
      .on(t.seq)
      .where(sql`${t.dispatchedAt} is null`),
  ],
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

export const IDEMPOTENCY_STATES = ['running', 'completed'] as const;

/**
 * Writes sent with an Idempotency-Key: one row per caller and key, claimed while the first request
 * runs and then holding its outcome, which retries get again until the row expires.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The API key's id, or `session` for the panel's session: another credential of the same user has keys of its own. */
    credential: text('credential').notNull(),
    /** A keyed hash of the Idempotency-Key: without the key a client holds, no one can read the stored answer. */
    keyHash: text('key_hash').notNull(),
    /** The procedure and a keyed hash of its input (passwords, card numbers): the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: IDEMPOTENCY_STATES }).notNull(),
    /** The request holding the row: only it records the outcome, even after another took over a stale claim. */
    claimId: text('claim_id').notNull(),
    lockedAt: timestamp('locked_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * The outcome, sealed with a key derived from the Idempotency-Key (answers hold secrets shown once,
     * such as a new API key): JSON text inside, so a replay answers byte for byte the same body.
     */
    response: text('response'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.credential, t.keyHash] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
);

/**
 * The `state` of an OAuth (or app-install) round trip: signed, short-lived and single-use. The row
 * is keyed by the SHA-256 of the state's random part, so a leaked database holds no usable state.
 */
export const oauthStates = pgTable('oauth_states', {
  id: text('id').primaryKey(),
  /** What the round trip connects, e.g. `dns-provider`. */
  purpose: text('purpose').notNull(),
  projectId: text('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** The relative panel path to return to. */
  returnTo: text('return_to').notNull(),
  /** What the round trip carries beyond the project and user (an installation to prove access to). */
  payload: jsonb('payload').$type<Record<string, string>>(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

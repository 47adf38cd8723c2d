import { bigserial, boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { projects } from './projects';

/** `active` sends; `paused` (by hand or after repeated failures) and `disabled` (the URL answered 410 Gone) hold deliveries until resumed. */
export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** Why an endpoint stopped: by hand, after consecutive failed deliveries, or a 410 Gone. */
export const WEBHOOK_PAUSE_REASONS = ['manual', 'failures', 'gone'] as const;
export type WebhookPauseReason = (typeof WEBHOOK_PAUSE_REASONS)[number];

/**
 * `pending` waits for its next attempt, `held` waits for its paused endpoint to be resumed,
 * `succeeded` got a 2xx, `failed` used up every attempt.
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'held', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A URL of the customer's that receives the project's events, signed with its own secret. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** Subscribed event types, or `['*']` for every type. */
    events: jsonb('events').$type<string[]>().notNull(),
    status: text('status', { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default('active'),
    pausedReason: text('paused_reason', { enum: WEBHOOK_PAUSE_REASONS }),
    pausedAt: timestamp('paused_at', { withTimezone: true, mode: 'date' }),
    /** `seal(whsec_…, id)`: the signing secret. */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation, which keeps signing beside the new one until `previousSecretExpiresAt`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    /** Deliveries that failed for good since the last successful attempt; at the limit the endpoint pauses itself. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_project_idx').on(t.projectId, t.createdAt)],
);

/**
 * One event for one endpoint: the job the delivery worker claims when `next_attempt_at` has come.
 * Its id is the `webhook-id` header, the same on every attempt; the body is kept as sent, so every
 * attempt signs the same bytes.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    /** Creation order, which is the order of the events (the dispatcher hands them over in order). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    projectId: text('project_id').notNull(),
    /** The recorded event; null for a test event, which only this endpoint receives. */
    eventId: text('event_id'),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** When it is due; while an attempt runs, the end of that attempt's lease (a worker that died leaves it to be retried then). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** One try of a delivery: what came back (status and the start of the body) or why nothing did. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true, mode: 'date' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    ok: boolean('ok').notNull(),
    responseStatus: integer('response_status'),
    /** At most 1 KB of the response body. */
    responseBody: text('response_body'),
    error: text('error'),
  },
  (t) => [index('webhook_delivery_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
);

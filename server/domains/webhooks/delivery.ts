import { and, asc, eq, inArray, lte, or, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../../../db';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, type WebhookPauseReason } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { open } from '../../platform/encryption/envelope';
import { emit } from '../../platform/events';
import type { DispatchedEvent, EventHandler } from '../../platform/events/dispatch';
import type { BackgroundLoop } from '../../platform/jobs';
import { getLogger } from '../../platform/logger';
import { OutboundFailure, outboundRequest, type OutboundResponse } from '../../platform/outbound';
import { ALL_EVENTS } from './schema';
import { signatureHeader } from './signing';

/**
 * Delivery is a queue in PostgreSQL: each delivery row is a job, due at `next_attempt_at`. A loop
 * in every worker claims due rows with `for update skip locked` and leases them (moves
 * `next_attempt_at` past the attempt's timeout) in one statement, so workers never take the same
 * row and no transaction stays open during the HTTP call; a worker that dies mid-attempt leaves its
 * rows to come due again when the lease ends. We chose this over a pg-boss job per attempt because
 * the rows must exist anyway (the deliveries view, holding while paused, re-queueing in order on
 * resume), and the event handler can create them in the dispatch transaction, where only database
 * writes are allowed. A delivery is sent at least once; `webhook-id` lets receivers drop repeats.
 */

/** Waits after a failed attempt: the 2nd attempt 5 s after the 1st, …; after the 8th attempt fails the delivery has failed for good. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Each wait is drawn within ±10% of its nominal value, so endpoints that failed together are not retried in lockstep. */
export const RETRY_JITTER = 0.1;
/** Deliveries that failed for good in a row (no successful attempt in between) after which the endpoint pauses itself. */
export const AUTO_PAUSE_AFTER_FAILED_DELIVERIES = 5;
export const DELIVERY_TIMEOUT_MS = 15_000;
export const RESPONSE_BODY_LIMIT_BYTES = 1024;
/** How long a claimed delivery is left alone: longer than any attempt can take. */
const LEASE_MS = 60_000;
const BATCH = 20;
const POLL_INTERVAL_MS = 1_000;

export interface DeliveryOptions {
  /** The clock of the schedule; tests walk it by hand. */
  now?: () => Date;
  /** In [0, 1); 0.5 means no jitter. */
  random?: () => number;
  timeoutMs?: number;
  /** Checked between deliveries of a pass: once true, what is claimed and not yet sent is released. */
  stopping?: () => boolean;
}

/** The signed body of a delivery: Standard Webhooks' `{ type, timestamp, data }`, data carrying the project. */
export function deliveryBody(type: string, occurredAt: Date, projectId: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: occurredAt.toISOString(), data: { ...payload, projectId } });
}

/** Creates, inside the dispatch transaction, one delivery per endpoint of the event's project subscribed to its type. */
export const webhookEventHandler: EventHandler = {
  name: 'webhooks',
  async handle(tx: Tx, event: DispatchedEvent) {
    if (!event.projectId) return;
    const endpoints = await tx
      .select({ id: webhookEndpoints.id, status: webhookEndpoints.status })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.projectId, event.projectId),
          or(
            sql`${webhookEndpoints.events} @> ${JSON.stringify([ALL_EVENTS])}::jsonb`,
            sql`${webhookEndpoints.events} @> ${JSON.stringify([event.type])}::jsonb`,
          ),
        ),
      )
      .orderBy(asc(webhookEndpoints.createdAt));
    if (endpoints.length === 0) return;
    const body = deliveryBody(event.type, event.createdAt, event.projectId, event.payload);
    await tx.insert(webhookDeliveries).values(
      endpoints.map((endpoint) => ({
        id: newId('msg'),
        endpointId: endpoint.id,
        projectId: event.projectId!,
        eventId: event.id,
        eventType: event.type,
        body,
        status: endpoint.status === 'active' ? ('pending' as const) : ('held' as const),
        nextAttemptAt: endpoint.status === 'active' ? event.createdAt : null,
      })),
    );
  },
};

type ClaimedDelivery = typeof webhookDeliveries.$inferSelect;

/**
 * One pass: claims the deliveries that are due and sends them, those of one endpoint one after the
 * other in the order of their events, different endpoints side by side. Returns how many it claimed.
 */
export async function deliverDueWebhooks(options: DeliveryOptions = {}): Promise<number> {
  const now = options.now ?? (() => new Date());
  const claimed = await claimDue(now());
  const byEndpoint = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) byEndpoint.set(delivery.endpointId, [...(byEndpoint.get(delivery.endpointId) ?? []), delivery]);
  await Promise.all(
    [...byEndpoint.values()].map(async (deliveries) => {
      for (const [index, delivery] of deliveries.entries()) {
        if (options.stopping?.()) {
          await release(
            deliveries.slice(index).map((d) => d.id),
            now(),
          );
          return;
        }
        await attempt(delivery, options);
      }
    }),
  );
  return claimed.length;
}

/** Passes until nothing is due: what tests call instead of waiting for the loop. */
export async function deliverAllDueWebhooks(options: DeliveryOptions = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await deliverDueWebhooks(options);
    total += claimed;
    if (claimed < BATCH || options.stopping?.()) return total;
  }
}

/** The worker's loop; stopping it lets the attempts under way finish and be recorded, and releases the rest. */
export function startWebhookDeliveryLoop(options: DeliveryOptions = {}): () => Promise<void> {
  const log = getLogger().child({ component: 'webhooks' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = deliverAllDueWebhooks({ ...options, stopping: () => stopped })
      .catch((err: unknown) => log.error({ err }, 'webhook delivery pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, POLL_INTERVAL_MS);
      });
  };
  timer = setTimeout(tick, 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

export const webhookDeliveryLoop: BackgroundLoop = { name: 'webhook-deliveries', start: () => startWebhookDeliveryLoop() };

async function claimDue(now: Date): Promise<ClaimedDelivery[]> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.seq))
      .limit(BATCH)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    const leased = await tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + LEASE_MS) })
      .where(
        inArray(
          webhookDeliveries.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
    return leased.sort((a, b) => a.seq - b.seq);
  });
}

async function release(ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  const db = await getDb();
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now })
    .where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, 'pending')));
}

type Outcome = { response: OutboundResponse; error?: undefined; durationMs?: undefined } | { response?: undefined; error: string; durationMs: number };

async function attempt(delivery: ClaimedDelivery, options: DeliveryOptions): Promise<void> {
  const now = options.now ?? (() => new Date());
  const db = await getDb();
  const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId));
  if (!endpoint) return;
  if (endpoint.status !== 'active') {
    await db
      .update(webhookDeliveries)
      .set({ status: 'held', nextAttemptAt: null })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending')));
    return;
  }
  const startedAt = now();
  const secrets = [open(endpoint.secretSealed, endpoint.id)];
  if (endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > startedAt) {
    secrets.push(open(endpoint.previousSecretSealed, endpoint.id));
  }
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  let outcome: Outcome;
  try {
    const response = await outboundRequest({
      method: 'POST',
      url: endpoint.url,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'CloudPanel-Webhooks/1.0',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.id, timestamp, delivery.body),
      },
      body: delivery.body,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_BODY_LIMIT_BYTES,
    });
    outcome = { response };
  } catch (err) {
    outcome = {
      error: err instanceof OutboundFailure ? err.message : 'The request could not be sent',
      durationMs: err instanceof OutboundFailure ? err.durationMs : 0,
    };
  }
  await recordAttempt(delivery, startedAt, outcome, options);
}

async function recordAttempt(delivery: ClaimedDelivery, attemptedAt: Date, outcome: Outcome, options: DeliveryOptions): Promise<void> {
  const random = options.random ?? Math.random;
  const status = outcome.response?.status ?? null;
  const ok = status !== null && status >= 200 && status < 300;
  const attemptCount = delivery.attemptCount + 1;
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [endpoint] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId)).for('update');
    // Deleted while the attempt ran: its deliveries went with it, and there is nothing to record.
    if (!endpoint) return;
    await tx.insert(webhookDeliveryAttempts).values({
      id: newId('wha'),
      deliveryId: delivery.id,
      attemptedAt,
      durationMs: outcome.response?.durationMs ?? outcome.durationMs ?? 0,
      ok,
      responseStatus: status,
      responseBody: outcome.response?.body ?? null,
      error: outcome.error ?? null,
    });
    if (ok) {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'succeeded', attemptCount, nextAttemptAt: null, completedAt: attemptedAt })
        .where(eq(webhookDeliveries.id, delivery.id));
      if (endpoint.consecutiveFailures > 0) await tx.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, endpoint.id));
      return;
    }
    if (status === 410) {
      await tx.update(webhookDeliveries).set({ status: 'held', attemptCount, nextAttemptAt: null }).where(eq(webhookDeliveries.id, delivery.id));
      if (endpoint.status === 'active') await stopEndpoint(tx, endpoint, 'gone', endpoint.consecutiveFailures, attemptedAt);
      return;
    }
    if (attemptCount < MAX_ATTEMPTS) {
      const nominal = RETRY_DELAYS_MS[attemptCount - 1]!;
      const wait = Math.round(nominal * (1 + RETRY_JITTER * (2 * random() - 1)));
      await tx
        .update(webhookDeliveries)
        .set({ attemptCount, nextAttemptAt: new Date(attemptedAt.getTime() + wait) })
        .where(eq(webhookDeliveries.id, delivery.id));
      return;
    }
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', attemptCount, nextAttemptAt: null, completedAt: attemptedAt })
      .where(eq(webhookDeliveries.id, delivery.id));
    const failures = endpoint.consecutiveFailures + 1;
    await tx.update(webhookEndpoints).set({ consecutiveFailures: failures }).where(eq(webhookEndpoints.id, endpoint.id));
    if (failures >= AUTO_PAUSE_AFTER_FAILED_DELIVERIES && endpoint.status === 'active') await stopEndpoint(tx, endpoint, 'failures', failures, attemptedAt);
  });
}

/** Pauses (or, on 410 Gone, disables) an endpoint on its own: its pending deliveries are held and the project is told. */
async function stopEndpoint(
  tx: Tx,
  endpoint: typeof webhookEndpoints.$inferSelect,
  reason: Exclude<WebhookPauseReason, 'manual'>,
  consecutiveFailures: number,
  at: Date,
): Promise<void> {
  await tx
    .update(webhookEndpoints)
    .set({ status: reason === 'gone' ? 'disabled' : 'paused', pausedReason: reason, pausedAt: at, updatedAt: at })
    .where(eq(webhookEndpoints.id, endpoint.id));
  await holdPending(tx, endpoint.id);
  await emit(tx, endpoint.projectId, 'webhook.endpoint_paused', { endpointId: endpoint.id, url: endpoint.url, reason, consecutiveFailures });
}

/** Deliveries waiting for an attempt wait for the endpoint to be resumed instead. */
export async function holdPending(tx: Tx, endpointId: string): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({ status: 'held', nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
}

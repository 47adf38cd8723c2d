import { and, asc, count, desc, eq, inArray, lt, type SQL } from 'drizzle-orm';
import { getDb } from '../../../db';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { seal } from '../../platform/encryption/envelope';
import { AppError, invalidField } from '../../platform/errors';
import { lockProjectResource } from '../../platform/projectLocks';
import { emit, eventCatalogue, eventDeclaration } from '../../platform/events';
import { checkOutboundUrl } from '../../platform/outbound';
import { deliveryBody, holdPending } from './delivery';
import {
  ALL_EVENTS,
  WEBHOOK_ENDPOINTS_PER_PROJECT,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookDelivery,
  type WebhookDeliveryFilters,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookEventType,
} from './schema';
import { newSigningSecret } from './signing';

/** How long the secret before a rotation keeps signing beside the new one, so receivers can switch without losing deliveries. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The catalogue of event types endpoints can subscribe to. */
export function listEventTypes(): WebhookEventType[] {
  return eventCatalogue().map(({ type, description, example }) => ({ type, description, example }));
}

export async function listEndpoints(projectId: string): Promise<WebhookEndpoint[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  return rows.map(toView);
}

export async function getEndpoint(projectId: string, endpointId: string): Promise<WebhookEndpoint> {
  return toView(await findEndpoint(projectId, endpointId));
}

/** Checks the URL (https, public addresses) and the event types, then stores the endpoint with a new secret, sealed, returned this once. */
export async function createEndpoint(projectId: string, input: CreateWebhookEndpointInput): Promise<WebhookEndpointWithSecret> {
  await checkOutboundUrl(input.url);
  const events = checkedEvents(input.events);
  const secret = newSigningSecret();
  const db = await getDb();
  return db.transaction(async (tx) => {
    await lockProjectResource(tx, projectId, 'webhooks');
    const [held] = await tx.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.projectId, projectId));
    if ((held?.n ?? 0) >= WEBHOOK_ENDPOINTS_PER_PROJECT) {
      throw new AppError('WEBHOOK_ENDPOINT_LIMIT_REACHED', `A project can hold ${WEBHOOK_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one to add another`);
    }
    const id = newId('whe');
    const now = new Date();
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ id, projectId, url: input.url, description: input.description ?? '', events, secretSealed: seal(secret, id), createdAt: now, updatedAt: now })
      .returning();
    return { ...toView(row!), secret };
  });
}

export async function updateEndpoint(projectId: string, endpointId: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpoint> {
  await findEndpoint(projectId, endpointId);
  if (input.url !== undefined) await checkOutboundUrl(input.url);
  const events = input.events === undefined ? undefined : checkedEvents(input.events);
  const db = await getDb();
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(events === undefined ? {} : { events }),
      ...(input.description === undefined ? {} : { description: input.description }),
      updatedAt: new Date(),
    })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId)))
    .returning();
  if (!row) throw notFoundEndpoint();
  return toView(row);
}

/** Deletes the endpoint with its deliveries; nothing more is sent to it. */
export async function deleteEndpoint(projectId: string, endpointId: string): Promise<void> {
  const db = await getDb();
  const deleted = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw notFoundEndpoint();
}

/**
 * A new secret, returned once. The one it replaces keeps signing beside it for 24 hours (both
 * signatures in `webhook-signature`); rotating again within them drops the oldest.
 */
export async function rotateSecret(projectId: string, endpointId: string): Promise<WebhookEndpointWithSecret> {
  const current = await findEndpoint(projectId, endpointId);
  const secret = newSigningSecret();
  const now = new Date();
  const db = await getDb();
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      secretSealed: seal(secret, endpointId),
      previousSecretSealed: current.secretSealed,
      previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning();
  return { ...toView(row!), secret };
}

/** Stops sending: deliveries waiting or arriving are held until the endpoint is resumed. Pausing a stopped endpoint changes nothing. */
export async function pauseEndpoint(projectId: string, endpointId: string): Promise<WebhookEndpoint> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId)))
      .for('update');
    if (!row) throw notFoundEndpoint();
    if (row.status !== 'active') return toView(row);
    const now = new Date();
    const [paused] = await tx
      .update(webhookEndpoints)
      .set({ status: 'paused', pausedReason: 'manual', pausedAt: now, updatedAt: now })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    await holdPending(tx, endpointId);
    return toView(paused!);
  });
}

/** Sends again: the deliveries held meanwhile are due at once, in the order of their events, and the failure count starts over. */
export async function resumeEndpoint(projectId: string, endpointId: string, actorUserId: string): Promise<WebhookEndpoint> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId)))
      .for('update');
    if (!row) throw notFoundEndpoint();
    if (row.status === 'active') return toView(row);
    const now = new Date();
    const [resumed] = await tx
      .update(webhookEndpoints)
      .set({ status: 'active', pausedReason: null, pausedAt: null, consecutiveFailures: 0, updatedAt: now })
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    const requeued = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'held')))
      .returning({ id: webhookDeliveries.id });
    await emit(tx, projectId, 'webhook.endpoint_resumed', { endpointId, url: row.url, requeued: requeued.length, by: actorUserId });
    return toView(resumed!);
  });
}

/** Queues a `webhook.test` event for this endpoint alone. */
export async function sendTestEvent(projectId: string, endpointId: string): Promise<WebhookDelivery> {
  const endpoint = await findEndpoint(projectId, endpointId);
  if (endpoint.status !== 'active') throw new AppError('CONFLICT', `The endpoint is ${endpoint.status}; resume it to send a test event`);
  const now = new Date();
  const db = await getDb();
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      id: newId('msg'),
      endpointId,
      projectId,
      eventId: null,
      eventType: 'webhook.test',
      body: deliveryBody('webhook.test', now, projectId, { endpointId, message: 'A test event from the control panel' }),
      status: 'pending',
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning();
  return toDeliveryView(row!, []);
}

/** The endpoint's deliveries, newest first, each with its attempts. */
export async function listDeliveries(projectId: string, endpointId: string, filters: WebhookDeliveryFilters): Promise<WebhookDeliveryPage> {
  await findEndpoint(projectId, endpointId);
  const conditions: SQL[] = [eq(webhookDeliveries.endpointId, endpointId)];
  if (filters.status) conditions.push(eq(webhookDeliveries.status, filters.status));
  if (filters.cursor) conditions.push(lt(webhookDeliveries.seq, decodeCursor(filters.cursor)));
  const db = await getDb();
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.seq))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const attempts = await attemptsOf(page.map((row) => row.id));
  const last = page.at(-1);
  return {
    deliveries: page.map((row) => toDeliveryView(row, attempts.get(row.id) ?? [])),
    nextCursor: rows.length > filters.limit && last ? Buffer.from(String(last.seq)).toString('base64url') : null,
  };
}

/**
 * Sends a delivery again with the same `webhook-id`, at once and with the retry schedule afresh.
 * One still pending is simply made due now; one held by a paused endpoint is a 409 (resume it).
 */
export async function redeliver(projectId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const endpoint = await findEndpoint(projectId, endpointId);
  const db = await getDb();
  const [current] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)));
  if (!current) throw new AppError('NOT_FOUND', 'Delivery not found');
  if (endpoint.status !== 'active' || current.status === 'held') {
    throw new AppError('CONFLICT', `The endpoint is ${endpoint.status}; resume it to send its deliveries`);
  }
  const now = new Date();
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', attemptCount: current.status === 'pending' ? current.attemptCount : 0, nextAttemptAt: now, completedAt: null })
    .where(eq(webhookDeliveries.id, deliveryId))
    .returning();
  const attempts = await attemptsOf([deliveryId]);
  return toDeliveryView(row!, attempts.get(deliveryId) ?? []);
}

async function findEndpoint(projectId: string, endpointId: string): Promise<EndpointRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId)));
  if (!row) throw notFoundEndpoint();
  return row;
}

const notFoundEndpoint = () => new AppError('NOT_FOUND', 'Webhook endpoint not found');

/** Every type must be in the catalogue; `*` subscribes to all and stands alone. Duplicates are dropped. */
function checkedEvents(events: readonly string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.includes(ALL_EVENTS)) {
    if (unique.length > 1) throw invalidField('events', '"*" already subscribes to every event type; send it alone');
    return [ALL_EVENTS];
  }
  const unknown = unique.filter((type) => !eventDeclaration(type));
  if (unknown.length > 0) {
    throw invalidField('events', `Unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; see GET /v1/webhooks/event-types`);
  }
  return unique.sort();
}

async function attemptsOf(deliveryIds: string[]): Promise<Map<string, (typeof webhookDeliveryAttempts.$inferSelect)[]>> {
  const byDelivery = new Map<string, (typeof webhookDeliveryAttempts.$inferSelect)[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const db = await getDb();
  const rows = await db
    .select()
    .from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookDeliveryAttempts.attemptedAt), asc(webhookDeliveryAttempts.id));
  for (const row of rows) byDelivery.set(row.deliveryId, [...(byDelivery.get(row.deliveryId) ?? []), row]);
  return byDelivery;
}

function decodeCursor(cursor: string): number {
  const seq = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(seq) || seq <= 0) throw invalidField('cursor', 'Not a cursor of this list; pass nextCursor as it was given');
  return seq;
}

function toView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    projectId: row.projectId,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status,
    pausedReason: row.pausedReason,
    pausedAt: row.pausedAt?.toISOString() ?? null,
    consecutiveFailures: row.consecutiveFailures,
    previousSecretExpiresAt: row.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toDeliveryView(row: DeliveryRow, attempts: (typeof webhookDeliveryAttempts.$inferSelect)[]): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    payload: JSON.parse(row.body) as Record<string, unknown>,
    attempts: attempts.map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      durationMs: a.durationMs,
      ok: a.ok,
      responseStatus: a.responseStatus,
      responseBody: a.responseBody,
      error: a.error,
    })),
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

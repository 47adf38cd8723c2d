import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { webhookDeliveries, webhookEndpoints } from '../../../db/schema';
import { queryRows } from '../../../test/db';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/fakes/webhookReceiver';
import { api, createProject, createUser, type TestUser } from '../../../test/helpers';
import { resetConfigForTests } from '../../platform/config';
import { emit } from '../../platform/events';
import { dispatchAllPendingEvents } from '../../platform/events/dispatch';
import {
  AUTO_PAUSE_AFTER_FAILED_DELIVERIES,
  deliverAllDueWebhooks,
  MAX_ATTEMPTS,
  RESPONSE_BODY_LIMIT_BYTES,
  RETRY_DELAYS_MS,
  startWebhookDeliveryLoop,
} from './delivery';
import * as webhooks from './service';

let owner: TestUser;
let projectId: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS = 'true';
  resetConfigForTests();
  owner = await createUser();
  ({ projectId } = await createProject(owner));
});

afterAll(() => {
  delete process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
});

afterEach(async () => {
  await receiver?.close();
  const db = await getDb();
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.projectId, projectId));
});

async function endpoint(events: string[] = ['project.renamed']) {
  receiver = await startWebhookReceiver();
  return webhooks.createEndpoint(projectId, { url: receiver.url, events });
}

/** Records events as a domain would and hands them to the handlers, as the worker's dispatcher does. */
async function record(n: number, type = 'project.renamed'): Promise<string[]> {
  const db = await getDb();
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) ids.push(await emit(db, projectId, type, { projectId, from: `Name ${i}`, to: `Name ${i + 1}`, by: owner.id }));
  await dispatchAllPendingEvents();
  return ids;
}

async function deliveriesOf(endpointId: string) {
  return (await webhooks.listDeliveries(projectId, endpointId, { limit: 100 })).deliveries;
}

const headersOf = (r: WebhookReceiver['received'][number]) => ({
  'webhook-id': r.id,
  'webhook-timestamp': r.timestamp,
  'webhook-signature': r.signature,
});

describe('webhook deliveries', () => {
  it('follows Standard Webhooks: the standardwebhooks package verifies them, before and after a rotation', async () => {
    const created = await endpoint(['project.renamed']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [eventId] = await record(1);
    await deliverAllDueWebhooks();
    expect(receiver.received).toHaveLength(1);
    const first = receiver.received[0]!;
    const body = new Webhook(created.secret).verify(first.body, headersOf(first)) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'project.renamed', data: { projectId, from: 'Name 0', to: 'Name 1', by: owner.id } });
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    expect(first.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(first.timestamp) - Date.now() / 1000)).toBeLessThan(5);
    const [delivery] = await deliveriesOf(created.id);
    expect(delivery).toMatchObject({ id: first.id, eventId, status: 'succeeded', attemptCount: 1 });

    const rotated = await webhooks.rotateSecret(projectId, created.id);
    expect(rotated.secret).not.toBe(created.secret);
    await record(1);
    await deliverAllDueWebhooks();
    const second = receiver.received[1]!;
    expect(second.signature.split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.secret).verify(second.body, headersOf(second))).toMatchObject({ type: 'project.renamed' });
    expect(new Webhook(created.secret).verify(second.body, headersOf(second))).toMatchObject({ type: 'project.renamed' });
    expect(() => new Webhook(rotated.secret).verify(first.body, headersOf(first))).toThrow();

    // 24 hours after the rotation the old secret no longer signs.
    const db = await getDb();
    await db
      .update(webhookEndpoints)
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(webhookEndpoints.id, created.id));
    await record(1);
    await deliverAllDueWebhooks();
    const third = receiver.received[2]!;
    expect(third.signature.split(' ')).toHaveLength(1);
    expect(() => new Webhook(created.secret).verify(third.body, headersOf(third))).toThrow();
  });

  it('delivers only the subscribed types, and nothing for another project', async () => {
    const created = await endpoint(['ssh_key.created']);
    await record(1, 'project.renamed');
    const other = await createProject(owner);
    const db = await getDb();
    await emit(db, other.projectId, 'ssh_key.created', { sshKeyId: 'ssh_x', name: 'k', fingerprint: 'SHA256:x', by: owner.id });
    await emit(db, projectId, 'ssh_key.created', { sshKeyId: 'ssh_y', name: 'k', fingerprint: 'SHA256:y', by: owner.id });
    await dispatchAllPendingEvents();
    await deliverAllDueWebhooks();
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { type: string; data: { sshKeyId: string } }).data.sshKeyId)).toEqual(['ssh_y']);
    expect(await deliveriesOf(created.id)).toHaveLength(1);
  });

  it('retries on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) with the same webhook-id, then fails for good', async () => {
    const created = await endpoint();
    receiver.fail({ status: 500, times: 100 });
    await record(1);
    let now = new Date(Date.now() + 1000);
    const options = { now: () => now, random: () => 0.5 };
    await deliverAllDueWebhooks(options);
    for (const delay of RETRY_DELAYS_MS) {
      const [pending] = await deliveriesOf(created.id);
      expect(pending!.status).toBe('pending');
      expect(new Date(pending!.nextAttemptAt!).getTime() - now.getTime()).toBe(delay);
      now = new Date(now.getTime() + delay - 1);
      expect(await deliverAllDueWebhooks(options)).toBe(0);
      now = new Date(now.getTime() + 1);
      expect(await deliverAllDueWebhooks(options)).toBe(1);
    }
    const [failed] = await deliveriesOf(created.id);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: MAX_ATTEMPTS, nextAttemptAt: null });
    expect(failed!.attempts).toHaveLength(8);
    expect(failed!.attempts.every((a) => a.responseStatus === 500 && !a.ok)).toBe(true);
    expect(receiver.fake.requests.map((r) => r.headers['webhook-id'])).toEqual(Array(8).fill(failed!.id));
    now = new Date(now.getTime() + 48 * 3_600_000);
    expect(await deliverAllDueWebhooks(options)).toBe(0);
  });

  it('draws each wait within ±10% of the schedule', async () => {
    const created = await endpoint();
    receiver.fail({ status: 503, times: 4 });
    await record(2);
    const now = new Date(Date.now() + 1000);
    const rows = () =>
      queryRows<{ wait: number }>(
        sql`select extract(epoch from next_attempt_at - ${now.toISOString()}::timestamptz) * 1000 as wait from webhook_deliveries where endpoint_id = ${created.id} order by seq`,
      );
    await deliverAllDueWebhooks({ now: () => now, random: () => 0 });
    expect((await rows()).map((r) => Math.round(Number(r.wait)))).toEqual([4500, 4500]);
    const db = await getDb();
    await db.update(webhookDeliveries).set({ attemptCount: 0, nextAttemptAt: now }).where(eq(webhookDeliveries.endpointId, created.id));
    await deliverAllDueWebhooks({ now: () => now, random: () => 0.999999 });
    expect((await rows()).map((r) => Math.round(Number(r.wait)))).toEqual([5500, 5500]);
  });

  it('counts a redirect, a timeout and a refused connection as failures, and keeps 1 KB of the answer', async () => {
    const created = await endpoint();
    receiver.fail({ status: 302, headers: { location: 'https://example.com/' }, body: 'x'.repeat(5000) });
    receiver.fail({ delayMs: 1500 });
    await record(2);
    await deliverAllDueWebhooks({ timeoutMs: 300 });
    const [timedOut, redirected] = await deliveriesOf(created.id);
    expect(redirected!.attempts[0]).toMatchObject({ ok: false, responseStatus: 302, error: null });
    expect(Buffer.byteLength(redirected!.attempts[0]!.responseBody!)).toBe(RESPONSE_BODY_LIMIT_BYTES);
    expect(timedOut!.attempts[0]).toMatchObject({ ok: false, responseStatus: null, error: 'No answer within 0.3 s' });
    expect(timedOut!.status).toBe('pending');

    await receiver.close();
    const db = await getDb();
    await db.update(webhookDeliveries).set({ nextAttemptAt: new Date() }).where(eq(webhookDeliveries.endpointId, created.id));
    await deliverAllDueWebhooks();
    const [refused] = await deliveriesOf(created.id);
    expect(refused!.attempts[1]).toMatchObject({ ok: false, responseStatus: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it(`pauses the endpoint after ${AUTO_PAUSE_AFTER_FAILED_DELIVERIES} deliveries fail for good, holds what arrives, and resuming re-queues in event order`, async () => {
    const created = await endpoint();
    receiver.fail({ status: 500, times: 1000 });
    await record(AUTO_PAUSE_AFTER_FAILED_DELIVERIES - 1);
    let now = new Date(Date.now() + 1000);
    const options = { now: () => now, random: () => 0.5 };
    const walk = async () => {
      await deliverAllDueWebhooks(options);
      for (const delay of RETRY_DELAYS_MS) {
        now = new Date(now.getTime() + delay);
        await deliverAllDueWebhooks(options);
      }
    };
    await walk();
    expect(await webhooks.getEndpoint(projectId, created.id)).toMatchObject({ status: 'active', consecutiveFailures: AUTO_PAUSE_AFTER_FAILED_DELIVERIES - 1 });

    await record(1);
    await walk();
    expect(await webhooks.getEndpoint(projectId, created.id)).toMatchObject({
      status: 'paused',
      pausedReason: 'failures',
      consecutiveFailures: AUTO_PAUSE_AFTER_FAILED_DELIVERIES,
    });
    const [paused] = await queryRows<{ payload: Record<string, unknown> }>(
      sql`select payload from events where type = 'webhook.endpoint_paused' order by seq desc limit 1`,
    );
    expect(paused!.payload).toEqual({ endpointId: created.id, url: created.url, reason: 'failures', consecutiveFailures: AUTO_PAUSE_AFTER_FAILED_DELIVERIES });

    const sentBefore = receiver.received.length;
    const held = await record(3);
    await dispatchAllPendingEvents();
    now = new Date(now.getTime() + 3_600_000);
    expect(await deliverAllDueWebhooks(options)).toBe(0);
    expect(receiver.received).toHaveLength(sentBefore);
    const heldRows = (await deliveriesOf(created.id)).filter((d) => held.includes(d.eventId!));
    expect(heldRows.map((d) => d.status)).toEqual(['held', 'held', 'held']);

    await receiver.close();
    receiver = await startWebhookReceiver();
    await webhooks.updateEndpoint(projectId, created.id, { url: receiver.url });
    await webhooks.resumeEndpoint(projectId, created.id, owner.id);
    expect(await webhooks.getEndpoint(projectId, created.id)).toMatchObject({ status: 'active', pausedReason: null, consecutiveFailures: 0 });
    await deliverAllDueWebhooks();
    const order = receiver.received.map((r) => (JSON.parse(r.body) as { data: { from: string } }).data.from);
    expect(order).toEqual(['Name 0', 'Name 1', 'Name 2']);
    const [resumed] = await queryRows<{ payload: Record<string, unknown> }>(
      sql`select payload from events where type = 'webhook.endpoint_resumed' order by seq desc limit 1`,
    );
    expect(resumed!.payload).toEqual({ endpointId: created.id, url: receiver.url, requeued: 3, by: owner.id });
  });

  it('disables the endpoint on 410 Gone and holds the delivery', async () => {
    const created = await endpoint();
    receiver.fail({ status: 410 });
    await record(2);
    await deliverAllDueWebhooks();
    expect(await webhooks.getEndpoint(projectId, created.id)).toMatchObject({ status: 'disabled', pausedReason: 'gone' });
    expect(receiver.received).toHaveLength(0);
    expect(receiver.fake.requests).toHaveLength(1);
    expect((await deliveriesOf(created.id)).map((d) => d.status)).toEqual(['held', 'held']);
    const [paused] = await queryRows<{ payload: Record<string, unknown> }>(
      sql`select payload from events where type = 'webhook.endpoint_paused' order by seq desc limit 1`,
    );
    expect(paused!.payload).toEqual({ endpointId: created.id, url: created.url, reason: 'gone', consecutiveFailures: 0 });
    await webhooks.resumeEndpoint(projectId, created.id, owner.id);
    await deliverAllDueWebhooks();
    expect(receiver.received).toHaveLength(2);
  });

  it("tells the project's owner, in the inbox, that the endpoint stopped", async () => {
    const created = await endpoint();
    receiver.fail({ status: 410 });
    await record(1);
    await deliverAllDueWebhooks();
    await dispatchAllPendingEvents();
    const inbox = await api<{ notifications: Array<{ eventType: string; type: string; link: string; body: string }> }>(
      'GET',
      '/v1/notifications?eventType=webhook.endpoint_paused',
      { cookie: owner.cookie },
    );
    expect(inbox.status).toBe(200);
    expect(inbox.data.notifications[0]).toMatchObject({ eventType: 'webhook.endpoint_paused', type: 'WARNING', link: `/projects/${projectId}/webhooks` });
    expect(inbox.data.notifications[0]!.body).toContain(new URL(created.url).host);
  });

  it('delivers every queued delivery exactly once across a worker stopped mid-queue and started again', async () => {
    const created = await endpoint();
    receiver.fail({ delayMs: 40, times: 1000 });
    await record(30);
    let stop = startWebhookDeliveryLoop();
    await waitFor(() => receiver.received.length >= 5);
    await stop();
    const atStop = receiver.received.length;
    expect(atStop).toBeLessThan(30);
    const rows = await deliveriesOf(created.id);
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(atStop);
    expect(rows.filter((d) => d.status === 'pending').every((d) => d.attemptCount === 0)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(atStop);

    stop = startWebhookDeliveryLoop();
    await waitFor(() => receiver.received.length >= 30);
    await stop();
    const counts = receiver.countsById();
    expect(counts.size).toBe(30);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect((await deliveriesOf(created.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('records nothing for an endpoint deleted while its attempt was under way', async () => {
    const created = await endpoint();
    receiver.fail({ delayMs: 300 });
    await record(1);
    const pass = deliverAllDueWebhooks();
    await waitFor(() => receiver.fake.requests.length === 1);
    await webhooks.deleteEndpoint(projectId, created.id);
    await expect(pass).resolves.toBe(1);
    expect(await queryRows(sql`select id from webhook_delivery_attempts where delivery_id not in (select id from webhook_deliveries)`)).toEqual([]);
  });

  it('keeps the signing secret sealed in the database', async () => {
    const created = await endpoint();
    const [row] = await queryRows<{ secret_sealed: string }>(sql`select secret_sealed from webhook_endpoints where id = ${created.id}`);
    expect(row!.secret_sealed).not.toContain(created.secret.slice(6));
    expect(JSON.stringify(await webhooks.listEndpoints(projectId))).not.toContain(created.secret);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

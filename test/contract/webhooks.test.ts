import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import { dispatchAllPendingEvents } from '../../server/platform/events/dispatch';
import { setOutboundResolver } from '../../server/platform/outbound';
import { deliverAllDueWebhooks } from '../../server/domains/webhooks/delivery';
import {
  WEBHOOK_ENDPOINTS_PER_PROJECT,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookEventType,
} from '../../server/domains/webhooks/schema';
import { queryRows } from '../db';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhookReceiver';
import { api, createApiKey, createProject, createUser, expectError, type ApiResult, type TestUser } from '../helpers';

const PUBLIC_URL = 'https://hooks.example.com/in';

let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let projectId: string;
let receiver: WebhookReceiver;

const base = () => `/v1/projects/${projectId}/webhooks`;

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS = 'true';
  resetConfigForTests();
  setOutboundResolver(async (hostname) => ({ 'hooks.example.com': ['93.184.216.34'], 'internal.example.com': ['10.0.0.7'] })[hostname] ?? []);
  owner = await createUser('Owner');
  admin = await createUser('Admin');
  member = await createUser('Member');
  ({ projectId } = await createProject(owner));
  await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin'), (${projectId}, ${member.id}, 'member')`);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver.close();
  setOutboundResolver(undefined);
  delete process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
});

afterEach(async () => {
  await queryRows(sql`delete from webhook_endpoints where project_id = ${projectId}`);
});

/** The production setting; the file otherwise allows loopback for its receiving fake. */
async function withoutPrivateNetworks(run: () => Promise<void>): Promise<void> {
  delete process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
  try {
    await run();
  } finally {
    process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS = 'true';
    resetConfigForTests();
  }
}

/** `error.fields` of a refusal: what is wrong with each field. */
function fieldsOf(res: ApiResult): Record<string, string> {
  return res.body && !res.body.success ? ((res.body.error as { fields?: Record<string, string> }).fields ?? {}) : {};
}

const create = (body: unknown, who: TestUser = owner) => api<WebhookEndpointWithSecret>('POST', base(), { cookie: who.cookie, body });

describe('the event catalogue', () => {
  it('lists every type with a description and an example, to any credential whatever its scopes', async () => {
    const key = await createApiKey(owner, projectId, ['servers:read']);
    const res = await api<WebhookEventType[]>('GET', '/v1/webhooks/event-types', { key: key.key });
    expect(res.status).toBe(200);
    const types = res.data.map((t) => t.type);
    expect(types).toEqual([...types].sort());
    expect(types).toEqual(expect.arrayContaining(['order.refunded', 'invoice.paid', 'ssh_key.created', 'webhook.endpoint_paused', 'webhook.test']));
    expect(types).not.toContain('charge.refunded');
    for (const entry of res.data) {
      expect(entry.description.length, entry.type).toBeGreaterThan(10);
      expect(Object.keys(entry.example).length, entry.type).toBeGreaterThan(0);
    }
    expect(res.data.find((t) => t.type === 'webhook.endpoint_paused')!.example).toEqual({
      endpointId: expect.any(String),
      url: expect.any(String),
      reason: 'failures',
      consecutiveFailures: expect.any(Number),
    });
    expectError(await api('GET', '/v1/webhooks/event-types'), 401, 'UNAUTHORIZED');
  });
});

describe('the catalogue examples', () => {
  it('carry the fields the recorded events of those types carry', async () => {
    await api('PATCH', `/v1/projects/${projectId}`, { cookie: owner.cookie, body: { name: `Examples ${Date.now()}` } }).then((r) => r.data);
    await api('POST', `/v1/projects/${projectId}/ssh-keys/generate`, { cookie: owner.cookie, body: { name: 'example key' } }).then((r) => r.data);
    await createApiKey(owner, projectId, ['projects:read']);
    // Handed to the handlers now, while no endpoint exists, so later tests see only their own events.
    await dispatchAllPendingEvents();
    const catalogue = new Map(
      (await api<WebhookEventType[]>('GET', '/v1/webhooks/event-types', { cookie: owner.cookie })).data.map((t) => [t.type, t.example]),
    );
    const recorded = await queryRows<{ type: string; payload: Record<string, unknown> }>(sql`select type, payload from events`);
    const types = new Set(recorded.map((event) => event.type));
    expect([...types]).toEqual(expect.arrayContaining(['project.created', 'project.renamed', 'ssh_key.created', 'api_key.created']));
    for (const event of recorded) {
      expect(Object.keys(event.payload).sort(), event.type).toEqual(Object.keys(catalogue.get(event.type)!).sort());
    }
  });
});

describe('webhook endpoints', () => {
  it('creates an endpoint (201) with its secret once; list and get never show it', async () => {
    const res = await create({ url: PUBLIC_URL, events: ['ssh_key.created', 'project.renamed', 'ssh_key.created'], description: 'Deploy bot' });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      projectId,
      url: PUBLIC_URL,
      events: ['project.renamed', 'ssh_key.created'],
      description: 'Deploy bot',
      status: 'active',
      pausedReason: null,
      consecutiveFailures: 0,
    });
    expect(Buffer.from(res.data.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const list = await api<WebhookEndpoint[]>('GET', base(), { cookie: member.cookie });
    expect(list.status).toBe(200);
    expect(list.data.map((e) => e.id)).toEqual([res.data.id]);
    const got = await api<WebhookEndpoint>('GET', `${base()}/${res.data.id}`, { cookie: member.cookie });
    expect(got.data).toEqual(list.data[0]);
    for (const body of [list.body, got.body]) {
      expect(JSON.stringify(body)).not.toContain(res.data.secret);
      expect(JSON.stringify(body)).not.toContain('secret"');
    }
  });

  it('subscribes to every type with ["*"], alone', async () => {
    expect((await create({ url: PUBLIC_URL, events: ['*'] })).data.events).toEqual(['*']);
    const mixed = await create({ url: PUBLIC_URL, events: ['*', 'project.renamed'] });
    expectError(mixed, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(mixed).events).toMatch(/alone/);
  });

  it.each([
    [{ url: PUBLIC_URL, events: ['server.exploded'] }, 'events', /Unknown event type "server.exploded"/],
    [{ url: PUBLIC_URL, events: [] }, 'events', /at least one/],
    [{ events: ['*'] }, 'url', /./],
    [{ url: PUBLIC_URL, events: ['*'], description: 'x'.repeat(501) }, 'description', /500/],
  ])('refuses a bad body with 422 VALIDATION_ERROR naming the field', async (body, field, message) => {
    const res = await create(body);
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(res)[field]).toMatch(message);
  });

  it.each([
    ['https://internal.example.com/hook', /10\.0\.0\.7, a private address/],
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['https://[fd00:ec2::254]/', /cloud metadata/],
    ['https://nowhere.example.com/', /does not resolve/],
  ])('refuses %s with 422 URL_NOT_ALLOWED on create and update', async (url, message) => {
    await withoutPrivateNetworks(async () => {
      const res = await create({ url, events: ['*'] });
      expectError(res, 422, 'URL_NOT_ALLOWED');
      expect(fieldsOf(res).url).toMatch(message);
      const made = await create({ url: PUBLIC_URL, events: ['*'] });
      const update = await api('PATCH', `${base()}/${made.data.id}`, { cookie: owner.cookie, body: { url } });
      expectError(update, 422, 'URL_NOT_ALLOWED');
    });
  });

  it('refuses http:// and loopback unless OUTBOUND_ALLOW_PRIVATE_NETWORKS is set', async () => {
    await withoutPrivateNetworks(async () => {
      expectError(await create({ url: 'http://hooks.example.com/in', events: ['*'] }), 422, 'URL_NOT_ALLOWED');
      expectError(await create({ url: 'https://127.0.0.1/in', events: ['*'] }), 422, 'URL_NOT_ALLOWED');
    });
    expect((await create({ url: receiver.url, events: ['*'] })).status).toBe(201);
  });

  it(`holds at most ${WEBHOOK_ENDPOINTS_PER_PROJECT} endpoints per project (409 WEBHOOK_ENDPOINT_LIMIT_REACHED)`, async () => {
    for (let i = 0; i < WEBHOOK_ENDPOINTS_PER_PROJECT; i += 1) expect((await create({ url: PUBLIC_URL, events: ['*'] })).status).toBe(201);
    expectError(await create({ url: PUBLIC_URL, events: ['*'] }), 409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
  });

  it('updates url, events and description; deletes with 204; 404 for an unknown or another project’s endpoint', async () => {
    const made = await create({ url: PUBLIC_URL, events: ['*'] }, admin);
    expect(made.status).toBe(201);
    const updated = await api<WebhookEndpoint>('PATCH', `${base()}/${made.data.id}`, {
      cookie: admin.cookie,
      body: { url: 'https://hooks.example.com/v2', events: ['server.created'], description: 'Renamed' },
    });
    expect(updated.status).toBe(200);
    expect(updated.data).toMatchObject({ url: 'https://hooks.example.com/v2', events: ['server.created'], description: 'Renamed' });

    const elsewhere = await createProject(owner);
    expectError(await api('GET', `/v1/projects/${elsewhere.projectId}/webhooks/${made.data.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', `${base()}/whe_unknown`, { cookie: owner.cookie }), 404, 'NOT_FOUND');

    const deleted = await api('DELETE', `${base()}/${made.data.id}`, { cookie: owner.cookie });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expectError(await api('DELETE', `${base()}/${made.data.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });

  it('lets members read but only owners and admins write; API keys need webhooks:read and webhooks:write', async () => {
    expectError(await create({ url: PUBLIC_URL, events: ['*'] }, member), 403, 'FORBIDDEN');
    const readOnly = await createApiKey(owner, projectId, ['webhooks:read']);
    expectError(await api('POST', base(), { key: readOnly.key, body: { url: PUBLIC_URL, events: ['*'] } }), 403, 'FORBIDDEN');
    expect((await api('GET', base(), { key: readOnly.key })).status).toBe(200);
    const both = await createApiKey(owner, projectId, ['webhooks:read', 'webhooks:write']);
    expect((await api('POST', base(), { key: both.key, body: { url: PUBLIC_URL, events: ['*'] } })).status).toBe(201);
  });

  it('rotates the secret (shown once), the old one signing beside it for 24 hours', async () => {
    const made = await create({ url: PUBLIC_URL, events: ['*'] });
    const before = Date.now();
    const rotated = await api<WebhookEndpointWithSecret>('POST', `${base()}/${made.data.id}/rotate-secret`, { cookie: owner.cookie });
    expect(rotated.status).toBe(200);
    expect(rotated.data.secret).toMatch(/^whsec_/);
    expect(rotated.data.secret).not.toBe(made.data.secret);
    const expires = new Date(rotated.data.previousSecretExpiresAt!).getTime();
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(JSON.stringify((await api('GET', `${base()}/${made.data.id}`, { cookie: owner.cookie })).body)).not.toContain(rotated.data.secret);
  });
});

describe('deliveries over HTTP', () => {
  it('sends a test event, lists deliveries with attempts, pauses, holds, resumes and redelivers', async () => {
    const made = await create({ url: receiver.url, events: ['project.renamed'] });
    const test = await api<WebhookDelivery>('POST', `${base()}/${made.data.id}/test`, { cookie: owner.cookie });
    expect(test.status).toBe(201);
    expect(test.data).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: [] });
    await deliverAllDueWebhooks();
    const delivered = receiver.received.find((r) => r.id === test.data.id)!;
    expect(
      new Webhook(made.data.secret).verify(delivered.body, {
        'webhook-id': delivered.id,
        'webhook-timestamp': delivered.timestamp,
        'webhook-signature': delivered.signature,
      }),
    ).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: made.data.id, projectId },
    });

    const paused = await api<WebhookEndpoint>('POST', `${base()}/${made.data.id}/pause`, { cookie: admin.cookie });
    expect(paused.data).toMatchObject({ status: 'paused', pausedReason: 'manual' });
    expectError(await api('POST', `${base()}/${made.data.id}/test`, { cookie: owner.cookie }), 409, 'CONFLICT');
    expectError(await api('POST', `${base()}/${made.data.id}/deliveries/${test.data.id}/redeliver`, { cookie: owner.cookie }), 409, 'CONFLICT');
    await api('PATCH', `/v1/projects/${projectId}`, { cookie: owner.cookie, body: { name: `Renamed ${Date.now()}` } }).then((r) => r.data);
    await dispatchAllPendingEvents();
    await deliverAllDueWebhooks();
    const held = await api<WebhookDeliveryPage>('GET', `${base()}/${made.data.id}/deliveries?status=held`, { cookie: member.cookie });
    expect(held.data.deliveries.map((d) => d.eventType)).toEqual(['project.renamed']);

    const resumed = await api<WebhookEndpoint>('POST', `${base()}/${made.data.id}/resume`, { cookie: owner.cookie });
    expect(resumed.data).toMatchObject({ status: 'active', pausedReason: null });
    await deliverAllDueWebhooks();
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toContain('project.renamed');

    const redelivered = await api<WebhookDelivery>('POST', `${base()}/${made.data.id}/deliveries/${test.data.id}/redeliver`, { cookie: owner.cookie });
    expect(redelivered.status).toBe(200);
    expect(redelivered.data).toMatchObject({ id: test.data.id, status: 'pending', attemptCount: 0 });
    await deliverAllDueWebhooks();
    expect(receiver.countsById().get(test.data.id)).toBe(2);

    const page = await api<WebhookDeliveryPage>('GET', `${base()}/${made.data.id}/deliveries?limit=1`, { cookie: member.cookie });
    expect(page.data.deliveries).toHaveLength(1);
    expect(page.data.deliveries[0]!.eventType).toBe('project.renamed');
    expect(page.data.deliveries[0]!.attempts[0]).toMatchObject({ ok: true, responseStatus: 204, error: null, durationMs: expect.any(Number) });
    const next = await api<WebhookDeliveryPage>('GET', `${base()}/${made.data.id}/deliveries?limit=1&cursor=${page.data.nextCursor}`, {
      cookie: member.cookie,
    });
    expect(next.data.deliveries[0]).toMatchObject({ id: test.data.id, status: 'succeeded' });
    expect(next.data.deliveries[0]!.attempts).toHaveLength(2);
    expect(next.data.nextCursor).toBeNull();
    expectError(await api('GET', `${base()}/${made.data.id}/deliveries?cursor=nonsense`, { cookie: member.cookie }), 422, 'VALIDATION_ERROR');
    expectError(await api('POST', `${base()}/${made.data.id}/deliveries/msg_unknown/redeliver`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });

  it('never writes a signing secret into the audit log or the events', async () => {
    const made = await create({ url: PUBLIC_URL, events: ['*'] });
    const rotated = await api<WebhookEndpointWithSecret>('POST', `${base()}/${made.data.id}/rotate-secret`, { cookie: owner.cookie });
    const dump = JSON.stringify(await queryRows(sql`select * from audit_entries`)) + JSON.stringify(await queryRows(sql`select * from events`));
    for (const secret of [made.data.secret, rotated.data.secret]) expect(dump).not.toContain(secret.slice('whsec_'.length));
  });
});

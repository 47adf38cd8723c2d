import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../db';
import { newId } from '../../db/schema/ids';
import { notificationsDomain } from '../../server/domains/notifications';
import type { Notification } from '../../server/domains/notifications/schema';
import { restApi } from '../../server/app';
import { api, createApiKey, createProject, createUser, expectError, type ApiResult, type Credentials, type TestUser } from '../helpers';
import { addMember } from '../membersHelpers';

type List = { notifications: Notification[] };

let alice: TestUser;
let bob: TestUser;
let shop: string;
let team: string;
const ids: Record<string, string> = {};

/** Hands a synthetic event, dated `at`, to the notifications handler as the dispatcher would. */
async function seed(name: string, type: string, payload: Record<string, unknown>, projectId: string, at: string): Promise<void> {
  const event = { id: newId('evt'), projectId, type, payload, createdAt: new Date(at) };
  const db = await getDb();
  await db.transaction(async (tx) => {
    for (const handler of notificationsDomain.eventHandlers ?? []) await handler.handle(tx, event);
  });
  ids[name] = event.id;
}

const list = (credentials: Credentials, query = '') => api<List>('GET', `/v1/notifications${query ? `?${query}` : ''}`, credentials);
const titles = async (credentials: Credentials, query = '') => (await list(credentials, query)).data.notifications.map((n) => n.title);
const fieldsOf = (res: ApiResult) => (res.body && !res.body.success ? (res.body.error as { fields?: Record<string, string> }).fields : undefined);

beforeAll(async () => {
  alice = await createUser('Alice');
  bob = await createUser('Bob');
  shop = (await createProject(alice, 'Shop')).projectId;
  team = (await createProject(alice, 'Team')).projectId;
  await addMember(alice, team, bob, 'admin');
  await seed('paid', 'invoice.paid', { invoiceId: 'inv_1', period: '2026-02', amount: 1200, currency: 'usd' }, shop, '2026-03-01T10:00:00.000Z');
  await seed('failed', 'payment.failed', { processorObjectId: 'pi_1', amount: 700, currency: 'usd' }, shop, '2026-03-02T23:59:00.000Z');
  await seed(
    'stopped',
    'server.suspended',
    { serverId: 'srv_1', name: 'web-1', action: 'power_off', reason: 'invoice_unpaid' },
    shop,
    '2026-03-03T00:00:00.000Z',
  );
  await seed('key', 'api_key.created', { apiKeyId: 'key_1', name: 'ci', scopes: ['servers:read'], by: alice.id }, shop, '2026-03-04T12:00:00.000Z');
  await seed('suspended', 'billing.project_suspended', { invoices: [], unpaidSince: '2026-02-20T00:00:00.000Z' }, team, '2026-03-05T08:00:00.000Z');
});

describe('GET /v1/notifications', () => {
  it('lists the caller’s notifications newest first with exactly the fields of SPEC', async () => {
    const res = await list({ cookie: alice.cookie });
    expect(res.status).toBe(200);
    expect(res.data.notifications.map((n) => n.title)).toEqual(['Project suspended', 'API key created', 'Server stopped', 'Payment failed', 'Invoice paid']);
    const [first] = res.data.notifications;
    expect(Object.keys(first!).sort()).toEqual(['body', 'createdAt', 'eventType', 'id', 'link', 'read', 'title', 'type']);
    expect(first).toMatchObject({
      type: 'ERROR',
      eventType: 'billing.project_suspended',
      read: false,
      link: `/projects/${team}/billing`,
      createdAt: '2026-03-05T08:00:00.000Z',
    });
    expect(first!.id).toMatch(/^ntf_/);
    expect(await titles({ cookie: bob.cookie })).toEqual(['Project suspended']);
  });

  it('answers the 50 most recent without a limit, and up to 200 with one', async () => {
    const carol = await createUser('Carol');
    const solo = (await createProject(carol, 'Solo')).projectId;
    for (let i = 0; i < 55; i += 1) {
      await seed(`bulk${i}`, 'billing.project_resumed', {}, solo, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString());
    }
    const all = (await list({ cookie: carol.cookie })).data.notifications;
    expect(all).toHaveLength(50);
    expect(all[0]!.createdAt).toBe('2026-01-01T00:54:00.000Z');
    expect(all.at(-1)!.createdAt).toBe('2026-01-01T00:05:00.000Z');
    expect((await list({ cookie: carol.cookie }, 'limit=200')).data.notifications).toHaveLength(55);
    expect((await list({ cookie: carol.cookie }, 'limit=3')).data.notifications.map((n) => n.createdAt)).toEqual([
      '2026-01-01T00:54:00.000Z',
      '2026-01-01T00:53:00.000Z',
      '2026-01-01T00:52:00.000Z',
    ]);
  });

  it('filters by event type, one or several', async () => {
    expect(await titles({ cookie: alice.cookie }, 'eventType=invoice.paid')).toEqual(['Invoice paid']);
    expect(await titles({ cookie: alice.cookie }, 'eventType=invoice.paid&eventType=server.suspended')).toEqual(['Server stopped', 'Invoice paid']);
    expect(await titles({ cookie: alice.cookie }, 'eventType=member.joined')).toEqual([]);
  });

  it('filters by type', async () => {
    expect(await titles({ cookie: alice.cookie }, 'type=ERROR')).toEqual(['Project suspended', 'Payment failed']);
    expect(await titles({ cookie: alice.cookie }, 'type=SUCCESS')).toEqual(['Invoice paid']);
    expect(await titles({ cookie: alice.cookie }, 'type=WARNING&eventType=invoice.paid')).toEqual([]);
  });

  it('filters by time: from on or after, to on or before, a bare date covering its whole UTC day', async () => {
    const at = async (query: string) => (await list({ cookie: alice.cookie }, query)).data.notifications.map((n) => n.createdAt);
    expect(await at('from=2026-03-01T10:00:00Z&to=2026-03-02')).toEqual(['2026-03-02T23:59:00.000Z', '2026-03-01T10:00:00.000Z']);
    expect(await at('from=2026-03-02&to=2026-03-03T00:00:00Z')).toEqual(['2026-03-03T00:00:00.000Z', '2026-03-02T23:59:00.000Z']);
    expect(await at('from=2026-03-03&to=2026-03-03')).toEqual(['2026-03-03T00:00:00.000Z']);
    expect(await at('to=2026-03-01T09:59:59.999Z')).toEqual([]);
    expect(await at('from=2026-03-04T12:00:00.001Z')).toEqual(['2026-03-05T08:00:00.000Z']);
    expect(await at('from=2026-03-05T09:00:00%2B02:00')).toEqual(['2026-03-05T08:00:00.000Z']);
  });

  it('refuses malformed filters with 422 VALIDATION_ERROR naming the field, never ignoring or clamping them', async () => {
    const refused = async (query: string, field: string) => {
      const res = await list({ cookie: alice.cookie }, query);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(fieldsOf(res), query).toHaveProperty(field);
    };
    await refused('eventType=invoice.exploded', 'eventType');
    await refused('eventType=invoice.paid&eventType=nonsense', 'eventType');
    await refused('type=CRITICAL', 'type');
    await refused('type=error', 'type');
    await refused('read=yes', 'read');
    await refused('limit=0', 'limit');
    await refused('limit=201', 'limit');
    await refused('limit=1000', 'limit');
    await refused('limit=ten', 'limit');
    await refused('limit=2.5', 'limit');
    await refused('from=yesterday', 'from');
    await refused('from=2026-02-30', 'from');
    await refused('to=2026-03-01T25:00:00Z', 'to');
    await refused('to=03/01/2026', 'to');
    await refused('from=2026-03-04&to=2026-03-03', 'to');
  });
});

describe('marking notifications read', () => {
  it('marks one read, once; the read filter tells read from unread', async () => {
    const [paid] = (await list({ cookie: alice.cookie }, 'eventType=invoice.paid')).data.notifications;
    const first = await api<{ marked: number }>('PATCH', `/v1/notifications/${paid!.id}/read`, { cookie: alice.cookie });
    expect(first.status).toBe(200);
    expect(first.data).toEqual({ marked: 1 });
    expect((await api<{ marked: number }>('PATCH', `/v1/notifications/${paid!.id}/read`, { cookie: alice.cookie })).data).toEqual({ marked: 0 });
    expect(await titles({ cookie: alice.cookie }, 'read=true')).toEqual(['Invoice paid']);
    expect(await titles({ cookie: alice.cookie }, 'read=false')).toEqual(['Project suspended', 'API key created', 'Server stopped', 'Payment failed']);
    expect((await api<{ unread: number }>('GET', '/v1/notifications/unread-count', { cookie: alice.cookie })).data).toEqual({ unread: 4 });
  });

  it('answers 404 for another user’s notification or an unknown id, and changes nothing', async () => {
    const [ofAlice] = (await list({ cookie: alice.cookie }, 'eventType=billing.project_suspended')).data.notifications;
    expectError(await api('PATCH', `/v1/notifications/${ofAlice!.id}/read`, { cookie: bob.cookie }), 404, 'NOT_FOUND');
    expectError(await api('PATCH', '/v1/notifications/ntf_doesnotexist000000/read', { cookie: bob.cookie }), 404, 'NOT_FOUND');
    expect((await list({ cookie: alice.cookie }, 'eventType=billing.project_suspended')).data.notifications[0]!.read).toBe(false);
  });

  it('read-all marks every unread notification of the caller, ignoring filters, and says how many', async () => {
    const res = await api<{ marked: number }>('PATCH', '/v1/notifications/read-all?type=ERROR&eventType=invoice.paid', { cookie: bob.cookie });
    expect(res.data).toEqual({ marked: 1 });
    expect((await list({ cookie: alice.cookie }, 'read=false')).data.notifications).toHaveLength(4);
    expect((await api<{ marked: number }>('PATCH', '/v1/notifications/read-all', { cookie: bob.cookie })).data).toEqual({ marked: 0 });
  });
});

describe('API keys', () => {
  it('reach only their creator’s notifications of the key’s own project', async () => {
    const reader = await createApiKey(alice, shop, ['notifications:read']);
    expect(await titles({ key: reader.key })).toEqual(['API key created', 'Server stopped', 'Payment failed', 'Invoice paid']);
    expect((await api<{ unread: number }>('GET', '/v1/notifications/unread-count', { key: reader.key })).data).toEqual({ unread: 3 });
    const ofBobInTeam = await createApiKey(bob, team, ['notifications:read']);
    expect(await titles({ key: ofBobInTeam.key })).toEqual(['Project suspended']);
  });

  it('need notifications:write as well to mark read; read-all and marking one stay inside the key’s project', async () => {
    const readOnly = await createApiKey(alice, shop, ['notifications:read']);
    expectError(await api('PATCH', '/v1/notifications/read-all', { key: readOnly.key }), 403, 'FORBIDDEN');
    const writer = await createApiKey(alice, shop, ['notifications:read', 'notifications:write']);
    const [inTeam] = (await list({ cookie: alice.cookie }, 'eventType=billing.project_suspended')).data.notifications;
    expectError(await api('PATCH', `/v1/notifications/${inTeam!.id}/read`, { key: writer.key }), 404, 'NOT_FOUND');
    expect((await api<{ marked: number }>('PATCH', '/v1/notifications/read-all', { key: writer.key })).data).toEqual({ marked: 3 });
    expect(await titles({ cookie: alice.cookie }, 'read=false')).toEqual(['Project suspended']);
    expect((await api<{ marked: number }>('PATCH', '/v1/notifications/read-all', { cookie: alice.cookie })).data).toEqual({ marked: 1 });
    expect((await api<{ unread: number }>('GET', '/v1/notifications/unread-count', { cookie: alice.cookie })).data).toEqual({ unread: 0 });
  });
});

describe('the operations in the OpenAPI document, which the authorization matrix walks', () => {
  it.each([
    ['get', '/notifications', ['notifications:read']],
    ['get', '/notifications/unread-count', ['notifications:read']],
    ['patch', '/notifications/read-all', ['notifications:read', 'notifications:write']],
    ['patch', '/notifications/{id}/read', ['notifications:read', 'notifications:write']],
  ])('%s %s needs %j, any signed-in user', (method, path, scopes) => {
    const op = (restApi.openApiDocument().paths?.[path] as Record<string, Record<string, unknown>> | undefined)?.[method];
    expect(op).toBeDefined();
    expect(op!['x-required-scopes']).toEqual(scopes);
    expect(op!['x-session-only']).toBeUndefined();
    expect(op!.security).not.toEqual([]);
  });

  it('answers 401 without credentials', async () => {
    expectError(await list({}), 401, 'UNAUTHORIZED');
    expectError(await api('PATCH', '/v1/notifications/read-all', {}), 401, 'UNAUTHORIZED');
  });
});

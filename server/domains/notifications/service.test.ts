import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { newId } from '../../../db/schema/ids';
import { queryRows } from '../../../test/db';
import { api, createApiKey, createProject, createUser, type TestUser } from '../../../test/helpers';
import { addMember } from '../../../test/membersHelpers';
import { JOBS } from '../../app';
import { eventTypes } from '../../platform/events';
import { dispatchAllPendingEvents } from '../../platform/events/dispatch';
import { notificationsDomain } from '.';
import { PURGE_NOTIFICATIONS } from './jobs';
import { NOTIFICATION_RULES } from './rules';
import { purgeExpiredNotifications } from './service';

interface StoredNotification {
  user_id: string;
  project_id: string | null;
  event_type: string;
  type: string;
  title: string;
  body: string;
  link: string;
}

let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let projectId: string;
const who = () => ({ [owner.id]: 'owner', [admin.id]: 'admin', [member.id]: 'member', [viewer.id]: 'viewer' }) as Record<string, string>;

beforeAll(async () => {
  owner = await createUser('Olivia Owner');
  admin = await createUser('Adam Admin');
  member = await createUser('Mia Member');
  viewer = await createUser('Vic Viewer');
  ({ projectId } = await createProject(owner, 'Shop'));
  await addMember(owner, projectId, admin, 'admin');
  await addMember(owner, projectId, member, 'member');
  await addMember(owner, projectId, viewer, 'viewer');
});

async function storedFor(eventId: string): Promise<StoredNotification[]> {
  return queryRows<StoredNotification>(sql`select user_id, project_id, event_type, type, title, body, link from notifications where event_id = ${eventId}`);
}

/** Hands a synthetic event to the manifest's handler inside a transaction, as the dispatcher would. */
async function deliver(type: string, payload: Record<string, unknown>, project: string | null = projectId) {
  const event = { id: newId('evt'), projectId: project, type, payload, createdAt: new Date() };
  const db = await getDb();
  await db.transaction(async (tx) => {
    for (const handler of notificationsDomain.eventHandlers ?? []) await handler.handle(tx, event);
  });
  const rows = await storedFor(event.id);
  return { rows, told: rows.map((row) => who()[row.user_id] ?? row.user_id).sort(), only: () => rows[0]! };
}

describe('notifications written from events', () => {
  it('the dispatcher runs the handler: a new API key tells owners and admins, its creator included', async () => {
    await dispatchAllPendingEvents();
    const key = await createApiKey(owner, projectId, ['servers:read']);
    await dispatchAllPendingEvents();
    const [event] = await queryRows<{ id: string }>(sql`select id from events where type = 'api_key.created' and payload->>'apiKeyId' = ${key.id}`);
    const rows = await storedFor(event!.id);
    expect(rows.map((row) => who()[row.user_id]).sort()).toEqual(['admin', 'owner']);
    expect(rows[0]).toMatchObject({ type: 'INFO', title: 'API key created', link: `/projects/${projectId}/api-keys`, project_id: projectId });
    expect(rows[0]!.body).toContain('Olivia Owner created the API key "test key" in Shop with servers:read');
    expect(rows[0]!.body).not.toContain(key.key);
  });

  it('an accepted invitation tells its sender; the other admins hear that a member joined; the joiner hears of neither', async () => {
    const joiner = await createUser('Jo Joiner');
    const team = await createProject(owner, 'Team');
    await addMember(owner, team.projectId, admin, 'admin');
    await dispatchAllPendingEvents();
    await addMember(admin, team.projectId, joiner, 'member');
    await dispatchAllPendingEvents();
    const rows = await queryRows<StoredNotification>(
      sql`select n.* from notifications n join events e on e.id = n.event_id where e.type in ('invitation.accepted', 'member.joined') and e.payload->>'userId' = ${joiner.id}`,
    );
    const byType = (type: string) => rows.filter((row) => row.event_type === type).map((row) => who()[row.user_id] ?? row.user_id);
    expect(byType('invitation.accepted')).toEqual(['admin']);
    expect(byType('member.joined')).toEqual(['owner']);
    expect(rows.find((row) => row.event_type === 'invitation.accepted')).toMatchObject({
      type: 'SUCCESS',
      body: 'Jo Joiner accepted your invitation to Team.',
      link: `/projects/${team.projectId}/members`,
    });
    expect(rows.find((row) => row.event_type === 'member.joined')!.body).toBe('Jo Joiner joined Team as member.');
  });

  it.each([
    [
      'invoice.paid',
      { invoiceId: 'inv_1', period: '2026-05', amount: 1200, currency: 'usd' },
      ['owner'],
      'SUCCESS',
      '/billing',
      'The 2026-05 invoice of Shop (USD 12.00) is paid.',
    ],
    [
      'invoice.paid',
      { processorObjectId: 'in_9', amount: 1999, currency: 'eur' },
      ['owner'],
      'SUCCESS',
      '/billing',
      'A payment of EUR 19.99 for Shop was received.',
    ],
    [
      'invoice.payment_failed',
      { invoiceId: 'inv_2', period: '2026-06', amount: 500, currency: 'usd', failureCode: 'card_declined', nextAttemptAt: '2026-07-02T00:05:00.000Z' },
      ['owner'],
      'ERROR',
      '/billing',
      'The card is charged again on 2026-07-02',
    ],
    [
      'payment.failed',
      { processorObjectId: 'pi_1', amount: 700, currency: 'usd' },
      ['owner'],
      'ERROR',
      '/billing',
      'A payment of USD 7.00 for Shop was declined.',
    ],
    ['order.refunded', { processorObjectId: 'ch_1', amount: 300, currency: 'usd' }, ['owner'], 'INFO', '/billing', 'USD 3.00 for Shop was refunded'],
    [
      'billing.project_suspended',
      { invoices: [], unpaidSince: '2026-05-01T00:00:00.000Z' },
      ['admin', 'member', 'owner', 'viewer'],
      'ERROR',
      '/billing',
      'Shop is suspended',
    ],
    [
      'billing.project_resumed',
      { invoiceId: 'inv_2', suspendedAt: '2026-05-08T00:00:00.000Z' },
      ['admin', 'member', 'owner', 'viewer'],
      'SUCCESS',
      '',
      'Shop are paid',
    ],
    [
      'server.suspended',
      { serverId: 'srv_1', name: 'web-1', action: 'power_off', reason: 'invoice_unpaid' },
      ['admin', 'owner'],
      'WARNING',
      '/servers/srv_1',
      'The server web-1 in Shop was powered off',
    ],
  ])('%s tells %j', async (type, payload, told, kind, linkSuffix, text) => {
    const result = await deliver(type, payload);
    expect(result.told).toEqual(told);
    expect(result.only()).toMatchObject({ event_type: type, type: kind, link: `/projects/${projectId}${linkSuffix}` });
    expect(result.only().body).toContain(text);
  });

  it('tells the biller of money matters even when they are not an owner', async () => {
    await queryRows(sql`update projects set biller_user_id = ${member.id} where id = ${projectId}`);
    try {
      expect((await deliver('invoice.payment_failed', { invoiceId: 'inv_3', period: '2026-07', amount: 100, currency: 'usd' })).told).toEqual([
        'member',
        'owner',
      ]);
      expect((await deliver('order.refunded', { processorObjectId: 'ch_2', amount: 100, currency: 'usd' })).told).toEqual(['member', 'owner']);
    } finally {
      await queryRows(sql`update projects set biller_user_id = ${owner.id} where id = ${projectId}`);
    }
  });

  it('does not tell the actor of their own action', async () => {
    const created = await deliver('server.created', { serverId: 'srv_2', name: 'db-1', size: 's-1', region: 'fra1', by: member.id });
    expect(created.told).toEqual(['admin', 'owner', 'viewer']);
    expect(created.only()).toMatchObject({ type: 'INFO', link: `/projects/${projectId}/servers/srv_2`, body: 'Mia Member created the server db-1 in Shop.' });
    const deleted = await deliver('server.deleted', { serverId: 'srv_2', name: 'db-1', by: owner.id });
    expect(deleted.told).toEqual(['admin', 'member', 'viewer']);
    expect(deleted.only()).toMatchObject({ type: 'WARNING', link: `/projects/${projectId}/servers` });
  });

  it('offers billing to the proposed biller only, and tells a removed member of the removal', async () => {
    const offered = await deliver('billing.transfer_proposed', { transferId: 'btr_1', from: owner.id, to: admin.id, by: owner.id });
    expect(offered.told).toEqual(['admin']);
    expect(offered.only()).toMatchObject({ type: 'INFO', link: `/projects/${projectId}/billing`, body: expect.stringContaining('Olivia Owner asks you') });

    const gone = await createUser('Gail Gone');
    const removed = await deliver('member.removed', { userId: gone.id, role: 'member', by: admin.id });
    expect(removed.rows.map((row) => row.user_id)).toEqual([gone.id]);
    expect(removed.only()).toMatchObject({ type: 'WARNING', link: '/projects', body: expect.stringContaining('Adam Admin removed you from Shop') });
  });

  it('warns owners and admins of a paused webhook endpoint, naming its host and never its URL', async () => {
    const result = await deliver('webhook.endpoint_paused', {
      endpointId: 'whe_1',
      url: 'https://hooks.example.com/services/T000/B000/SECRETPATH?token=querysecret',
      reason: 'consecutive_failures',
      consecutiveFailures: 8,
    });
    expect(result.told).toEqual(['admin', 'owner']);
    expect(result.only()).toMatchObject({ type: 'WARNING', title: 'Webhook endpoint paused', link: `/projects/${projectId}/webhooks` });
    expect(result.only().body).toContain('Deliveries to hooks.example.com in Shop are paused after 8 failed attempts in a row');
    for (const row of result.rows) expect(JSON.stringify(row)).not.toMatch(/SECRETPATH|querysecret|services/);
  });

  it('writes nothing for events no rule covers, events without a project, or a project gone meanwhile', async () => {
    expect((await deliver('project.renamed', { projectId, from: 'a', to: 'b', by: owner.id })).rows).toEqual([]);
    expect((await deliver('invoice.paid', { processorObjectId: 'in_x', amount: 1, currency: 'usd' }, null)).rows).toEqual([]);
    expect((await deliver('invoice.paid', { processorObjectId: 'in_y', amount: 1, currency: 'usd' }, 'prj_doesnotexist0000')).rows).toEqual([]);
  });

  it('writes an event once per person even if it is handed over twice', async () => {
    const event = { id: newId('evt'), projectId, type: 'billing.project_resumed', payload: {}, createdAt: new Date() };
    const db = await getDb();
    for (let i = 0; i < 2; i += 1) await db.transaction((tx) => notificationsDomain.eventHandlers![0]!.handle(tx, event));
    expect(await storedFor(event.id)).toHaveLength(4);
  });
});

describe('retention', () => {
  it('a daily job purges notifications older than 180 days and keeps the rest', async () => {
    expect(JOBS.find((job) => job.name === PURGE_NOTIFICATIONS)).toMatchObject({ cron: '45 3 * * *' });
    const old = await deliver('billing.project_resumed', {});
    const recent = await deliver('billing.project_suspended', {});
    expect([old.rows.length, recent.rows.length]).toEqual([4, 4]);
    const now = new Date('2026-06-30T12:00:00Z');
    await queryRows(
      sql`update notifications set created_at = ${new Date(now.getTime() - 181 * 86_400_000).toISOString()}::timestamptz where event_type = 'billing.project_resumed'`,
    );
    await queryRows(
      sql`update notifications set created_at = ${new Date(now.getTime() - 179 * 86_400_000).toISOString()}::timestamptz where event_type = 'billing.project_suspended'`,
    );
    const before = await queryRows<{ n: number }>(sql`select count(*)::int as n from notifications where event_type = 'billing.project_resumed'`);
    expect(await purgeExpiredNotifications(now)).toBe(before[0]!.n);
    const left = await queryRows<{ event_type: string }>(sql`select distinct event_type from notifications where event_type like 'billing.project_%'`);
    expect(left.map((row) => row.event_type)).toEqual(['billing.project_suspended']);
  });
});

describe('a notification holds no secret', () => {
  it('never carries the key shown once', async () => {
    const key = await createApiKey(admin, projectId, ['notifications:read']);
    await dispatchAllPendingEvents();
    const listed = await api<{ notifications: { body: string; title: string }[] }>('GET', '/v1/notifications', { cookie: owner.cookie });
    expect(JSON.stringify(listed.data)).not.toContain(key.key);
  });
});

describe('the rules', () => {
  it('speak only of event types some domain declares, so no rule waits for an event that never comes', () => {
    const declared = new Set(eventTypes());
    expect(Object.keys(NOTIFICATION_RULES).filter((type) => !declared.has(type))).toEqual([]);
  });
});

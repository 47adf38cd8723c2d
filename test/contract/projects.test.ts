import { eq, sql } from 'drizzle-orm';
import { events } from '../../db/schema';
import { describe, expect, it } from 'vitest';
import { registerResourceCounter } from '../../server/platform/counters';
import { PROJECT_COUNTERS } from '../../server/platform/counters';
import { api, createApiKey, createProject, createUser, expectError } from '../helpers';
import { databaseFingerprint, queryRows } from '../db';
import { getDb } from '../../db';
import { closeMonthForProject } from '../../server/billing/monthlyClose';
import { endBillingItem, purchaseCreation } from '../../server/billing/purchases';
import { addCard, CARDS, widgetPurchase } from '../billingHelpers';
import type { Project, ResourceHistoryEntry } from '../../server/domains/projects/schema';

async function addMember(projectId: string, userId: string, role: string) {
  await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${userId}, ${role})`);
}

describe('POST /v1/projects/create', () => {
  it('creates the project with the caller as owner and answers { projectId, projectSlug }', async () => {
    const user = await createUser();
    const res = await api<{ projectId: string; projectSlug: string }>('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'My Shop' } });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ projectId: expect.stringMatching(/^prj_/), projectSlug: 'my-shop' });
    const [member] = await queryRows<{ role: string }>(sql`select role from memberships where project_id = ${res.data.projectId} and user_id = ${user.id}`);
    expect(member?.role).toBe('owner');
    const events = await queryRows<{ type: string }>(sql`select type from events where project_id = ${res.data.projectId}`);
    expect(events.map((e) => e.type)).toContain('project.created');
  });

  it('keeps names unique per user, case-insensitively (409), but not across users', async () => {
    const user = await createUser();
    await createProject(user, 'Production');
    expectError(await api('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'PRODUCTION' } }), 409, 'CONFLICT');
    const other = await createUser();
    const second = await createProject(other, 'production');
    expect(second.projectSlug).toMatch(/^production-[a-z0-9]+$/);
  });

  it.each([[''], ['   '], ['x'.repeat(101)]])('refuses the name %j with 422', async (name) => {
    const user = await createUser();
    const res = await api('POST', '/v1/projects/create', { cookie: user.cookie, body: { name } });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toContain('name');
  });

  it('accepts a 100-character name', async () => {
    const user = await createUser();
    expect((await api('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'x'.repeat(100) } })).status).toBe(200);
  });

  it('rolls back every step when one fails', async () => {
    const user = await createUser();
    await queryRows(sql.raw(`create or replace function fail_membership() returns trigger language plpgsql as $$ begin raise exception 'boom'; end $$`));
    await queryRows(sql.raw(`create trigger fail_membership before insert on memberships for each row execute function fail_membership()`));
    const before = await databaseFingerprint();
    const res = await api('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Doomed' } });
    await queryRows(sql.raw('drop trigger fail_membership on memberships'));
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('boom');
    expect(await databaseFingerprint()).toEqual(before);
  });
});

describe('GET /v1/projects and /v1/projects/{projectId}', () => {
  it('lists the member projects newest first with every SPEC field and counter', async () => {
    const user = await createUser();
    const first = await createProject(user, 'First');
    const second = await createProject(user, 'Second');
    const stranger = await createUser();
    await createProject(stranger, 'Not mine');
    const list = (await api<Project[]>('GET', '/v1/projects', { cookie: user.cookie })).data;
    expect(list.map((p) => p.id)).toEqual([second.projectId, first.projectId]);
    for (const project of list) {
      expect(project).toMatchObject({ billingEmail: null, blockedAt: null, blockedReason: null });
      expect(Object.keys(project._count).sort()).toEqual([...PROJECT_COUNTERS].sort());
    }
  });

  it('is addressable by id or slug, and 404 for strangers and unknown projects', async () => {
    const user = await createUser();
    const { projectId, projectSlug } = await createProject(user, 'Addressable');
    const byId = (await api<Project>('GET', `/v1/projects/${projectId}`, { cookie: user.cookie })).data;
    const bySlug = (await api<Project>('GET', `/v1/projects/${projectSlug}`, { cookie: user.cookie })).data;
    expect(bySlug).toEqual(byId);
    expect(byId).toMatchObject({ id: projectId, name: 'Addressable', slug: projectSlug });
    const stranger = await createUser();
    expectError(await api('GET', `/v1/projects/${projectId}`, { cookie: stranger.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', '/v1/projects/prj_doesnotexist0000', { cookie: user.cookie }), 404, 'NOT_FOUND');
  });

  it('shows an API key only its own project', async () => {
    const user = await createUser();
    const a = await createProject(user, 'A');
    const b = await createProject(user, 'B');
    const key = await createApiKey(user, a.projectId, ['projects:read']);
    expect((await api<Project[]>('GET', '/v1/projects', { key: key.key })).data.map((p) => p.id)).toEqual([a.projectId]);
    expectError(await api('GET', `/v1/projects/${b.projectId}`, { key: key.key }), 404, 'NOT_FOUND');
  });
});

describe('PATCH /v1/projects/{projectId}', () => {
  it('renames for owners and admins, refuses members and viewers, and keeps names unique', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner, 'Old');
    await createProject(owner, 'Taken');
    const admin = await createUser();
    const member = await createUser();
    const viewer = await createUser();
    await addMember(projectId, admin.id, 'admin');
    await addMember(projectId, member.id, 'member');
    await addMember(projectId, viewer.id, 'viewer');

    const renamed = await api('PATCH', `/v1/projects/${projectId}`, { cookie: owner.cookie, body: { name: 'New' } });
    expect(renamed.data).toEqual({ id: projectId, name: 'New', slug: 'old', billingEmail: null });
    expect((await api('PATCH', `/v1/projects/${projectId}`, { cookie: admin.cookie, body: { name: 'Newer' } })).status).toBe(200);
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { cookie: member.cookie, body: { name: 'Nope' } }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { cookie: viewer.cookie, body: { name: 'Nope' } }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { cookie: owner.cookie, body: { name: 'taken' } }), 409, 'CONFLICT');
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { cookie: owner.cookie, body: {} }), 422, 'VALIDATION_ERROR');
    expect((await api<Project>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data.name).toBe('Newer');
  });

  it('needs both projects:read and projects:write on a key', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const writeOnly = await createApiKey(owner, projectId, ['projects:write']);
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { key: writeOnly.key, body: { name: 'X' } }), 403, 'FORBIDDEN');
    const both = await createApiKey(owner, projectId, ['projects:read', 'projects:write']);
    expect((await api('PATCH', `/v1/projects/${projectId}`, { xApiKey: both.key, body: { name: 'X' } })).status).toBe(200);
  });
});

describe('PATCH /v1/projects/{projectId}/billing-email', () => {
  it('sets and clears the billing email and validates it', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const path = `/v1/projects/${projectId}/billing-email`;
    expect((await api('PATCH', path, { cookie: owner.cookie, body: { billingEmail: 'billing@example.com' } })).data).toEqual({
      billingEmail: 'billing@example.com',
    });
    expect((await api<Project>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data.billingEmail).toBe('billing@example.com');
    expect((await api('PATCH', path, { cookie: owner.cookie, body: { billingEmail: null } })).data).toEqual({ billingEmail: null });
    expectError(await api('PATCH', path, { cookie: owner.cookie, body: { billingEmail: 'nope' } }), 422, 'VALIDATION_ERROR');
    expectError(await api('PATCH', path, { cookie: owner.cookie, body: { billingEmail: `${'a'.repeat(310)}@example.com` } }), 422, 'VALIDATION_ERROR');
    expectError(await api('PATCH', path, { cookie: owner.cookie, body: {} }), 422, 'VALIDATION_ERROR');
    const member = await createUser();
    await addMember(projectId, member.id, 'member');
    expectError(await api('PATCH', path, { cookie: member.cookie, body: { billingEmail: 'm@example.com' } }), 403, 'FORBIDDEN');
  });
});

describe('DELETE /v1/projects/{projectId}', () => {
  it('deletes for the owner (data null), 404 for anyone else', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const admin = await createUser();
    await addMember(projectId, admin.id, 'admin');
    expectError(await api('DELETE', `/v1/projects/${projectId}`, { cookie: admin.cookie }), 404, 'NOT_FOUND');
    const res = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: null });
    expectError(await api('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });

  it('refuses with 409 CONFLICT listing what remains', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    // A domain counter as the domains issue will register it, over rows this test can write.
    registerResourceCounter({
      counter: 'domains',
      label: 'domain',
      blocksProjectDeletion: true,
      table: events,
      projectIdColumn: events.projectId,
      live: eq(events.type, 'test.domain'),
    });
    for (const n of [1, 2]) {
      await queryRows(
        sql`insert into events (id, project_id, type, payload) values (${`evt_test_domain_${n}_${projectId}`}, ${projectId}, 'test.domain', '{}')`,
      );
    }
    const before = await databaseFingerprint();
    const res = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(res, 409, 'CONFLICT');
    expect(res.body && !res.body.success && res.body.error.message).toContain('2 domains');
    expect(await databaseFingerprint()).toEqual(before);
    expect((await api<Project>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data._count.domains).toBe(2);
    expect((await api<Project[]>('GET', '/v1/projects', { cookie: owner.cookie })).data.find((p) => p.id === projectId)?._count.domains).toBe(2);
  });
});

describe('DELETE /v1/projects/{projectId} and invoices', () => {
  async function projectWithInvoice(card: string) {
    const owner = await createUser();
    const { projectId } = await createProject(owner, 'Invoiced');
    await addCard(owner, projectId, CARDS.ok);
    const widget = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w1', 1800, new Date('2026-10-10T00:00:00Z')));
    if (card !== CARDS.ok) await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    const invoice = (await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z')))!;
    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    const db = await getDb();
    await db.transaction((tx) => endBillingItem(tx, projectId, 'widget', widget.resourceId));
    return { owner, projectId, invoice };
  }

  it('refuses while an invoice is unpaid, listing it, and deletes nothing', async () => {
    const { owner, projectId, invoice } = await projectWithInvoice(CARDS.declinesOnCharge);
    expect(invoice.status).toBe('failed');
    const before = await databaseFingerprint();
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body && !refused.body.success && refused.body.error.message).toContain(`unpaid invoices: 2026-11 (${invoice.id}, failed)`);
    expect(await databaseFingerprint()).toEqual(before);

    await api('POST', `/v1/projects/${projectId}/billing/invoices/${invoice.id}/pay`, { cookie: owner.cookie }).then((r) => r.data);
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);
  });

  it('keeps the paid invoices of a deleted project in the billing history of whoever paid them', async () => {
    const { owner, projectId, invoice } = await projectWithInvoice(CARDS.ok);
    expect(invoice.status).toBe('paid');
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);

    const [kept] = await queryRows<{ project_id: string | null; project_name: string; status: string }>(
      sql`select project_id, project_name, status from invoices where id = ${invoice.id}`,
    );
    expect(kept).toEqual({ project_id: null, project_name: 'Invoiced', status: 'paid' });
    expect(await queryRows(sql`select id from invoice_lines where invoice_id = ${invoice.id}`)).toHaveLength(1);

    const history = await api<Array<{ id: string; projectId: string | null; projectName: string; total: number; status: string }>>(
      'GET',
      '/v1/account/invoices',
      {
        cookie: owner.cookie,
      },
    );
    expect(history.data).toEqual([expect.objectContaining({ id: invoice.id, projectId: null, projectName: 'Invoiced', total: 1800, status: 'paid' })]);
    const stranger = await createUser();
    expect((await api<unknown[]>('GET', '/v1/account/invoices', { cookie: stranger.cookie })).data).toEqual([]);
  });
});

describe('GET /v1/projects/{projectId}/stats', () => {
  it('returns five closed months and the month in progress, summed by category', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const now = new Date();
    const monthsAgo = (n: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 2, 12));
    const charge = (n: number, category: string, amount: number) =>
      queryRows(sql`insert into project_charges (id, project_id, category, amount, description, charged_at)
        values (${`chg_${Math.random().toString(36).slice(2)}`}, ${projectId}, ${category}, ${amount}, 'test', ${monthsAgo(n).toISOString()})`);
    await charge(0, 'servers', 1200);
    await charge(0, 'servers', 300);
    await charge(2, 'redis', 700);
    await charge(7, 'servers', 99999);
    const history = (await api<{ resourceHistory: ResourceHistoryEntry[] }>('GET', `/v1/projects/${projectId}/stats`, { cookie: owner.cookie })).data
      .resourceHistory;
    expect(history).toHaveLength(6);
    expect(history.map((h) => h.inProgress)).toEqual([false, false, false, false, false, true]);
    const key = (n: number) => monthsAgo(n).toISOString().slice(0, 7);
    expect(history.map((h) => h.month)).toEqual([5, 4, 3, 2, 1, 0].map(key));
    expect(history[5]).toMatchObject({ servers: 1500, redis: 0 });
    expect(history[3]).toMatchObject({ redis: 700, servers: 0 });
    expect(history.reduce((sum, h) => sum + Number(h.servers), 0)).toBe(1500);
  });
});

import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Preview } from '../../server/billing/preview';
import { purgeRetainedDatabases } from '../../server/domains/databases/retention';
import type { Tenant } from '../../server/domains/databases/schema';
import { enforceStorageLimits } from '../../server/domains/databases/storage';
import { databasesSuspension } from '../../server/domains/databases/suspension';
import { dispatchAllPendingEvents } from '../../server/platform/events/dispatch';
import { getTenantClusterProvider } from '../../server/providers/databases';
import { ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { paidProject } from './serverFixtures';

const CLUSTER = process.env.TEST_TENANT_CLUSTER_URL;
const base = (projectId: string) => `/v1/projects/${projectId}/databases/shared`;
let counter = 0;
/** Database names belong to the cluster, which every test file and run shares: each is new. */
const uniqueName = () => `t${process.pid}_${Date.now().toString(36)}_${counter++}`;

const open: postgres.Sql[] = [];
/** A client of the tenant's own (TLS required); closed after each test. */
function connect(uri: string): postgres.Sql {
  const client = postgres(uri, { max: 1, ssl: 'require', connect_timeout: 5, idle_timeout: 1, onnotice: () => {} });
  open.push(client);
  return client;
}

const admin = CLUSTER ? postgres(CLUSTER, { max: 1, onnotice: () => {} }) : undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((client) => client.end({ timeout: 1 }).catch(() => undefined)));
});

afterAll(async () => {
  await admin?.end();
});

async function create(user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  return api<Tenant>('POST', base(projectId), { cookie: user.cookie, body: { dbName: uniqueName(), ...body } });
}

async function createTenant(user: TestUser, projectId: string, body: Record<string, unknown> = {}): Promise<Tenant & { dbPassword: string }> {
  const res = await create(user, projectId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.data as Tenant & { dbPassword: string };
}

describe.skipIf(!CLUSTER)('shared PostgreSQL tenants on a real cluster', () => {
  it('lists the tier table, previews the charge and charges exactly it, answering SPEC-shaped credentials once', async () => {
    const { owner, projectId } = await paidProject();
    const prices = await api<{ tier: string; monthly: number; currency: string }[]>('GET', `${base(projectId)}/prices`, { cookie: owner.cookie });
    expect(prices.data.map(({ tier, monthly, currency }) => ({ tier, monthly, currency }))).toEqual([
      { tier: 'MICRO', monthly: 500, currency: 'USD' },
      { tier: 'STARTER', monthly: 900, currency: 'USD' },
      { tier: 'GROWTH', monthly: 2900, currency: 'USD' },
      { tier: 'SCALE', monthly: 9900, currency: 'USD' },
    ]);
    const availability = await api('GET', `${base(projectId)}/availability`, { cookie: owner.cookie });
    expect(availability.data).toEqual({ available: true, reason: null, pooler: true, retentionDays: 14 });
    const preview = await api<Preview>('GET', `${base(projectId)}/preview?tier=GROWTH`, { cookie: owner.cookie });
    expect(preview.data.monthly).toBe(2900);

    const tenant = await createTenant(owner, projectId, { tier: 'GROWTH' });
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBe(preview.data.dueToday);
    expect(tenant).toMatchObject({
      status: 'ACTIVE',
      tier: 'GROWTH',
      poolMode: 'TRANSACTION',
      limits: { maxConnections: 10, poolSize: 15, storageBytes: 20e9 },
    });
    const { dbUser, dbPassword, host, port, dbName, poolPort, poolName } = tenant;
    expect(tenant.connectionUri).toBe(`postgresql://${dbUser}:${dbPassword}@${host}:${port}/${dbName}?sslmode=require`);
    expect(tenant.poolConnectionUri).toBe(`postgresql://${dbUser}:${dbPassword}@${host}:${poolPort}/${poolName}?sslmode=require`);

    const client = connect(tenant.connectionUri);
    await client`create table orders (id serial primary key, note text)`;
    await client`insert into orders (note) values ('first')`;
    expect(await client`select note from orders`).toEqual([{ note: 'first' }]);
    const pooled = connect(tenant.poolConnectionUri!);
    expect(await pooled`select count(*)::int as n from orders`).toEqual([{ n: 1 }]);

    const read = await api<Tenant>('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie });
    expect(read.data).not.toHaveProperty('dbPassword');
    expect(read.data.storage.usedBytes).toBeGreaterThan(1_000_000);
    expect(read.data.storage.readOnly).toBe(false);
    expect(read.data.connectionUri).toBe(`postgresql://${dbUser}@${host}:${port}/${dbName}?sslmode=require`);
    expect(JSON.stringify(read.data)).not.toContain(dbPassword);
    const list = await api<Tenant[]>('GET', base(projectId), { cookie: owner.cookie });
    expect(list.data.map((t) => t.tenantId)).toEqual([tenant.tenantId]);
    expect(JSON.stringify(list.data)).not.toContain(dbPassword);
  });

  it('refuses bad names with 422, a name taken on the cluster with 409, no card with 402, and API keys with 403', async () => {
    const { owner, projectId } = await paidProject();
    for (const dbName of ['Orders', 'pg_orders', 'my-db', 'postgres', 'a'.repeat(41), '']) {
      expectError(await create(owner, projectId, { dbName }), 422, 'VALIDATION_ERROR');
    }
    expectError(await create(owner, projectId, { tier: 'HUGE' }), 422, 'VALIDATION_ERROR');
    expectError(await create(owner, projectId, { poolMode: 'PIPELINE' }), 422, 'VALIDATION_ERROR');

    const taken = await createTenant(owner, projectId);
    const elsewhere = await paidProject();
    expectError(await create(elsewhere.owner, elsewhere.projectId, { dbName: taken.dbName }), 409, 'CONFLICT');
    // A role of that name on the cluster (not a tenant of ours) holds the name too.
    const roleName = uniqueName();
    await admin!.unsafe(`create role "${roleName}" nologin`);
    try {
      expectError(await create(owner, projectId, { dbName: roleName }), 409, 'CONFLICT');
    } finally {
      await admin!.unsafe(`drop role "${roleName}"`);
    }

    const unpaid = await createUser();
    const { projectId: cardless } = await createProject(unpaid);
    expectError(await create(unpaid, cardless), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    const member = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${cardless}, ${member.id}, 'member')`);
    expectError(await create(member, cardless), 402, 'BILLER_PAYMENT_METHOD_REQUIRED');

    const key = await createApiKey(owner, projectId, ['databases:read', 'databases:write', 'projects:read']);
    expectError(await api('GET', base(projectId), { key: key.key }), 403, 'FORBIDDEN');
    expectError(await api('POST', base(projectId), { key: key.key, body: { dbName: uniqueName() } }), 403, 'FORBIDDEN');
    expectError(await api('GET', base(projectId), {}), 401, 'UNAUTHORIZED');
    const viewer = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expect((await api('GET', base(projectId), { cookie: viewer.cookie })).status).toBe(200);
    expectError(await create(viewer, projectId), 403, 'FORBIDDEN');
    const outsider = await createUser();
    expectError(await api('GET', `${base(projectId)}/${taken.tenantId}`, { cookie: outsider.cookie }), 403, 'FORBIDDEN');
    expectError(await api('GET', `${base(elsewhere.projectId)}/${taken.tenantId}`, { cookie: elsewhere.owner.cookie }), 404, 'NOT_FOUND');
  });

  it('refunds the charge and keeps nothing when the cluster fails, and keeps a tenant whose revocation fails', async () => {
    const { owner, projectId } = await paidProject();
    const provider = getTenantClusterProvider();
    const failing = vi.spyOn(provider, 'createTenant').mockRejectedValueOnce(new Error('cluster went away'));
    const refused = await create(owner, projectId);
    expectError(refused, 502, 'UPSTREAM_ERROR');
    expect(failing).toHaveBeenCalledTimes(1);
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount_refunded).toBe(intent!.amount);
    expect((await api<Tenant[]>('GET', base(projectId), { cookie: owner.cookie })).data).toEqual([]);

    const tenant = await createTenant(owner, projectId);
    vi.spyOn(provider, 'revokeTenant').mockRejectedValueOnce(new Error('cluster went away'));
    expectError(await api('DELETE', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie }), 502, 'UPSTREAM_ERROR');
    expect((await api('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie })).status).toBe(200);
    const [item] = await queryRows<{ ended_at: string | null }>(sql`select ended_at from billing_items where resource_id = ${tenant.tenantId}`);
    expect(item!.ended_at).toBeNull();
    expect(await connect(tenant.connectionUri)`select 1 as ok`).toEqual([{ ok: 1 }]);
  });

  it('enforces the tier’s connection limit at the role, and keeps one tenant out of another’s database', async () => {
    const { owner, projectId } = await paidProject();
    const a = await createTenant(owner, projectId, { tier: 'MICRO' });
    const b = await createTenant(owner, projectId, { tier: 'MICRO' });
    const first = connect(a.connectionUri);
    const second = connect(a.connectionUri);
    await Promise.all([first`select 1`, second`select 1`]);
    await expect(connect(a.connectionUri)`select 1`).rejects.toThrow(/too many connections/);
    await expect(connect(a.connectionUri.replace(`/${a.dbName}?`, `/${b.dbName}?`))`select 1`).rejects.toThrow(/pg_hba|permission denied/);
    await expect(connect(a.connectionUri.replace(`/${a.dbName}?`, '/postgres?'))`select 1`).rejects.toThrow(/pg_hba|permission denied/);
    await expect(connect(a.connectionUri.replace('sslmode=require', 'sslmode=disable'))`select 1`).rejects.toThrow();
  });

  it('rotates the password: the old one is refused directly and through the pool, open sessions are dropped', async () => {
    const { owner, projectId } = await paidProject();
    const tenant = await createTenant(owner, projectId, { poolMode: 'SESSION' });
    const direct = connect(tenant.connectionUri);
    const pooled = connect(tenant.poolConnectionUri!);
    await Promise.all([direct`select 1`, pooled`select 1`]);

    const rotated = await api<Tenant & { dbPassword: string }>('POST', `${base(projectId)}/${tenant.tenantId}/rotate-password`, { cookie: owner.cookie });
    expect(rotated.status).toBe(200);
    expect(rotated.data.dbPassword).not.toBe(tenant.dbPassword);
    expect(rotated.data.connectionUri).toContain(`:${rotated.data.dbPassword}@`);
    await expect(direct`select 1`).rejects.toThrow();
    await expect(pooled`select 1`).rejects.toThrow();
    await expect(connect(tenant.connectionUri)`select 1`).rejects.toThrow(/password authentication failed/);
    await expect(connect(tenant.poolConnectionUri!)`select 1`).rejects.toThrow(/SASL authentication failed|password authentication failed/);
    expect(await connect(rotated.data.connectionUri)`select 1 as ok`).toEqual([{ ok: 1 }]);
    expect(await connect(rotated.data.poolConnectionUri!)`select 1 as ok`).toEqual([{ ok: 1 }]);
    const [event] = await queryRows<{ type: string }>(
      sql`select type from events where project_id = ${projectId} and type = 'database_tenant.password_rotated'`,
    );
    expect(event).toBeDefined();
  });

  it('changes the tier at once, charging an upgrade and refusing a downgrade the data does not fit', async () => {
    const { owner, projectId } = await paidProject();
    const tenant = await createTenant(owner, projectId, { tier: 'MICRO' });
    const patch = (tier: string) => api<Tenant>('PATCH', `${base(projectId)}/${tenant.tenantId}/tier`, { cookie: owner.cookie, body: { tier } });
    expectError(await patch('MICRO'), 409, 'CONFLICT');
    const preview = await api<{ dueToday: number }>('GET', `${base(projectId)}/${tenant.tenantId}/tier-preview?tier=GROWTH`, { cookie: owner.cookie });
    const up = await patch('GROWTH');
    expect(up.data).toMatchObject({ tier: 'GROWTH', limits: { maxConnections: 10, poolSize: 15 } });
    const intents = await ledgerIntents(owner.id);
    expect(intents.at(-1)!.amount).toBe(preview.data.dueToday);
    const [role] = await admin!<{ rolconnlimit: number }[]>`select rolconnlimit from pg_roles where rolname = ${tenant.dbUser}`;
    expect(role!.rolconnlimit).toBe(10);
    vi.spyOn(getTenantClusterProvider(), 'databaseSize').mockResolvedValue(3e9);
    expectError(await patch('MICRO'), 409, 'CONFLICT');
    const [item] = await queryRows<{ monthly: number }>(sql`select monthly from billing_items where resource_id = ${tenant.tenantId}`);
    expect(item!.monthly).toBe(2900);
  });

  it('makes a tenant over its storage limit read-only and tells the project, and writable again once under', async () => {
    const { owner, projectId } = await paidProject();
    const tenant = await createTenant(owner, projectId, { tier: 'MICRO' });
    await connect(tenant.connectionUri)`create table t (x int)`;
    let used = 2e9 + 1;
    const provider = getTenantClusterProvider();
    const realSize = provider.databaseSize.bind(provider);
    const size = vi.spyOn(provider, 'databaseSize').mockImplementation((name) => (name === tenant.dbName ? Promise.resolve(used) : realSize(name)));
    expect(await enforceStorageLimits()).toMatchObject({ madeReadOnly: 1 });
    await expect(connect(tenant.connectionUri)`insert into t values (1)`).rejects.toThrow(/read-only transaction/);
    const read = await api<Tenant>('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie });
    expect(read.data.storage).toMatchObject({ usedBytes: 2e9 + 1, readOnly: true });
    await dispatchAllPendingEvents();
    const notified = await queryRows<{ title: string }>(sql`select title from notifications where user_id = ${owner.id}`);
    expect(notified.map((n) => n.title)).toContain('Database is read-only');

    used = 1e9;
    expect(await enforceStorageLimits()).toMatchObject({ madeWritable: 1 });
    await connect(tenant.connectionUri)`insert into t values (1)`;
    size.mockRestore();
    await enforceStorageLimits();
    const measured = await api<Tenant>('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie });
    expect(measured.data.storage.usedBytes).toBeGreaterThan(1_000_000);
    expect(measured.data.storage.readOnly).toBe(false);
  });

  it('refuses logins while the project is suspended, and lets them in once paid', async () => {
    const { owner, projectId } = await paidProject();
    const tenant = await createTenant(owner, projectId);
    await databasesSuspension.suspend(projectId);
    await expect(connect(tenant.connectionUri)`select 1`).rejects.toThrow(/not permitted to log in/);
    expect((await api<Tenant>('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie })).data.suspended).toBe(true);
    expect(await databasesSuspension.projectsWithSuspendedResources()).toContain(projectId);
    await databasesSuspension.resume(projectId);
    expect(await connect(tenant.connectionUri)`select 1 as ok`).toEqual([{ ok: 1 }]);
  });

  it('deletes: logins refused, pool removed, billing stopped, the database retained until the retention ends', async () => {
    const { owner, projectId } = await paidProject();
    const tenant = await createTenant(owner, projectId);
    await connect(tenant.connectionUri)`create table kept (x int)`;
    const blocked = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(blocked, 409, 'CONFLICT');
    expect(JSON.stringify(blocked.body)).toContain('1 shared PostgreSQL database');

    expect((await api('DELETE', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie })).status).toBe(200);
    expectError(await api('GET', `${base(projectId)}/${tenant.tenantId}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expect((await api<Tenant[]>('GET', base(projectId), { cookie: owner.cookie })).data).toEqual([]);
    await expect(connect(tenant.connectionUri)`select 1`).rejects.toThrow();
    await expect(connect(tenant.poolConnectionUri!)`select 1`).rejects.toThrow();
    const [item] = await queryRows<{ ended_at: string | null }>(sql`select ended_at from billing_items where resource_id = ${tenant.tenantId}`);
    expect(item!.ended_at).not.toBeNull();
    expect(await admin!`select datname from pg_database where datname = ${tenant.dbName}`).toHaveLength(1);
    expectError(await create(owner, projectId, { dbName: tenant.dbName }), 409, 'CONFLICT');

    expect(await purgeRetainedDatabases(new Date(Date.now() + 13 * 24 * 3600 * 1000))).toBe(0);
    expect(await purgeRetainedDatabases(new Date(Date.now() + 15 * 24 * 3600 * 1000))).toBe(1);
    expect(await admin!`select datname from pg_database where datname = ${tenant.dbName}`).toHaveLength(0);
    expect(await admin!`select rolname from pg_roles where rolname in (${tenant.dbName}, ${tenant.dbUser})`).toHaveLength(0);
    expect((await create(owner, projectId, { dbName: tenant.dbName })).status).toBe(200);
  });
});

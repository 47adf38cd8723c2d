import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import { closeMonthForProject } from '../../server/billing/monthlyClose';
import { effectiveSecrets } from '../../server/domains/secrets';
import type { CreatedSecret, Secret, SecretAuditEntry, SecretsUsage, UpdatedSecret } from '../../server/domains/secrets/schema';
import type { Preview } from '../../server/billing/previewSchema';
import { addCard, CARDS, ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';

const PACK_PRICE = 300;
const url = (projectId: string, suffix = '') => `/v1/projects/${projectId}/secrets${suffix}`;

function setPackPrice(price: string | undefined) {
  if (price === undefined) delete process.env.SECRETS_PACK_PRICE_MONTHLY;
  else process.env.SECRETS_PACK_PRICE_MONTHLY = price;
  resetConfigForTests();
}

beforeAll(() => setPackPrice(String(PACK_PRICE)));
afterAll(() => setPackPrice(undefined));

let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  owner = await createUser('Ada Owner');
  ({ projectId } = await createProject(owner));
});

async function createSecret(user: TestUser, project: string, body: Record<string, unknown>) {
  return api<CreatedSecret>('POST', url(project), { cookie: user.cookie, body });
}

async function withRole(role: 'admin' | 'member' | 'viewer'): Promise<TestUser> {
  const user = await createUser(`A ${role}`);
  await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${user.id}, ${role})`);
  return user;
}

describe('creating secrets', () => {
  it('answers 201 with the value and its mask once, version 1, and who made it', async () => {
    const value = 'postgres://app:s3cret-password@db.internal:5432/app';
    const res = await createSecret(owner, projectId, { name: 'DATABASE_URL', value, description: 'Main database' });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({
      name: 'DATABASE_URL',
      environment: 'default',
      description: 'Main database',
      version: 1,
      value,
      createdBy: owner.id,
      updatedBy: owner.id,
      createdByUser: { id: owner.id, name: 'Ada Owner', email: owner.email },
      updatedByUser: { id: owner.id, name: 'Ada Owner', email: owner.email },
    });
    expect(res.data.id).toMatch(/^sec_/);
    expect(res.data.maskedValue).toBe('po••••••••pp');
  });

  it('masks short values entirely', async () => {
    const res = await createSecret(owner, projectId, { name: 'SHORT', value: 'abc', environment: 'staging' });
    expect(res.data.maskedValue).toBe('••••••••');
  });

  it('refuses names, values, descriptions and environments outside the rules with 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'lower_case', value: 'x' }, 'name'],
      [{ name: '1STARTS_WITH_DIGIT', value: 'x' }, 'name'],
      [{ name: 'HAS-DASH', value: 'x' }, 'name'],
      [{ name: 'EMPTY_VALUE', value: '' }, 'value'],
      [{ name: 'LONG_VALUE', value: 'x'.repeat(10_001) }, 'value'],
      [{ name: 'LONG_DESCRIPTION', value: 'x', description: 'd'.repeat(501) }, 'description'],
      [{ name: 'BAD_ENV', value: 'x', environment: 'qa' }, 'environment'],
      [{ value: 'x' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await createSecret(owner, projectId, body);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(Object.keys((res.body as unknown as { error: { fields: Record<string, string> } }).error.fields), JSON.stringify(body)).toContain(field);
    }
    const longest = await createSecret(owner, projectId, {
      name: 'LONGEST',
      value: 'v'.repeat(10_000),
      description: 'd'.repeat(500),
      environment: 'development',
    });
    expect(longest.status).toBe(201);
    await api('DELETE', url(projectId, `/${longest.data.id}`), { cookie: owner.cookie });
    await api('DELETE', url(projectId, `/${(await listSecrets(owner, projectId, '?environment=staging'))[0]!.id}`), { cookie: owner.cookie });
  });

  it('answers 409 for a name taken in the same environment, and allows it in another', async () => {
    const again = await createSecret(owner, projectId, { name: 'DATABASE_URL', value: 'other' });
    expectError(again, 409, 'CONFLICT');
    expect(again.body).toMatchObject({ error: { fields: { name: expect.stringContaining('DATABASE_URL') } } });
    const production = await createSecret(owner, projectId, { name: 'DATABASE_URL', value: 'prod-value', environment: 'production' });
    expect(production.status).toBe(201);
  });

  it('makes one secret of concurrent creations with the same name (the unique index decides)', async () => {
    const { projectId: fresh } = await createProject(owner);
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => createSecret(owner, fresh, { name: 'RACE', value: `v${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await listSecrets(owner, fresh)).toHaveLength(1);
  });

  it('lets exactly one of concurrent creations of different names take the last free place', async () => {
    const { projectId: fresh } = await createProject(owner);
    for (let i = 0; i < 4; i += 1) expect((await createSecret(owner, fresh, { name: `KEPT_${i}`, value: 'v' })).status).toBe(201);
    const racing = await Promise.all(['R1', 'R2', 'R3', 'R4'].map((name) => createSecret(owner, fresh, { name, value: 'v' })));
    expect(racing.map((r) => (r.body?.success === false ? r.body.error.code : r.status)).sort()).toEqual([
      201,
      'SECRET_LIMIT_REACHED',
      'SECRET_LIMIT_REACHED',
      'SECRET_LIMIT_REACHED',
    ]);
    expect(await listSecrets(owner, fresh)).toHaveLength(5);
  });
});

async function listSecrets(user: TestUser, project: string, query = ''): Promise<Secret[]> {
  return (await api<Secret[]>('GET', url(project, query), { cookie: user.cookie })).data;
}

describe('reading secrets', () => {
  it('lists metadata with the users and never a value', async () => {
    const list = await listSecrets(owner, projectId);
    expect(list.map((s) => `${s.environment}/${s.name}`)).toEqual(['default/DATABASE_URL', 'production/DATABASE_URL']);
    for (const secret of list) {
      expect(secret).not.toHaveProperty('value');
      expect(secret).not.toHaveProperty('maskedValue');
      expect(secret).not.toHaveProperty('sealedValue');
      expect(secret.createdByUser).toEqual({ id: owner.id, name: 'Ada Owner', email: owner.email });
    }
    const one = await api<Secret>('GET', url(projectId, `/${list[0]!.id}`), { cookie: owner.cookie });
    expect(one.data).toEqual(list[0]);
    expect(JSON.stringify(one.body)).not.toContain('s3cret-password');
  });

  it('filters by environment: the secrets of that environment only, or the effective set with effective=true', async () => {
    await createSecret(owner, projectId, { name: 'API_TOKEN', value: 'default-token' });
    expect((await listSecrets(owner, projectId, '?environment=production')).map((s) => s.name)).toEqual(['DATABASE_URL']);
    const effective = await listSecrets(owner, projectId, '?environment=production&effective=true');
    expect(effective.map((s) => `${s.environment}/${s.name}`)).toEqual(['default/API_TOKEN', 'production/DATABASE_URL']);
    expectError(await api('GET', url(projectId, '?environment=qa'), { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
  });

  it('resolves the plaintext set a deployment receives per environment', async () => {
    expect(await effectiveSecrets(projectId, 'production')).toEqual({
      API_TOKEN: 'default-token',
      DATABASE_URL: 'prod-value',
    });
    expect(await effectiveSecrets(projectId, 'staging')).toEqual({
      API_TOKEN: 'default-token',
      DATABASE_URL: 'postgres://app:s3cret-password@db.internal:5432/app',
    });
  });

  it('answers 404 for a secret of another project or none', async () => {
    const { projectId: other } = await createProject(owner);
    const [secret] = await listSecrets(owner, projectId);
    expectError(await api('GET', url(other, `/${secret!.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', url(projectId, '/sec_nope'), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('PATCH', url(other, `/${secret!.id}`), { cookie: owner.cookie, body: { value: 'x' } }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', url(other, `/${secret!.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', url(other, `/${secret!.id}/audit`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('encryption at rest', () => {
  it('stores no plaintext: the row holds a sealed value bound to the secret', async () => {
    const value = 'plaintext-needle-7f3a9c';
    const created = await createSecret(owner, projectId, { name: 'NEEDLE', value, environment: 'development' });
    const rows = await queryRows<Record<string, unknown>>(sql`select * from secrets where id = ${created.data.id}`);
    expect(JSON.stringify(rows)).not.toContain(value);
    expect(String(rows[0]!.sealed_value)).toMatch(/^v1\./);
    const events = await queryRows<{ payload: unknown }>(sql`select payload from events where project_id = ${projectId}`);
    expect(JSON.stringify(events)).not.toContain(value);
    expect(JSON.stringify(await queryRows(sql`select * from audit_entries where project_id = ${projectId}`))).not.toContain(value);
  });
});

describe('updating and deleting', () => {
  it('replaces the value once shown, one version up, keeping the description unless given', async () => {
    const [secret] = await listSecrets(owner, projectId, '?environment=default');
    const admin = await withRole('admin');
    const res = await api<UpdatedSecret>('PATCH', url(projectId, `/${secret!.id}`), { cookie: admin.cookie, body: { value: 'rotated-token' } });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ version: 2, value: 'rotated-token', description: secret!.description, updatedBy: admin.id });
    expect(res.data.updatedByUser).toEqual({ id: admin.id, name: admin.name, email: admin.email });
    expect(res.data).not.toHaveProperty('maskedValue');
    const again = await api<UpdatedSecret>('PATCH', url(projectId, `/${secret!.id}`), {
      cookie: owner.cookie,
      body: { value: 'third', description: 'New words' },
    });
    expect(again.data).toMatchObject({ version: 3, description: 'New words' });
    expectError(await api('PATCH', url(projectId, `/${secret!.id}`), { cookie: owner.cookie, body: { description: 'no value' } }), 422, 'VALIDATION_ERROR');
    expect((await effectiveSecrets(projectId, 'staging'))[secret!.name]).toBe('third');
  });

  it('deletes with 204 and no body, keeps the audit trail, and answers 404 after', async () => {
    const created = await createSecret(owner, projectId, { name: 'TO_DELETE', value: 'bye' });
    await api('PATCH', url(projectId, `/${created.data.id}`), { cookie: owner.cookie, body: { value: 'bye again' } });
    const deleted = await api('DELETE', url(projectId, `/${created.data.id}`), { cookie: owner.cookie });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expectError(await api('GET', url(projectId, `/${created.data.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', url(projectId, `/${created.data.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');

    const trail = await api<SecretAuditEntry[]>('GET', url(projectId, `/${created.data.id}/audit`), { cookie: owner.cookie });
    expect(trail.data.map((e) => e.action)).toEqual(['DELETED', 'UPDATED', 'CREATED']);
    for (const entry of trail.data) {
      expect(entry).toMatchObject({ secretId: created.data.id, actor: { id: owner.id, name: owner.name, email: owner.email } });
      expect(entry.id).toMatch(/^sau_/);
    }
    const types = await queryRows<{ type: string }>(
      sql`select type from events where project_id = ${projectId} and payload->>'secretId' = ${created.data.id} order by created_at`,
    );
    expect(types.map((t) => t.type)).toEqual(['secret.created', 'secret.updated', 'secret.deleted']);
  });
});

describe('roles and scopes', () => {
  it('lets members and viewers read but not write or read the audit; admins write', async () => {
    const [secret] = await listSecrets(owner, projectId);
    for (const role of ['member', 'viewer'] as const) {
      const user = await withRole(role);
      expect((await listSecrets(user, projectId)).length).toBeGreaterThan(0);
      expect((await api('GET', url(projectId, '/usage'), { cookie: user.cookie })).status).toBe(200);
      expectError(await createSecret(user, projectId, { name: 'NOPE', value: 'x' }), 403, 'FORBIDDEN');
      expectError(await api('PATCH', url(projectId, `/${secret!.id}`), { cookie: user.cookie, body: { value: 'x' } }), 403, 'FORBIDDEN');
      expectError(await api('DELETE', url(projectId, `/${secret!.id}`), { cookie: user.cookie }), 403, 'FORBIDDEN');
      expectError(await api('GET', url(projectId, `/${secret!.id}/audit`), { cookie: user.cookie }), 403, 'FORBIDDEN');
      expectError(await api('POST', url(projectId, '/upgrade'), { cookie: user.cookie, body: {} }), 403, 'FORBIDDEN');
    }
  });

  it('needs secrets:read to read and secrets:write to write with an API key', async () => {
    const reader = await createApiKey(owner, projectId, ['secrets:read']);
    const writer = await createApiKey(owner, projectId, ['secrets:write']);
    expect((await api('GET', url(projectId), { key: reader.key })).status).toBe(200);
    expectError(await api('POST', url(projectId), { key: reader.key, body: { name: 'BY_KEY', value: 'x' } }), 403, 'FORBIDDEN');
    expectError(await api('GET', url(projectId), { key: writer.key }), 403, 'FORBIDDEN');
    const made = await api<CreatedSecret>('POST', url(projectId), { key: writer.key, body: { name: 'BY_KEY', value: 'x' } });
    expect(made.status).toBe(201);
    expect((await api('DELETE', url(projectId, `/${made.data.id}`), { key: writer.key })).status).toBe(204);
  });

  it('answers 405 to methods the literal routes lack instead of reaching a secret', async () => {
    for (const [method, path] of [
      ['DELETE', '/usage'],
      ['PATCH', '/usage'],
      ['GET', '/upgrade'],
      ['DELETE', '/upgrade'],
    ] as const) {
      expectError(
        await api(method, url(projectId, path), { cookie: owner.cookie, body: method === 'PATCH' ? { value: 'x' } : undefined }),
        405,
        'METHOD_NOT_ALLOWED',
      );
    }
  });
});

describe('usage, limit and packs', () => {
  it('counts every environment against the free limit and answers 402 at the limit', async () => {
    const user = await createUser('Limit Owner');
    const { projectId: limited } = await createProject(user);
    for (let i = 0; i < 5; i += 1) {
      expect((await createSecret(user, limited, { name: `S${i}`, value: 'x', environment: i % 2 ? 'production' : 'default' })).status).toBe(201);
    }
    const usage = (await api<SecretsUsage>('GET', url(limited, '/usage'), { cookie: user.cookie })).data;
    expect(usage).toEqual({ used: 5, limit: 5, freeLimit: 5, packSize: 5, paidPacks: 0, packPrice: { monthly: PACK_PRICE, currency: 'USD' } });
    expectError(await createSecret(user, limited, { name: 'SIXTH', value: 'x' }), 402, 'SECRET_LIMIT_REACHED');
  });

  it('refuses an upgrade without a card (402), and with a declining card buys nothing', async () => {
    const user = await createUser('No Card');
    const { projectId: unpaid } = await createProject(user);
    expectError(await api('POST', url(unpaid, '/upgrade'), { cookie: user.cookie, body: {} }), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    const admin = await createUser('Admin Without Billing');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${unpaid}, ${admin.id}, 'admin')`);
    expectError(await api('POST', url(unpaid, '/upgrade'), { cookie: admin.cookie, body: {} }), 402, 'BILLER_PAYMENT_METHOD_REQUIRED');

    expect((await addCard(user, unpaid, CARDS.declinesOnCharge)).status).toBe(201);
    expectError(await api('POST', url(unpaid, '/upgrade'), { cookie: user.cookie, body: { packs: 2 } }), 402, 'CARD_DECLINED');
    const usage = (await api<SecretsUsage>('GET', url(unpaid, '/usage'), { cookie: user.cookie })).data;
    expect(usage).toMatchObject({ paidPacks: 0, limit: 5 });
    expect(await queryRows(sql`select id from billing_items where project_id = ${unpaid}`)).toEqual([]);
  });

  it('validates packs from 1 to 20', async () => {
    for (const packs of [0, 21, 1.5, 'many']) {
      expectError(await api('POST', url(projectId, '/upgrade'), { cookie: owner.cookie, body: { packs } }), 422, 'VALIDATION_ERROR');
    }
    expectError(await api('GET', url(projectId, '/upgrade/preview?packs=21'), { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
  });

  it('charges the preview, raises the limit, and bills the packs at the monthly close; deleting never refunds', async () => {
    const user = await createUser('Pack Buyer');
    const { projectId: paid } = await createProject(user);
    expect((await addCard(user, paid, CARDS.ok)).status).toBe(201);
    const preview = (await api<Preview>('GET', url(paid, '/upgrade/preview?packs=2'), { cookie: user.cookie })).data;
    expect(preview.monthly).toBe(2 * PACK_PRICE);
    expect(preview.dueToday).toBeGreaterThan(0);
    expect(preview.dueToday).toBeLessThanOrEqual(2 * PACK_PRICE);

    const res = await api<SecretsUsage>('POST', url(paid, '/upgrade'), { cookie: user.cookie, body: { packs: 2 } });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ paidPacks: 2, limit: 15, used: 0 });
    expect((await ledgerIntents(user.id)).at(-1)?.amount).toBe(preview.dueToday);
    const defaulted = await api<SecretsUsage>('POST', url(paid, '/upgrade'), { cookie: user.cookie, body: {} });
    expect(defaulted.data).toMatchObject({ paidPacks: 3, limit: 20 });

    for (let i = 0; i < 6; i += 1) expect((await createSecret(user, paid, { name: `PAID_${i}`, value: 'x' })).status).toBe(201);
    const first = (await listSecrets(user, paid))[0]!;
    await api('DELETE', url(paid, `/${first.id}`), { cookie: user.cookie });
    expect((await api<SecretsUsage>('GET', url(paid, '/usage'), { cookie: user.cookie })).data).toMatchObject({ used: 5, paidPacks: 3, limit: 20 });

    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5));
    const invoice = await closeMonthForProject(paid, nextMonth);
    expect(invoice).toMatchObject({ status: 'paid', subtotal: 3 * PACK_PRICE });
    const lines = await queryRows<{ description: string; amount: number }>(
      sql`select description, amount from invoice_lines where invoice_id = ${invoice!.id} order by amount`,
    );
    expect(lines).toEqual([
      { description: 'Secrets: 1 pack of 5', amount: PACK_PRICE },
      { description: 'Secrets: 2 packs of 5', amount: 2 * PACK_PRICE },
    ]);
    const upgraded = await queryRows<{ payload: Record<string, unknown> }>(
      sql`select payload from events where project_id = ${paid} and type = 'secrets.upgraded' order by created_at`,
    );
    expect(upgraded.map((e) => e.payload)).toEqual([
      { packs: 2, paidPacks: 2, limit: 15, by: user.id },
      { packs: 1, paidPacks: 3, limit: 20, by: user.id },
    ]);
  });

  it('answers packPrice null and refuses upgrades and previews with SECRET_PACKS_NOT_SOLD when no price is configured', async () => {
    setPackPrice(undefined);
    try {
      const usage = (await api<SecretsUsage>('GET', url(projectId, '/usage'), { cookie: owner.cookie })).data;
      expect(usage.packPrice).toBeNull();
      expectError(await api('POST', url(projectId, '/upgrade'), { cookie: owner.cookie, body: {} }), 400, 'SECRET_PACKS_NOT_SOLD');
      expectError(await api('GET', url(projectId, '/upgrade/preview'), { cookie: owner.cookie }), 400, 'SECRET_PACKS_NOT_SOLD');
    } finally {
      setPackPrice(String(PACK_PRICE));
    }
  });
});

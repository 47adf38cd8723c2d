import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import Redis from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { providerReports } from '../../server/app';
import { resetConfigForTests } from '../../server/platform/config';
import { checkHealth } from '../../server/platform/health';
import { clearCatalogCache } from '../../server/domains/catalog/service';
import { getRedisProvider, resetRedisProviderForTests } from '../../server/providers/redis';
import { findExecutable } from '../../server/providers/redis/index';
import { redisSuspension } from '../../server/domains/redis/suspension';
import { adoptDatabases, MAX_START_ATTEMPTS, sampleUsage, settleProvisioningDatabases } from '../../server/domains/redis/service';
import type { RedisDatabase, RedisDatabaseWithCredentials, RedisPlan, RedisRegion, RedisUsageView } from '../../server/domains/redis/schema';
import type { Preview } from '../../server/billing/preview';
import { CARDS, ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { paidProject } from './serverFixtures';

const binary = findExecutable('redis-server');
const MB = 1024 * 1024;

type Setting = 'REDIS_PROVIDER' | 'REDIS_SIM_PROVISION_SECONDS' | 'REDIS_SIM_FAIL' | 'REDIS_PORT_RANGE';

/**
 * Each change of settings makes a new provider; the one before lets go of its databases first, so
 * it does not restart a process that a later provider stops.
 */
async function configureRedis(settings: Partial<Record<Setting, string>>): Promise<void> {
  await getRedisProvider().shutdown();
  Object.assign(process.env, { REDIS_SIM_FAIL: '', REDIS_SIM_PROVISION_SECONDS: '0', ...settings });
  resetConfigForTests();
  resetRedisProviderForTests();
  clearCatalogCache();
}

/** Real databases: a port range of this file's own, so parallel files never compete for one. */
const EMBEDDED = { REDIS_PROVIDER: 'embedded', REDIS_PORT_RANGE: '27600-27699' } as const;
const SIMULATED = { REDIS_PROVIDER: 'simulator' } as const;

const base = (projectId: string) => `/v1/projects/${projectId}/redis`;

function createCall(user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  return api<RedisDatabase>('POST', base(projectId), { cookie: user.cookie, body: { name: 'cache', planSlug: 'redis-256mb', region: 'fra1', ...body } });
}

async function getDatabase(user: TestUser, projectId: string, redisId: string): Promise<RedisDatabaseWithCredentials> {
  const res = await api<RedisDatabaseWithCredentials>('GET', `${base(projectId)}/${redisId}`, { cookie: user.cookie });
  expect(res.status).toBe(200);
  return res.data;
}

async function untilReady(user: TestUser, projectId: string, redisId: string): Promise<RedisDatabaseWithCredentials> {
  const deadline = Date.now() + 20_000;
  let database = await getDatabase(user, projectId, redisId);
  while (database.status === 'PROVISIONING' && Date.now() < deadline) {
    await sleep(100);
    database = await getDatabase(user, projectId, redisId);
  }
  expect(database.status).toBe('READY');
  return database;
}

/** One reply line per inline command, straight off the socket: no client library between the test and the server. */
async function rawReplies(port: number, commands: string[]): Promise<string[]> {
  const socket = createConnection({ host: '127.0.0.1', port });
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk.toString();
      if (received.split('\r\n').length > commands.length) resolve();
    });
    socket.write(commands.map((c) => `${c}\r\n`).join(''));
  });
  socket.destroy();
  return received.split('\r\n').slice(0, commands.length);
}

const clients: Redis[] = [];
function connect(url: string): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

/** Deleted by the test, or at the end: none of this file's redis-server processes outlives it. */
const created: { user: TestUser; projectId: string; redisId: string }[] = [];
async function createReady(user: TestUser, projectId: string, body: Record<string, unknown>): Promise<RedisDatabaseWithCredentials> {
  const res = await createCall(user, projectId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  created.push({ user, projectId, redisId: res.data.id });
  return untilReady(user, projectId, res.data.id);
}

async function billingItemOf(redisId: string) {
  const [item] = await queryRows<{ monthly: number; ended_at: string | null; category: string }>(
    sql`select monthly, ended_at, category from billing_items where resource_type = 'redis' and resource_id = ${redisId}`,
  );
  return item;
}

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await configureRedis(EMBEDDED);
  for (const { redisId } of created) await getRedisProvider().deprovision(redisId);
});

beforeEach(() => configureRedis(SIMULATED));

describe('Redis catalogue', () => {
  it('lists at least five plans with every SPEC field, prices in whole units, and needs authentication', async () => {
    const user = await createUser();
    expectError(await api('GET', '/v1/redis/plans'), 401, 'UNAUTHORIZED');
    const res = await api<RedisPlan[]>('GET', '/v1/redis/plans', { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.data.length).toBeGreaterThanOrEqual(5);
    for (const plan of res.data) {
      expect(plan).toMatchObject({ provider: 'PLATFORM', engine: 'VALKEY', planType: 'RAM', throughputOps: null });
      expect(Number.isInteger(plan.memoryMb) && Number.isInteger(plan.cpuMilli)).toBe(true);
      expect(typeof plan.supportsReplication).toBe('boolean');
      expect(typeof plan.supportsPersistence).toBe('boolean');
    }
    const oneGb = res.data.find((p) => p.slug === 'redis-1gb')!;
    expect(oneGb).toMatchObject({ memoryMb: 1024, priceMonthly: 15, supportsReplication: true, supportsPersistence: true });
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
  });

  it('lists at least three regions with providers and planTypes, one of them not selling every plan', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const key = await createApiKey(user, projectId, ['projects:read']);
    const res = await api<RedisRegion[]>('GET', '/v1/redis/regions', { key: key.key });
    expect(res.status).toBe(200);
    expect(res.data.length).toBeGreaterThanOrEqual(3);
    const fra = res.data.find((r) => r.slug === 'fra1')!;
    expect(fra).toMatchObject({ providers: ['PLATFORM'], planTypes: ['RAM'] });
    const sgp = res.data.find((r) => r.slug === 'sgp1')!;
    expect(sgp.plans).not.toContain('redis-8gb');
    expect(sgp.plans).toContain('redis-1gb');
    expect(sgp.planTypes).toEqual([]);
  });
});

describe('Redis provider report', () => {
  it('tells /healthz whether databases are simulated or real', async () => {
    expect((await checkHealth(providerReports())).providers?.redis).toMatchObject({ kind: 'simulator', description: expect.stringMatching(/^Simulator/) });
    if (!binary) return;
    await configureRedis(EMBEDDED);
    expect((await checkHealth(providerReports())).providers?.redis).toMatchObject({ kind: 'embedded', description: expect.stringContaining('127.0.0.1') });
  });
});

describe('Redis validation and previews', () => {
  it('refuses names, plans, regions and options outside the rules with 422 and the field, charging nothing', async () => {
    const { owner, projectId } = await paidProject();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: 'Cache' }, 'name'],
      [{ name: '-cache' }, 'name'],
      [{ name: 'cache-' }, 'name'],
      [{ name: 'a'.repeat(41) }, 'name'],
      [{ planSlug: '' }, 'planSlug'],
      [{ region: '' }, 'region'],
      [{ dataPersistence: 'ALWAYS' }, 'dataPersistence'],
      [{ replication: 'yes' }, 'replication'],
      [{ planSlug: 'redis-64tb' }, 'planSlug'],
      [{ region: 'mars1' }, 'region'],
      [{ planSlug: 'redis-8gb', region: 'sgp1' }, 'region'],
      [{ planSlug: 'redis-256mb', replication: true }, 'replication'],
      [{ planSlug: 'redis-256mb', dataPersistence: 'AOF_EVERY_WRITE' }, 'dataPersistence'],
    ];
    for (const [body, field] of cases) {
      const res = await createCall(owner, projectId, body);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(Object.keys((res.body as unknown as { error: { fields: Record<string, string> } }).error.fields), JSON.stringify(body)).toContain(field);
    }
    expect(await ledgerIntents(owner.id)).toEqual([]);
    expect(await queryRows(sql`select id from redis_databases where project_id = ${projectId}`)).toEqual([]);
  });

  it('accepts a 40-character name and every persistence option on a plan that has it', async () => {
    const { owner, projectId } = await paidProject();
    const res = await createCall(owner, projectId, { name: 'a'.repeat(40), planSlug: 'redis-1gb', dataPersistence: 'SNAPSHOT_EVERY_12_HOURS' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ name: 'a'.repeat(40), dataPersistence: 'SNAPSHOT_EVERY_12_HOURS', replication: false });
  });

  it('answers 400 to a preview without planSlug, and a preview equal to the charge, doubled by replication', async () => {
    const { owner, projectId } = await paidProject();
    expectError(await api('GET', `${base(projectId)}/preview`, { cookie: owner.cookie }), 400, 'BAD_REQUEST');
    expectError(await api('GET', `${base(projectId)}/preview?planSlug=redis-1gb&replication=maybe`, { cookie: owner.cookie }), 400, 'BAD_REQUEST');
    expectError(await api('GET', `${base(projectId)}/preview?planSlug=redis-64tb`, { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
    const single = await api<Preview>('GET', `${base(projectId)}/preview?planSlug=redis-1gb`, { cookie: owner.cookie });
    const replicated = await api<Preview>('GET', `${base(projectId)}/preview?planSlug=redis-1gb&replication=true`, { cookie: owner.cookie });
    expect(single.data.monthly).toBe(1500);
    expect(replicated.data.monthly).toBe(3000);
    expect(replicated.data.subtotal).toBeGreaterThan(single.data.subtotal);
    const res = await createCall(owner, projectId, { planSlug: 'redis-1gb', replication: true });
    expect(res.status).toBe(200);
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBe(replicated.data.dueToday);
    expect(await billingItemOf(res.data.id)).toMatchObject({ monthly: 3000, ended_at: null, category: 'redis' });
  });
});

describe('Redis purchases', () => {
  it('answers 402 without a card and 409 for a name already in use', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    expectError(await createCall(owner, projectId), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    const paid = await paidProject();
    expect((await createCall(paid.owner, paid.projectId)).status).toBe(200);
    expectError(await createCall(paid.owner, paid.projectId), 409, 'CONFLICT');
  });

  it('creates one database and charges once for a creation repeated with the same Idempotency-Key, and for concurrent ones', async () => {
    const { owner, projectId } = await paidProject();
    const headers = { 'idempotency-key': 'create-cache-1' };
    const body = { name: 'cache', planSlug: 'redis-256mb', region: 'fra1' };
    const first = await api<RedisDatabase>('POST', base(projectId), { cookie: owner.cookie, body, headers });
    const again = await api<RedisDatabase>('POST', base(projectId), { cookie: owner.cookie, body, headers });
    expect(again.data.id).toBe(first.data.id);
    const racing = await Promise.all([createCall(owner, projectId, { name: 'racer' }), createCall(owner, projectId, { name: 'racer' })]);
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await queryRows(sql`select id from redis_databases where project_id = ${projectId}`)).toHaveLength(2);
    expect(await ledgerIntents(owner.id)).toHaveLength(2);
  });

  it('answers 402 CARD_DECLINED and creates nothing when the charge is declined', async () => {
    const { owner, projectId } = await paidProject(CARDS.declinesOnCharge);
    expectError(await createCall(owner, projectId), 402, 'CARD_DECLINED');
    expect(await queryRows(sql`select id from redis_databases where project_id = ${projectId}`)).toEqual([]);
  });

  it('answers 502 and refunds the charge when the provider cannot start the database', async () => {
    await configureRedis({ ...SIMULATED, REDIS_SIM_FAIL: 'provision' });
    const { owner, projectId } = await paidProject();
    expectError(await createCall(owner, projectId), 502, 'UPSTREAM_ERROR');
    const [intent] = await ledgerIntents(owner.id);
    expect(intent).toMatchObject({ status: 'succeeded' });
    expect(intent!.amount_refunded).toBe(intent!.amount);
    expect(await queryRows(sql`select id from redis_databases where project_id = ${projectId}`)).toEqual([]);
    expect(await queryRows(sql`select id from billing_items where project_id = ${projectId}`)).toEqual([]);
  });

  it('retries a database that fails to start, then marks it FAILED, stops billing and credits the charge back', async () => {
    await configureRedis({ ...SIMULATED, REDIS_SIM_FAIL: 'start' });
    const { owner, projectId } = await paidProject();
    const res = await createCall(owner, projectId);
    expect(res.data.status).toBe('PROVISIONING');
    const statusOf = async () => (await queryRows<{ status: string }>(sql`select status from redis_databases where id = ${res.data.id}`))[0]!.status;
    for (let i = 0; i < MAX_START_ATTEMPTS; i += 1) {
      await settleProvisioningDatabases();
      expect(await statusOf()).toBe('PROVISIONING');
    }
    await settleProvisioningDatabases();
    expect(await statusOf()).toBe('FAILED');
    expect((await getDatabase(owner, projectId, res.data.id)).status).toBe('FAILED');
    expect((await billingItemOf(res.data.id))!.ended_at).not.toBeNull();
    const [intent] = await ledgerIntents(owner.id);
    const credits = await queryRows<{ amount: number }>(sql`select amount from credit_entries where project_id = ${projectId}`);
    expect(credits).toEqual([{ amount: intent!.amount }]);
    const events = await queryRows<{ type: string }>(sql`select type from events where project_id = ${projectId} and type = 'redis.failed'`);
    expect(events).toHaveLength(1);
  });

  it('lists newest first without passwords, omits deleted ones, and hides them from other projects', async () => {
    const { owner, projectId } = await paidProject();
    const first = await createCall(owner, projectId, { name: 'first' });
    const second = await createCall(owner, projectId, { name: 'second' });
    const list = await api<RedisDatabase[]>('GET', base(projectId), { cookie: owner.cookie });
    expect(list.data.map((d) => d.name)).toEqual(['second', 'first']);
    for (const entry of list.data) expect(Object.keys(entry)).not.toContain('password');
    expect(JSON.stringify(list.body)).not.toContain((await getDatabase(owner, projectId, first.data.id)).password);
    expect((await api('DELETE', `${base(projectId)}/${second.data.id}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await api<RedisDatabase[]>('GET', base(projectId), { cookie: owner.cookie })).data.map((d) => d.name)).toEqual(['first']);
    expectError(await api('GET', `${base(projectId)}/${second.data.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    const other = await paidProject();
    expectError(await api('GET', `${base(other.projectId)}/${first.data.id}`, { cookie: other.owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${base(other.projectId)}/${first.data.id}`, { cookie: other.owner.cookie }), 404, 'NOT_FOUND');
  });

  it('reports zero usage while provisioning', async () => {
    await configureRedis({ ...SIMULATED, REDIS_SIM_PROVISION_SECONDS: '600' });
    const { owner, projectId } = await paidProject();
    const res = await createCall(owner, projectId, { planSlug: 'redis-1gb', replication: true });
    const usage = await api<RedisUsageView>('GET', `${base(projectId)}/${res.data.id}/usage`, { cookie: owner.cookie });
    expect(usage.data).toEqual({
      memoryUsedBytes: 0,
      memoryLimitBytes: 512 * MB,
      networkInBytes: 0,
      networkOutBytes: 0,
      operations: 0,
      sampledAt: null,
      history: [],
    });
  });

  it('keeps a project with a live database from being deleted', async () => {
    const { owner, projectId } = await paidProject();
    const res = await createCall(owner, projectId);
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 Redis database');
    await api('DELETE', `${base(projectId)}/${res.data.id}`, { cookie: owner.cookie });
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);
  });
});

describe.skipIf(!binary)('Redis databases on real redis-server processes', () => {
  beforeEach(() => configureRedis(EMBEDDED));

  it('serves SET/GET with the returned password on a URL, refuses a wrong password, and caps memory at the plan', async () => {
    const { owner, projectId } = await paidProject();
    const created = await createCall(owner, projectId);
    expect(created.data.status).toBe('PROVISIONING');
    expect(Object.keys(created.data)).not.toContain('password');
    const database = await createReadyFrom(owner, projectId, created.data.id);
    expect(database.url).toBe(`redis://default:${encodeURIComponent(database.password)}@${database.host}:${database.port}`);
    const client = connect(database.url);
    await client.connect();
    await client.set('greeting', 'hello');
    expect(await client.get('greeting')).toBe('hello');
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(256 * MB)]);
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    const refused = await rawReplies(database.port, ['AUTH default wrong-password', 'GET greeting']);
    expect(refused[0]).toMatch(/^-WRONGPASS/);
    expect(refused[1]).toMatch(/^-NOAUTH/);
  });

  it('gives half the plan to a replica that is attached, and maps persistence options', async () => {
    const { owner, projectId } = await paidProject();
    const database = await createReady(owner, projectId, {
      name: 'replicated',
      planSlug: 'redis-1gb',
      replication: true,
      dataPersistence: 'AOF_EVERY_1_SECOND',
    });
    expect(database.usableMemoryMb).toBe(512);
    const client = connect(database.url);
    await client.connect();
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(512 * MB)]);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await client.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
    const replication = await client.info('replication');
    expect(replication).toMatch(/^connected_slaves:1/m);

    const snapshots = await createReady(owner, projectId, { name: 'snapshots', planSlug: 'redis-1gb', dataPersistence: 'SNAPSHOT_EVERY_6_HOURS' });
    const other = connect(snapshots.url);
    await other.connect();
    expect(await other.config('GET', 'save')).toEqual(['save', '21600 1']);
    expect(await other.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
  });

  it('reads usage from the database, at most a minute old, with a history the sampler extends', async () => {
    const { owner, projectId } = await paidProject();
    const database = await createReady(owner, projectId, { name: 'measured' });
    const client = connect(database.url);
    await client.connect();
    await client.set('blob', 'x'.repeat(200_000));
    const usage = await api<RedisUsageView>('GET', `${base(projectId)}/${database.id}/usage`, { cookie: owner.cookie });
    expect(usage.status).toBe(200);
    expect(usage.data.memoryUsedBytes).toBeGreaterThan(200_000);
    expect(usage.data.memoryLimitBytes).toBe(256 * MB);
    expect(usage.data.networkInBytes).toBeGreaterThan(200_000);
    expect(usage.data.operations).toBeGreaterThan(0);
    expect(usage.data.history).toHaveLength(1);
    await client.set('more', 'y'.repeat(100_000));
    const cached = await api<RedisUsageView>('GET', `${base(projectId)}/${database.id}/usage`, { cookie: owner.cookie });
    expect(cached.data.sampledAt).toBe(usage.data.sampledAt);
    expect(cached.data.memoryUsedBytes).toBe(usage.data.memoryUsedBytes);
    await sampleUsage(new Date(Date.now() + 61_000));
    const fresh = await api<RedisUsageView>('GET', `${base(projectId)}/${database.id}/usage`, { cookie: owner.cookie });
    expect(fresh.data.history).toHaveLength(2);
  });

  it('makes a suspended database read-only and gives writes back when the suspension is lifted', async () => {
    const { owner, projectId } = await paidProject();
    const database = await createReady(owner, projectId, { name: 'suspended' });
    const client = connect(database.url);
    await client.connect();
    await client.set('kept', 'yes');
    await redisSuspension.suspend(projectId);
    await expect(client.set('refused', 'no')).rejects.toThrow(/NOPERM/);
    expect(await client.get('kept')).toBe('yes');
    expect((await getDatabase(owner, projectId, database.id)).readOnly).toBe(true);
    expect(await redisSuspension.projectsWithSuspendedResources()).toContain(projectId);
    await redisSuspension.resume(projectId);
    await client.set('accepted', 'yes');
    expect((await getDatabase(owner, projectId, database.id)).readOnly).toBe(false);
  });

  it('takes its databases over when the app starts again', async () => {
    const { owner, projectId } = await paidProject();
    const database = await createReady(owner, projectId, { name: 'adopted' });
    await getRedisProvider().shutdown();
    resetRedisProviderForTests();
    await adoptDatabases();
    expect(await getRedisProvider().status(database.id)).toBe('ready');
    const client = connect(database.url);
    await client.connect();
    expect(await client.ping()).toBe('PONG');
  });

  it('kills the processes, removes the data and stops billing on delete', async () => {
    const { owner, projectId } = await paidProject();
    const database = await createReady(owner, projectId, { name: 'doomed' });
    const dataDir = path.join(process.env.DATA_DIR!, 'redis', database.id);
    expect(existsSync(dataDir)).toBe(true);
    const deleted = await api('DELETE', `${base(projectId)}/${database.id}`, { cookie: owner.cookie });
    expect(deleted.status).toBe(200);
    expect(existsSync(dataDir)).toBe(false);
    const client = connect(database.url);
    await expect(client.connect()).rejects.toThrow();
    expect((await billingItemOf(database.id))!.ended_at).not.toBeNull();
  });
});

async function createReadyFrom(user: TestUser, projectId: string, redisId: string): Promise<RedisDatabaseWithCredentials> {
  created.push({ user, projectId, redisId });
  return untilReady(user, projectId, redisId);
}

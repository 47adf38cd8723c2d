import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeUpstash, UPSTASH_PLAN_BYTES, type FakeUpstash, type FakeUpstashOptions } from '../../../test/fakes/upstashServer';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { getRedisProvider, resetRedisProviderForTests } from './index';
import { ManagedApiRedisProvider, upstreamPlan } from './managedApi';
import type { RedisSpec } from './types';

const started: FakeUpstash[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function setup(options: FakeUpstashOptions = {}, timeoutMs?: number) {
  const fake = await startFakeUpstash(options);
  started.push(fake);
  const redis = new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: fake.apiKey, timeoutMs });
  return { fake, redis };
}

let counter = 0;
const spec = (overrides: Partial<RedisSpec> = {}): RedisSpec => ({
  id: `rds_managed${++counter}`,
  memoryMb: 256,
  replication: false,
  persistence: 'NONE',
  ...overrides,
});

async function caught(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/** Every message down the cause chain, where a secret would leak into a log. */
function messages(err: unknown): string {
  const all: string[] = [];
  for (let current: unknown = err; current; current = (current as { cause?: unknown }).cause) {
    all.push(String((current as Error).message), String((current as Error).stack));
  }
  return all.join('\n');
}

function captureLogs() {
  const logger = getLogger();
  const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) => ({ level, spy: vi.spyOn(logger, level) }));
  return {
    text: () => JSON.stringify(spies.map(({ level, spy }) => [level, spy.mock.calls])),
    calls: (level: 'debug' | 'info' | 'warn' | 'error') => spies.find((s) => s.level === level)!.spy.mock.calls,
    restore: () => spies.forEach(({ spy }) => spy.mockRestore()),
  };
}

describe('ManagedApiRedisProvider: databases', () => {
  it('creates a database named after our id, with basic auth, and answers its TLS endpoint and password', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    const endpoint = await redis.provision(input);

    const [created] = fake.databases();
    expect(created).toMatchObject({ name: input.id });
    expect(endpoint).toEqual({ host: `${created!.endpoint}.upstash.io`, port: 6379, tls: true, password: created!.password });
    const create = fake.requests.find((r) => r.method === 'POST' && r.path === '/v2/redis/database');
    expect(create?.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.email}:${fake.apiKey}`).toString('base64')}`);
    expect(create?.headers['content-type']).toBe('application/json');
    expect(create?.body).toEqual({
      database_name: input.id,
      platform: 'aws',
      primary_region: 'us-east-1',
      plan: 'fixed_1gb',
      tls: true,
      eviction: false,
    });
  });

  it('maps the memory (halved with replication) to the smallest plan holding it, and replication to a read region', async () => {
    const { fake } = await setup();
    const redis = new ManagedApiRedisProvider({
      apiUrl: `${fake.url}/v2/`,
      email: fake.email,
      apiKey: fake.apiKey,
      primaryRegion: 'eu-central-1',
      readRegion: 'eu-west-1',
    });
    await redis.provision(spec({ memoryMb: 200 }));
    await redis.provision(spec({ memoryMb: 2048, replication: true }));
    await redis.provision(spec({ memoryMb: 4096, replication: true, persistence: 'AOF_EVERY_WRITE' }));

    const bodies = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v2/redis/database').map((r) => r.body);
    expect(bodies).toEqual([
      expect.objectContaining({ plan: 'fixed_250mb', primary_region: 'eu-central-1' }),
      expect.objectContaining({ plan: 'fixed_1gb', primary_region: 'eu-central-1', read_regions: ['eu-west-1'] }),
      expect.objectContaining({ plan: 'fixed_5gb', read_regions: ['eu-west-1'] }),
    ]);
    expect(bodies[0]).not.toHaveProperty('read_regions');
    expect(fake.databases().map((d) => [d.plan, d.primaryRegion, d.readRegions])).toEqual([
      ['fixed_250mb', 'eu-central-1', []],
      ['fixed_1gb', 'eu-central-1', ['eu-west-1']],
      ['fixed_5gb', 'eu-central-1', ['eu-west-1']],
    ]);
    expect(upstreamPlan({ memoryMb: 250, replication: false })).toBe('fixed_250mb');
    expect(upstreamPlan({ memoryMb: 251, replication: false })).toBe('fixed_1gb');
    expect(upstreamPlan({ memoryMb: 1_048_576, replication: false })).toBeNull();
  });

  it('refuses a spec out of range, and memory no plan holds, without calling the API', async () => {
    const { fake, redis } = await setup();
    expect((await caught(redis.provision(spec({ id: 'no spaces allowed' })))).code).toBe('VALIDATION_ERROR');
    const tooBig = await caught(redis.provision(spec({ memoryMb: 1_048_576 })));
    expect(tooBig.code).toBe('VALIDATION_ERROR');
    expect(tooBig.fields).toHaveProperty('memoryMb');
    expect(fake.requests).toEqual([]);
  });

  it('moves from provisioning to ready as the database goes from creating to active', async () => {
    const { fake, redis } = await setup({ settings: { activeAfterMs: 60_000 } });
    const input = spec();
    await redis.provision(input);
    expect(await redis.status(input.id)).toBe('provisioning');
    fake.settings.activeAfterMs = 0;
    expect(await redis.status(input.id)).toBe('ready');
    fake.database(fake.databases()[0]!.id)!.state = 'suspended';
    expect(await redis.status(input.id)).toBe('failed');
  });

  it('finds the database a retried provision already created, even from a new process, and makes no second one', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    const first = await redis.provision(input);
    expect(await redis.provision(input)).toEqual(first);

    const restarted = new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: fake.apiKey });
    expect(await restarted.provision(input)).toEqual(first);
    const [a, b] = await Promise.all([restarted.provision(spec({ id: 'rds_concurrent' })), restarted.provision(spec({ id: 'rds_concurrent' }))]);
    expect(a).toEqual(b);
    expect(fake.databases().map((d) => d.name)).toEqual([input.id, 'rds_concurrent']);
    expect(fake.requests.filter((r) => r.method === 'POST').length).toBe(2);
  });

  it('fetches the password when a listed database comes without it', async () => {
    const { fake, redis } = await setup();
    const existing = fake.insert('rds_hidden');
    fake.fail('GET /v2/redis/databases', {
      status: 200,
      body: [
        {
          database_id: existing.id,
          database_name: 'rds_hidden',
          state: 'active',
          endpoint: 'eu1-calm-heron-1.upstash.io',
          port: 6379,
          tls: true,
        },
      ],
    });
    expect(await redis.provision(spec({ id: 'rds_hidden' }))).toEqual({
      host: 'eu1-calm-heron-1.upstash.io',
      port: 6379,
      tls: true,
      password: existing.password,
    });
    expect(fake.requests.at(-1)?.path).toBe(`/v2/redis/database/${existing.id}`);
  });

  it('reads usage from the stats endpoint against the plan cap, and zeroes while creating', async () => {
    const { fake, redis } = await setup({ settings: { activeAfterMs: 60_000 } });
    const input = spec({ memoryMb: 2048, replication: true });
    await redis.provision(input);
    const database = fake.databases()[0]!;
    database.usage = { currentStorage: 5_000_000, monthlyBandwidth: 123_456, monthlyRequests: 789 };
    const limit = UPSTASH_PLAN_BYTES.fixed_1gb;

    expect(await redis.usage(input.id)).toEqual({ memoryUsedBytes: 0, memoryLimitBytes: limit, networkInBytes: 0, networkOutBytes: 0, operations: 0 });
    expect(fake.requests.some((r) => r.path.startsWith('/v2/redis/stats/'))).toBe(false);

    fake.settings.activeAfterMs = 0;
    expect(await redis.usage(input.id)).toEqual({
      memoryUsedBytes: 5_000_000,
      memoryLimitBytes: limit,
      networkInBytes: 0,
      networkOutBytes: 123_456,
      operations: 789,
    });
    expect(fake.requests.at(-1)?.path).toBe(`/v2/redis/stats/${database.id}`);
  });

  it('switches a database read-only and back through the upstream, which keeps the state', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    const id = fake.databases()[0]!.id;

    await redis.setReadOnly(input.id, true);
    expect(fake.database(id)?.readOnly).toBe(true);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v2/redis/enable-readonly/${id}` });
    await redis.setReadOnly(input.id, false);
    expect(fake.database(id)?.readOnly).toBe(false);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v2/redis/disable-readonly/${id}` });
  });

  it('names the missing read-only switch when the upstream has none, as Upstash itself does not', async () => {
    const { fake, redis } = await setup({ settings: { readOnlySwitch: false } });
    const input = spec();
    await redis.provision(input);
    const err = await caught(redis.setReadOnly(input.id, true));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The managed Redis API offers no read-only switch (POST /v2/redis/enable-readonly/{id}) while making the database read-only');
    expect(fake.databases()[0]?.readOnly).toBe(false);
  });

  it('answers NOT_FOUND for an unknown id on status, usage and setReadOnly', async () => {
    const { redis } = await setup();
    expect((await caught(redis.status('rds_unknown'))).code).toBe('NOT_FOUND');
    expect((await caught(redis.usage('rds_unknown'))).code).toBe('NOT_FOUND');
    expect((await caught(redis.setReadOnly('rds_unknown', true))).code).toBe('NOT_FOUND');
    expect((await caught(redis.status('../etc'))).code).toBe('NOT_FOUND');
  });

  it('deletes a database, and deleting an unknown or already deleted one succeeds', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    const id = fake.databases()[0]!.id;

    await redis.deprovision(input.id);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v2/redis/database/${id}` });
    expect(fake.databases()).toEqual([]);
    await expect(redis.deprovision(input.id)).resolves.toBeUndefined();
    await expect(redis.deprovision('rds_never_made')).resolves.toBeUndefined();
    expect(fake.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect((await caught(redis.status(input.id))).code).toBe('NOT_FOUND');
  });

  it('tolerates a database deleted upstream between the lookup and the delete', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    fake.fail('DELETE /v2/redis/database/:id', { status: 404, body: 'database not found' });
    await expect(redis.deprovision(input.id)).resolves.toBeUndefined();
  });

  it('re-reads by name when the cached upstream id is gone, and finds a database recreated under the same name', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    const old = fake.databases()[0]!;
    await new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: fake.apiKey }).deprovision(input.id);
    const recreated = fake.insert(input.id);
    expect(await redis.provision(input)).toMatchObject({ password: recreated.password });
    expect(fake.requests.some((r) => r.path === `/v2/redis/database/${old.id}` && r.method === 'GET')).toBe(true);
  });

  it('adopts by checking the ids exist upstream, logging the missing ones at error level', async () => {
    const { fake, redis } = await setup();
    const present = spec();
    await redis.provision(present);
    const logs = captureLogs();
    try {
      const restarted = new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: fake.apiKey });
      await restarted.adopt([present.id, 'rds_gone']);
      const errors = logs.calls('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toEqual([{ redisIds: ['rds_gone'] }, expect.stringContaining('missing')]);
      expect(await restarted.status(present.id)).toBe('ready');
    } finally {
      logs.restore();
    }
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('shuts down without touching the upstream, and describes itself by the API host', async () => {
    const { fake, redis } = await setup();
    await redis.shutdown();
    expect(fake.requests).toEqual([]);
    expect(redis.kind).toBe('managed-api');
    expect(redis.description).toBe(`Managed API: databases created through the managed Redis API at ${new URL(fake.url).host}, primary region us-east-1`);
  });
});

describe('ManagedApiRedisProvider: upstream failures', () => {
  it('treats wrong credentials as our failure, never echoing the key', async () => {
    const { fake } = await setup();
    const redis = new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: 'wrong-key-0123456789' });
    const err = await caught(redis.provision(spec()));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The managed Redis API refused our credentials while creating the database');
    expect(messages(err)).toContain('answered 401: Unauthorized');
    expect(messages(err)).not.toContain('wrong-key-0123456789');
    expect(JSON.stringify(redis)).not.toContain('wrong-key');
    expect(fake.databases()).toEqual([]);
  });

  it('turns a 5xx into an upstream error naming the operation', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    fake.fail('GET /v2/redis/database/:id', { status: 503 });
    const err = await caught(redis.status(input.id));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.status).toBe(502);
    expect(err.message).toBe('The managed Redis API failed while reading the database');
    expect(messages(err)).toContain('answered 503: Service unavailable');
  });

  it('names the rate limit on a 429', async () => {
    const { fake, redis } = await setup();
    fake.fail('GET /v2/redis/databases', { status: 429 });
    const err = await caught(redis.adopt(['rds_x']));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('rate limit');
  });

  it('gives up after the per-request timeout', async () => {
    const { fake, redis } = await setup({}, 50);
    fake.fail('GET /v2/redis/databases', { delayMs: 1_000 });
    const startedAt = Date.now();
    const err = await caught(redis.provision(spec()));
    expect(Date.now() - startedAt).toBeLessThan(900);
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The managed Redis API did not answer within 50 ms while creating the database');
  });

  it('reports an unreachable API', async () => {
    const { fake, redis } = await setup();
    await fake.close();
    const err = await caught(redis.status('rds_any'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The managed Redis API could not be reached while reading the database');
  });

  it('rejects garbage and changed shapes instead of crashing', async () => {
    const { fake, redis } = await setup();
    const input = spec();
    await redis.provision(input);
    const restarted = () => new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: fake.apiKey });

    fake.fail('GET /v2/redis/databases', { status: 200, body: '<html>maintenance</html>' });
    const garbage = await caught(restarted().status(input.id));
    expect(garbage.code).toBe('UPSTREAM_ERROR');
    expect(garbage.message).toBe('The managed Redis API sent an unexpected response while reading the database');

    fake.fail('GET /v2/redis/databases', { status: 200, body: [{ database_id: 1, database_name: input.id }] });
    expect((await caught(restarted().status(input.id))).code).toBe('UPSTREAM_ERROR');

    fake.fail('GET /v2/redis/stats/:id', { status: 200, body: { current_storage: 'lots' } });
    expect((await caught(redis.usage(input.id))).code).toBe('UPSTREAM_ERROR');

    fake.databases()[0]!.state = 'melting' as 'active';
    expect((await caught(redis.status(input.id))).message).toBe('The managed Redis API sent an unexpected response while reading the database');

    fake.fail('POST /v2/redis/enable-readonly/:id', { status: 200, body: 'maybe' });
    fake.databases()[0]!.state = 'active';
    expect((await caught(redis.setReadOnly(input.id, true))).code).toBe('UPSTREAM_ERROR');
  });

  it('carries an upstream refusal’s message, with the key redacted should the upstream echo it', async () => {
    const { fake, redis } = await setup();
    fake.fail('POST /v2/redis/database', { status: 400, body: `invalid request from ${fake.email}:${fake.apiKey}` });
    const err = await caught(redis.provision(spec()));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe(`The managed Redis API refused the request while creating the database: invalid request from ${fake.email}:[redacted]`);
    expect(messages(err)).not.toContain(fake.apiKey);
  });

  it('never puts the API key or a password in a log or an error message', async () => {
    const { fake, redis } = await setup();
    const logs = captureLogs();
    const passwords: string[] = [];
    const errors: unknown[] = [];
    let logged: string;
    try {
      const input = spec({ replication: true });
      passwords.push((await redis.provision(input)).password);
      await redis.setReadOnly(input.id, true);
      await redis.usage(input.id);
      await redis.adopt([input.id, 'rds_lost']);
      fake.fail('GET /v2/redis/database/:id', { status: 500, body: { error: `boom ${fake.apiKey}` } });
      errors.push(await caught(redis.status(input.id)));
      const wrong = new ManagedApiRedisProvider({ apiUrl: fake.url, email: fake.email, apiKey: `${fake.apiKey}x` });
      errors.push(await caught(wrong.provision(spec())));
      await redis.deprovision(input.id);
    } finally {
      // Restoring a spy forgets its calls.
      logged = logs.text();
      logs.restore();
    }
    expect(logged).toContain('redis database provisioning');
    expect(logged).toContain('rds_lost');
    for (const secret of [fake.apiKey, ...passwords]) {
      expect(logged).not.toContain(secret);
      for (const err of errors) expect(messages(err)).not.toContain(secret);
    }
  });
});

describe('Redis provider from configuration: managed-api', () => {
  const NAMES = ['REDIS_PROVIDER', 'REDIS_API_URL', 'REDIS_API_EMAIL', 'REDIS_API_KEY', 'REDIS_API_REGION', 'REDIS_API_READ_REGION'] as const;
  const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  function configure(env: Partial<Record<(typeof NAMES)[number], string>>): void {
    for (const name of NAMES) delete process.env[name];
    Object.assign(process.env, env);
    resetConfigForTests();
    resetRedisProviderForTests();
  }
  afterEach(() => {
    for (const name of NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    resetConfigForTests();
    resetRedisProviderForTests();
  });

  it('refuses managed-api without its URL, email and key', () => {
    configure({ REDIS_PROVIDER: 'managed-api' });
    expect(() => getConfig()).toThrow(/REDIS_API_URL is required when REDIS_PROVIDER=managed-api/);
    configure({ REDIS_PROVIDER: 'managed-api', REDIS_API_URL: 'https://api.upstash.com', REDIS_API_EMAIL: 'ops@example.com' });
    expect(() => getConfig()).toThrow(/REDIS_API_KEY is required when REDIS_PROVIDER=managed-api/);
    configure({ REDIS_PROVIDER: 'managed-api', REDIS_API_URL: 'https://api.upstash.com', REDIS_API_KEY: 'k' });
    expect(() => getConfig()).toThrow(/REDIS_API_EMAIL is required/);
    configure({
      REDIS_PROVIDER: 'managed-api',
      REDIS_API_URL: 'https://api.upstash.com',
      REDIS_API_EMAIL: 'a@b.c',
      REDIS_API_KEY: 'k',
      REDIS_API_READ_REGION: 'us-east-1',
    });
    expect(() => getConfig()).toThrow(/REDIS_API_READ_REGION must differ/);
  });

  it('builds the adapter for REDIS_PROVIDER=managed-api, and drives it against the configured API', async () => {
    const fake = await startFakeUpstash();
    started.push(fake);
    configure({
      REDIS_PROVIDER: 'managed-api',
      REDIS_API_URL: fake.url,
      REDIS_API_EMAIL: fake.email,
      REDIS_API_KEY: fake.apiKey,
      REDIS_API_REGION: 'eu-west-1',
      REDIS_API_READ_REGION: 'eu-west-2',
    });
    const provider = getRedisProvider();
    expect(provider).toBeInstanceOf(ManagedApiRedisProvider);
    expect(provider.kind).toBe('managed-api');
    expect(provider.description).toContain(new URL(fake.url).host);
    await provider.provision(spec({ replication: true }));
    expect(fake.databases()[0]).toMatchObject({ primaryRegion: 'eu-west-1', readRegions: ['eu-west-2'] });
  });
});

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import { api, createApiKey, createProject, createUser, expectError, type ApiResult, type TestUser } from '../helpers';

/** Small budgets for one test; the suite's own (vitest.config.ts) are huge so other tests never meet them. */
function budgets(values: { perMinute?: number; anonymous?: number; webhook?: number }): void {
  if (values.perMinute) process.env.RATE_LIMIT_PER_MINUTE = String(values.perMinute);
  if (values.anonymous) process.env.RATE_LIMIT_ANONYMOUS_PER_MINUTE = String(values.anonymous);
  if (values.webhook) process.env.RATE_LIMIT_WEBHOOK_PER_MINUTE = String(values.webhook);
  resetConfigForTests();
}

const SUITE_BUDGETS = {
  RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE,
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: process.env.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
  RATE_LIMIT_WEBHOOK_PER_MINUTE: process.env.RATE_LIMIT_WEBHOOK_PER_MINUTE,
};

afterEach(() => {
  for (const [name, value] of Object.entries(SUITE_BUDGETS)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
});

const policies = (res: ApiResult) => res.headers.get('ratelimit-policy');

/**
 * The RateLimit items of an answer. `t`, the seconds until the next unit is back, depends on how
 * long the test took so far; it is checked against `atMost` (the whole interval) and at least 1.
 */
function budgetsLeft(res: ApiResult): Array<{ policy: string; r: number; t: number }> {
  return (res.headers.get('ratelimit') ?? '').split(', ').map((item) => {
    const match = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(item);
    if (!match) throw new Error(`not a RateLimit item: ${item}`);
    return { policy: match[1]!, r: Number(match[2]), t: Number(match[3]) };
  });
}

function expectLeft(res: ApiResult, expected: { policy: string; r: number; atMost: number }): void {
  const [item] = budgetsLeft(res);
  expect(item).toMatchObject({ policy: expected.policy, r: expected.r });
  expect(item!.t).toBeGreaterThanOrEqual(1);
  expect(item!.t).toBeLessThanOrEqual(expected.atMost);
}

let addressCount = 0;
/** A client address no other test uses, so each anonymous budget starts whole. */
const freshAddress = () => ({ 'x-client-ip': `198.51.100.${(addressCount += 1)}` });

describe('the /v1 request budget', () => {
  let user: TestUser;
  let projectId: string;

  beforeAll(async () => {
    user = await createUser('Rita Ratelimit');
    ({ projectId } = await createProject(user));
  });

  const newKey = async () => (await createApiKey(user, projectId, ['projects:read', 'projects:write'])).key;

  it('puts the caller budget on every answer, success or error, counting down, then refuses with 429 and Retry-After', async () => {
    const key = await newKey();
    budgets({ perMinute: 5 });
    // Five per minute: the whole five at once, then one back every 12 seconds.
    const policy = '"default";q=5;w=60';
    const ok = await api('GET', `/v1/projects/${projectId}`, { key });
    expect(ok.status).toBe(200);
    expect(policies(ok)).toBe(policy);
    expectLeft(ok, { policy: 'default', r: 4, atMost: 12 });

    const missing = await api('GET', '/v1/no-such-thing', { key });
    expectError(missing, 404, 'NOT_FOUND');
    expect(policies(missing)).toBe(policy);
    expectLeft(missing, { policy: 'default', r: 3, atMost: 12 });

    const invalid = await api('PATCH', `/v1/projects/${projectId}`, { key, body: { name: '' } });
    expectError(invalid, 422, 'VALIDATION_ERROR');
    expect(policies(invalid)).toBe(policy);
    expectLeft(invalid, { policy: 'default', r: 2, atMost: 12 });

    const wrongMethod = await api('PUT', `/v1/projects/${projectId}`, { key });
    expectError(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    expectLeft(wrongMethod, { policy: 'default', r: 1, atMost: 12 });

    const unstorable = await api('GET', '/v1/projects/a%00b', { key });
    expectError(unstorable, 422, 'VALIDATION_ERROR');
    expectLeft(unstorable, { policy: 'default', r: 0, atMost: 12 });

    const refused = await api('GET', `/v1/projects/${projectId}`, { key });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(policies(refused)).toBe(policy);
    expectLeft(refused, { policy: 'default', r: 0, atMost: 12 });
    // Retry-After is the moment the next unit is back: the end of the effective window the RateLimit field gives.
    expect(refused.headers.get('retry-after')).toBe(String(budgetsLeft(refused)[0]!.t));
    expect(refused.body).toMatchObject({ error: { message: `Too many requests; try again in ${refused.headers.get('retry-after')} seconds` } });
    expect(refused.headers.get('x-request-id')).toBeTruthy();
  });

  it('keeps budgets apart per API key, per signed-in user and per client address', async () => {
    const [key, otherKey] = [await newKey(), await newKey()];
    const other = await createUser('Otto Other');
    budgets({ perMinute: 2, anonymous: 2 });
    const address = freshAddress();
    for (let i = 0; i < 2; i += 1) expect((await api('GET', '/v1/projects', { key: otherKey, headers: address })).status).toBe(200);
    expectError(await api('GET', '/v1/projects', { key: otherKey, headers: address }), 429, 'RATE_LIMITED');

    // The same user's other key, a user's session and anonymous calls from the same address each have their own.
    const ownKey = await api('GET', '/v1/projects', { key, headers: address });
    expect(ownKey.status).toBe(200);
    expectLeft(ownKey, { policy: 'default', r: 1, atMost: 30 });
    const session = await api('GET', '/v1/account', { cookie: other.cookie, headers: address });
    expect(session.status).toBe(200);
    expectLeft(session, { policy: 'default', r: 1, atMost: 30 });
    const anonymous = await api('GET', '/v1/infra/servers/sizes', { headers: address });
    expect(anonymous.status).toBe(200);
    expect(policies(anonymous)).toBe('"anonymous";q=2;w=60');
    expectLeft(anonymous, { policy: 'anonymous', r: 1, atMost: 30 });

    // A user's budget follows the user from one address to another.
    expect((await api('GET', '/v1/account', { cookie: other.cookie, headers: freshAddress() })).status).toBe(200);
    expectError(await api('GET', '/v1/account', { cookie: other.cookie, headers: freshAddress() }), 429, 'RATE_LIMITED');
  });

  it('gives anonymous callers a budget per client address', async () => {
    budgets({ anonymous: 3 });
    const first = freshAddress();
    for (let i = 0; i < 3; i += 1) expect((await api('GET', '/v1/infra/servers/sizes', { headers: first })).status).toBe(200);
    const refused = await api('GET', '/v1/infra/servers/sizes', { headers: first });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(policies(refused)).toBe('"anonymous";q=3;w=60');
    expectLeft(refused, { policy: 'anonymous', r: 0, atMost: 20 });
    expect((await api('GET', '/v1/infra/servers/sizes', { headers: freshAddress() })).status).toBe(200);
  });

  it('charges a key that does not resolve to its address, so guessing keys earns no fresh budget', async () => {
    budgets({ anonymous: 2 });
    const address = freshAddress();
    const guessed = await api('GET', '/v1/projects', { key: 'cpk_guessed-key-number-one', headers: address });
    expectError(guessed, 401, 'UNAUTHORIZED');
    expect(policies(guessed)).toBe('"anonymous";q=2;w=60');
    expectError(await api('GET', '/v1/projects', { key: 'cpk_guessed-key-number-two', headers: address }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/v1/projects', { key: 'cpk_guessed-key-number-three', headers: address }), 429, 'RATE_LIMITED');
    expectError(await api('GET', '/v1/infra/servers/sizes', { headers: address }), 429, 'RATE_LIMITED');
  });

  it('counts the OpenAPI document like any other answer', async () => {
    budgets({ anonymous: 1 });
    const address = freshAddress();
    const document = await api('GET', '/v1/openapi.json', { headers: address });
    expect(document.status).toBe(200);
    expect(policies(document)).toBe('"anonymous";q=1;w=60');
    expectLeft(document, { policy: 'anonymous', r: 0, atMost: 60 });
    expectError(await api('GET', '/v1/openapi.json', { headers: address }), 429, 'RATE_LIMITED');
  });

  it('gives the payment webhook a budget of its own per sending address, apart from the anonymous one', async () => {
    budgets({ anonymous: 1, webhook: 2 });
    const address = freshAddress();
    const delivery = () => api('POST', '/v1/webhooks/payments', { rawBody: '{}', headers: address });
    // With local payments the route answers 404; the answer still counts, against the webhook budget.
    const first = await delivery();
    expect(first.status).toBe(404);
    expect(policies(first)).toBe('"webhook";q=2;w=60');
    expectLeft(first, { policy: 'webhook', r: 1, atMost: 30 });
    expect((await delivery()).status).toBe(404);
    expectError(await delivery(), 429, 'RATE_LIMITED');
    expect((await api('GET', '/v1/infra/servers/sizes', { headers: address })).status).toBe(200);
  });

  it('lists the budget of a service limit that refuses after the request budget', async () => {
    budgets({ anonymous: 50 });
    const address = freshAddress();
    for (let i = 0; i < 5; i += 1) {
      expect((await api('POST', '/v1/accounts/restore', { body: { email: `someone${i}@example.com`, locale: 'en' }, headers: address })).status).toBe(200);
    }
    const refused = await api('POST', '/v1/accounts/restore', { body: { email: 'someone@example.com', locale: 'en' }, headers: address });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(policies(refused)).toBe('"anonymous";q=50;w=60, "password-reset";q=5;w=600');
    const [request, reset] = budgetsLeft(refused);
    expect(request).toMatchObject({ policy: 'anonymous', r: 44 });
    // Five per ten minutes: the next request is let in two minutes after the first.
    expect(reset).toMatchObject({ policy: 'password-reset', r: 0 });
    expect(reset!.t).toBeGreaterThan(60);
    expect(refused.headers.get('retry-after')).toBe(String(reset!.t));
  });
});

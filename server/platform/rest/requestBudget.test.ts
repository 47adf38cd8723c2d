import { describe, expect, it, vi } from 'vitest';
import { createApiKey, createProject, createUser } from '../../../test/helpers';
import type { Actor } from '../auth/actor';
import type { HeaderSource } from '../context';
import { resetConfigForTests, type AppConfig } from '../config';
import { getRateLimiter } from '../rateLimit';
import { AppError } from '../errors';
import type { RawRoute } from './rawRoutes';
import { identifyAndSpend, requestBudget, withRefusalBudget } from './requestBudget';
import type { Route } from './routeTable';

const CONFIG = { RATE_LIMIT_PER_MINUTE: 600, RATE_LIMIT_ANONYMOUS_PER_MINUTE: 60, RATE_LIMIT_WEBHOOK_PER_MINUTE: 300 } as AppConfig;
const key: Actor = { kind: 'apiKey', userId: 'usr_1', keyId: 'key_1', keyPrefix: 'pk_1', projectId: 'prj_1', scopes: [], role: 'owner' };
const session: Actor = { kind: 'session', userId: 'usr_1' };

const rawRoute = (route: Partial<RawRoute>): Route =>
  ({
    kind: 'raw',
    method: 'POST',
    path: '/hook',
    pattern: /^\/hook$/,
    route: { method: 'POST', path: '/hook', access: { kind: 'public' }, ...route },
  }) as Route;

describe('requestBudget', () => {
  it('spends an API key budget per key', () => {
    expect(requestBudget({ actor: key, ip: '203.0.113.1' }, undefined, CONFIG)).toEqual({
      policy: 'default',
      key: 'api:key:key_1',
      limit: 600,
      windowSeconds: 60,
    });
  });

  it('spends a signed-in user budget per user, of the same size', () => {
    expect(requestBudget({ actor: session, ip: '203.0.113.1' }, undefined, CONFIG)).toEqual({
      policy: 'default',
      key: 'api:user:usr_1',
      limit: 600,
      windowSeconds: 60,
    });
  });

  it.each<[string, Actor]>([
    ['no credential', { kind: 'anonymous' }],
    ['a credential that does not resolve', { kind: 'invalid', reason: 'Invalid API key' }],
  ])('spends the smaller per-address budget for %s', (_, actor) => {
    expect(requestBudget({ actor, ip: '203.0.113.7' }, undefined, CONFIG)).toEqual({
      policy: 'anonymous',
      key: 'api:ip:203.0.113.7',
      limit: 60,
      windowSeconds: 60,
    });
  });

  it('spends an inbound webhook route budget per sending address, whoever the caller is', () => {
    const hook = rawRoute({ budget: 'inboundWebhook' });
    for (const actor of [key, session, { kind: 'anonymous' } as Actor]) {
      expect(requestBudget({ actor, ip: '198.51.100.4' }, hook, CONFIG)).toEqual({
        policy: 'webhook',
        key: 'api:webhook:198.51.100.4',
        limit: 300,
        windowSeconds: 60,
      });
    }
  });

  it('spends the caller budget on a raw route without a budget of its own', () => {
    expect(requestBudget({ actor: key, ip: '198.51.100.4' }, rawRoute({}), CONFIG).policy).toBe('default');
  });
});

describe('identifyAndSpend', () => {
  const headers = (values: Record<string, string>): HeaderSource => ({ get: (name) => values[name.toLowerCase()] ?? null });

  async function withBudgets<T>(values: Record<string, string>, run: () => Promise<T>): Promise<T> {
    const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
    Object.assign(process.env, values);
    resetConfigForTests();
    try {
      return await run();
    } finally {
      for (const [name, value] of Object.entries(saved)) process.env[name] = value;
      resetConfigForTests();
    }
  }

  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }

  it('identifies an API key caller and spends the key budget until it is gone, then refuses with 429 speaking of requests', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const { key } = await createApiKey(user, projectId, ['projects:read']);
    await withBudgets({ RATE_LIMIT_PER_MINUTE: '2' }, async () => {
      const request = headers({ authorization: `Bearer ${key}`, 'x-client-ip': '203.0.113.50' });
      const first = await identifyAndSpend(request, undefined);
      expect(first.caller).toMatchObject({ actor: { kind: 'apiKey', projectId }, ip: '203.0.113.50' });
      expect(first.fields).toEqual({ 'ratelimit-policy': '"default";q=2;w=60', ratelimit: '"default";r=1;t=30' });
      expect((await identifyAndSpend(request, undefined)).fields.ratelimit).toMatch(/^"default";r=0;t=([1-9]|[12]\d|30)$/);
      const refused = await refusal(identifyAndSpend(request, undefined));
      expect(refused).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests; try again in \d+ seconds?$/) });
      expect(refused.headers).toMatchObject({ 'ratelimit-policy': '"default";q=2;w=60', ratelimit: expect.stringMatching(/^"default";r=0;t=\d+$/) });
    });
  });

  it("spends through the app's limiter, one unit per request, under the key's own budget", async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const { key, id } = await createApiKey(user, projectId, ['projects:read']);
    const limiter = await getRateLimiter();
    const take = vi.spyOn(limiter, 'take');
    try {
      await identifyAndSpend(headers({ authorization: `Bearer ${key}` }), undefined);
      expect(take).toHaveBeenCalledTimes(1);
      expect(take.mock.calls[0]?.[0]).toMatchObject({ policy: 'default', key: `api:key:${id}` });
    } finally {
      take.mockRestore();
    }
  });

  it('spends an anonymous caller budget per client address', async () => {
    await withBudgets({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' }, async () => {
      const first = await identifyAndSpend(headers({ 'x-client-ip': '203.0.113.51' }), undefined);
      expect(first.caller.actor).toEqual({ kind: 'anonymous' });
      expect(first.fields).toEqual({ 'ratelimit-policy': '"anonymous";q=1;w=60', ratelimit: '"anonymous";r=0;t=60' });
      expect((await refusal(identifyAndSpend(headers({ 'x-client-ip': '203.0.113.51' }), undefined))).code).toBe('RATE_LIMITED');
      expect((await identifyAndSpend(headers({ 'x-client-ip': '203.0.113.52' }), undefined)).fields.ratelimit).toBe('"anonymous";r=0;t=60');
    });
  });

  it('spends a webhook route budget, not the key budget, even for a caller presenting a key', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const { key } = await createApiKey(user, projectId, ['projects:read']);
    await withBudgets({ RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_WEBHOOK_PER_MINUTE: '3' }, async () => {
      const request = headers({ authorization: `Bearer ${key}`, 'x-client-ip': '203.0.113.53' });
      const hook = await identifyAndSpend(request, rawRoute({ budget: 'inboundWebhook' }));
      expect(hook.fields).toEqual({ 'ratelimit-policy': '"webhook";q=3;w=60', ratelimit: '"webhook";r=2;t=20' });
      expect((await identifyAndSpend(request, undefined)).fields.ratelimit).toBe('"default";r=0;t=60');
    });
  });
});

describe('withRefusalBudget', () => {
  const base = { 'x-request-id': 'req_1', 'ratelimit-policy': '"default";q=600;w=60', ratelimit: '"default";r=597;t=1' };

  it('lists a refusal budget after the request budget, and takes its other headers', () => {
    const refusal = { 'retry-after': '420', 'ratelimit-policy': '"password-reset";q=5;w=600', ratelimit: '"password-reset";r=0;t=420' };
    expect(withRefusalBudget(base, refusal)).toEqual({
      'x-request-id': 'req_1',
      'retry-after': '420',
      'ratelimit-policy': '"default";q=600;w=60, "password-reset";q=5;w=600',
      ratelimit: '"default";r=597;t=1, "password-reset";r=0;t=420',
    });
  });

  it('keeps the request budget when the refusal names none', () => {
    expect(withRefusalBudget(base, { allow: 'GET, POST' })).toEqual({ ...base, allow: 'GET, POST' });
    expect(withRefusalBudget(base, undefined)).toEqual(base);
  });

  it('keeps the refusal budget when the request spent none (it was refused itself)', () => {
    const refusal = { 'retry-after': '1', 'ratelimit-policy': '"default";q=600;w=60', ratelimit: '"default";r=0;t=1' };
    expect(withRefusalBudget({ 'x-request-id': 'req_2' }, refusal)).toEqual({ 'x-request-id': 'req_2', ...refusal });
  });
});

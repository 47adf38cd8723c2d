import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getDb, type Db } from '../../../db';
import * as schema from '../../../db/schema';
import { queryRows } from '../../../test/db';
import { AppError } from '../errors';
import {
  consumeRateLimit,
  createRateLimiter,
  openRateLimitStore,
  purgeExpiredRateLimits,
  rateLimited,
  rateLimitFields,
  refundRateLimit,
  takeRateLimit,
  type RateLimiter,
  type RateLimitResult,
  type RateLimitRule,
  type RateLimitStore,
} from '.';
import { createMemoryStore } from './stores/memory';
import { createPostgresStore } from './stores/postgres';
import { createRedisStore } from './stores/redis';

// Minute-aligned so every expected figure is exact; years ahead so no real budget shares it.
const MINUTE = Date.UTC(2031, 4, 6, 12, 0, 0);
const at = (seconds: number) => new Date(MINUTE + Math.round(seconds * 1000));

const rule = (limit: number, windowSeconds = 60): RateLimitRule => ({ policy: 'test', key: `test:${randomUUID()}`, limit, windowSeconds });

/** A PostgreSQL server when the tests run on one (TEST_DATABASE_URL); PGlite is one process and has no second connection. */
const serverUrl = process.env.DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Every store answers the same suite: the algorithm must not depend on where budgets live. */
const STORES: Array<{ name: string; available: boolean; open: () => Promise<RateLimitStore> }> = [
  { name: 'memory', available: true, open: async () => createMemoryStore() },
  { name: 'postgres', available: true, open: async () => createPostgresStore(getDb) },
  { name: 'redis', available: Boolean(redisUrl), open: () => createRedisStore({ url: redisUrl!, keyPrefix: `test:${randomUUID()}:` }) },
];

async function outcomes(limiter: RateLimiter, r: RateLimitRule, now: Date, n: number): Promise<Array<'allowed' | 'limited'>> {
  const out: Array<'allowed' | 'limited'> = [];
  for (let i = 0; i < n; i += 1) out.push((await limiter.take(r, now)).allowed ? 'allowed' : 'limited');
  return out;
}

for (const { name, available, open } of STORES) {
  describe.skipIf(!available)(`the ${name} store`, () => {
    let store: RateLimitStore;
    let limiter: RateLimiter;

    beforeAll(async () => {
      store = await open();
      limiter = createRateLimiter(store);
    });
    afterAll(() => store?.close());

    it('allows exactly `limit` requests in a burst and refuses the next', async () => {
      expect(await outcomes(limiter, rule(3), at(5), 4)).toEqual(['allowed', 'allowed', 'allowed', 'limited']);
    });

    it('allows a single request under a limit of one', async () => {
      expect(await outcomes(limiter, rule(1), at(0), 2)).toEqual(['allowed', 'limited']);
    });

    it('counts the remaining units down and says when the next one comes back', async () => {
      const r = rule(3);
      const seen: Array<Pick<RateLimitResult, 'allowed' | 'remaining' | 'effectiveWindowSeconds'>> = [];
      for (let i = 0; i < 4; i += 1) {
        const { allowed, remaining, effectiveWindowSeconds } = await limiter.take(r, at(0));
        seen.push({ allowed, remaining, effectiveWindowSeconds });
      }
      expect(seen).toEqual([
        { allowed: true, remaining: 2, effectiveWindowSeconds: 20 },
        { allowed: true, remaining: 1, effectiveWindowSeconds: 20 },
        { allowed: true, remaining: 0, effectiveWindowSeconds: 20 },
        { allowed: false, remaining: 0, effectiveWindowSeconds: 20 },
      ]);
    });

    it('gives one unit back every window / limit, not the whole budget at a window boundary', async () => {
      const r = rule(3);
      await outcomes(limiter, r, at(0), 3);
      expect(await outcomes(limiter, r, at(19.999), 1)).toEqual(['limited']);
      expect(await outcomes(limiter, r, at(20), 2)).toEqual(['allowed', 'limited']);
      expect(await outcomes(limiter, r, at(60), 3)).toEqual(['allowed', 'allowed', 'limited']);
    });

    it('counts the wait down to the moment a unit is back, and never says 0 seconds', async () => {
      const r = rule(1);
      await limiter.take(r, at(0));
      expect((await limiter.take(r, at(0))).effectiveWindowSeconds).toBe(60);
      expect((await limiter.take(r, at(30))).effectiveWindowSeconds).toBe(30);
      expect((await limiter.take(r, at(59.5))).effectiveWindowSeconds).toBe(1);
      expect((await limiter.take(r, at(59.999))).effectiveWindowSeconds).toBe(1);
      expect((await limiter.take(r, at(60))).allowed).toBe(true);
    });

    it('uses the rule window, not a fixed minute', async () => {
      const hourly = rule(1, 3600);
      await limiter.take(hourly, at(10));
      expect((await limiter.take(hourly, at(20 * 60 + 10))).effectiveWindowSeconds).toBe(2400);
      expect((await limiter.take(hourly, at(3610))).allowed).toBe(true);
    });

    it('spends nothing on a refused request: hammering does not push the next unit further away', async () => {
      const r = rule(2);
      await outcomes(limiter, r, at(0), 2);
      expect(await outcomes(limiter, r, at(10), 20)).toEqual(Array(20).fill('limited'));
      expect(await outcomes(limiter, r, at(30), 2)).toEqual(['allowed', 'limited']);
    });

    it('lets an idle key build its budget back up to the limit, and no further', async () => {
      const r = rule(3);
      await outcomes(limiter, r, at(0), 3);
      expect(await outcomes(limiter, r, at(3600), 4)).toEqual(['allowed', 'allowed', 'allowed', 'limited']);
    });

    it('gives a unit back on refund', async () => {
      const r = rule(3);
      await outcomes(limiter, r, at(0), 3);
      await limiter.refund(r, at(1));
      expect(await outcomes(limiter, r, at(1), 2)).toEqual(['allowed', 'limited']);
    });

    it('banks nothing from a refund on a key whose budget is whole', async () => {
      const r = rule(2);
      await limiter.refund(r, at(0));
      await limiter.refund(r, at(0));
      expect(await outcomes(limiter, r, at(0), 3)).toEqual(['allowed', 'allowed', 'limited']);
    });

    it('keeps keys apart: one client at its limit does not limit another', async () => {
      const a = rule(1);
      const b = rule(1);
      expect(await outcomes(limiter, a, at(0), 2)).toEqual(['allowed', 'limited']);
      expect(await outcomes(limiter, b, at(0), 1)).toEqual(['allowed']);
    });

    it('counts concurrent requests once each: exactly `limit` of them get through', async () => {
      const r = rule(3);
      const results = await Promise.all(Array.from({ length: 8 }, () => limiter.take(r, at(1))));
      expect(results.filter((x) => x.allowed)).toHaveLength(3);
      expect(await outcomes(limiter, r, at(1), 1)).toEqual(['limited']);
    });

    it('throws RATE_LIMITED from consume once the budget is spent, and returns the budget until then', async () => {
      const r = rule(2);
      expect(await limiter.consume(r, at(15))).toMatchObject({ allowed: true, remaining: 1 });
      await limiter.consume(r, at(15));
      const refusal = await limiter.consume(r, at(15)).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ code: 'RATE_LIMITED', status: 429, message: 'Too many attempts; try again in 30 seconds' });
    });
  });
}

describe('rateLimited', () => {
  const result = (effectiveWindowSeconds: number): RateLimitResult => ({
    rule: { policy: 'password-reset', key: 'k', limit: 5, windowSeconds: 600 },
    allowed: false,
    remaining: 0,
    effectiveWindowSeconds,
  });

  it('answers 429 with Retry-After and the RateLimit fields of the budget that ran out', () => {
    const err = rateLimited(result(45));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.message).toBe('Too many attempts; try again in 45 seconds');
    expect(err.headers).toEqual({
      'retry-after': '45',
      'ratelimit-policy': '"password-reset";q=5;w=600',
      ratelimit: '"password-reset";r=0;t=45',
    });
  });

  it('says what there were too many of, and speaks of one second in the singular', () => {
    expect(rateLimited(result(1), 'requests').message).toBe('Too many requests; try again in 1 second');
  });
});

describe('rateLimitFields', () => {
  it('lists each budget as a structured-field item, in order', () => {
    const a: RateLimitResult = {
      rule: { policy: 'default', key: 'a', limit: 600, windowSeconds: 60 },
      allowed: true,
      remaining: 598,
      effectiveWindowSeconds: 1,
    };
    const b: RateLimitResult = {
      rule: { policy: 'sign-up', key: 'b', limit: 5, windowSeconds: 3600 },
      allowed: false,
      remaining: 0,
      effectiveWindowSeconds: 720,
    };
    expect(rateLimitFields([a, b])).toEqual({
      'ratelimit-policy': '"default";q=600;w=60, "sign-up";q=5;w=3600',
      ratelimit: '"default";r=598;t=1, "sign-up";r=0;t=720',
    });
  });
});

describe('two instances on one shared store (two processes)', () => {
  async function shareOneBudget(first: RateLimiter, second: RateLimiter): Promise<void> {
    const r = rule(3);
    expect(await outcomes(first, r, at(0), 2)).toEqual(['allowed', 'allowed']);
    expect(await outcomes(second, r, at(0), 2)).toEqual(['allowed', 'limited']);
    expect(await outcomes(first, r, at(0), 1)).toEqual(['limited']);
    expect(await outcomes(second, r, at(20), 1)).toEqual(['allowed']);
    expect(await outcomes(first, r, at(20), 1)).toEqual(['limited']);

    // A budget large enough to be leased (5 units at a time) is shared as exactly: one unit on the
    // first instance leases 5, the second gets the 95 the store has left, the first the 4 it holds.
    const leased = rule(100);
    const allowed = async (limiter: RateLimiter, n: number) => (await outcomes(limiter, leased, at(0), n)).filter((o) => o === 'allowed').length;
    expect(await allowed(first, 1)).toBe(1);
    expect(await allowed(second, 100)).toBe(95);
    expect(await allowed(first, 10)).toBe(4);
  }

  it.skipIf(!serverUrl)('share a budget through PostgreSQL, each over its own connection', async () => {
    const clients = [postgres(serverUrl!, { max: 2, onnotice: () => {} }), postgres(serverUrl!, { max: 2, onnotice: () => {} })];
    try {
      const [a, b] = clients.map((client) => {
        const db = drizzle(client, { schema }) as unknown as Db;
        return createRateLimiter(createPostgresStore(async () => db));
      });
      await shareOneBudget(a!, b!);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it.skipIf(!redisUrl)('share a budget through Redis, each with its own client', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const stores = [await createRedisStore({ url: redisUrl!, keyPrefix }), await createRedisStore({ url: redisUrl!, keyPrefix })];
    try {
      await shareOneBudget(createRateLimiter(stores[0]!), createRateLimiter(stores[1]!));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('do not share through memory: that store is for one process only', async () => {
    const r = rule(1);
    const [a, b] = [createRateLimiter(createMemoryStore()), createRateLimiter(createMemoryStore())];
    expect(await outcomes(a, r, at(0), 1)).toEqual(['allowed']);
    expect(await outcomes(b, r, at(0), 1)).toEqual(['allowed']);
  });
});

describe('purging budgets that are whole again', () => {
  it('drops PostgreSQL rows whose time has passed, keeps the others, and says how many went', async () => {
    await queryRows(sql`delete from rate_limits`);
    const limiter = createRateLimiter(createPostgresStore(getDb));
    const [spent, other] = [rule(3), rule(3)];
    await outcomes(limiter, spent, at(0), 3);
    await outcomes(limiter, other, at(30), 1);

    expect(await limiter.purge(at(50))).toBe(1);
    expect(await queryRows<{ key: string; tat_us: string }>(sql`select key, tat_us::text from rate_limits order by key`)).toEqual([
      { key: spent.key, tat_us: String(at(60).getTime() * 1000) },
    ]);
    expect(await limiter.purge(at(60))).toBe(1);
    expect(await limiter.purge(at(60))).toBe(0);
  });

  it('drops memory state whose time has passed, and sweeps it on the way at most once a minute', async () => {
    const store = createMemoryStore();
    const limiter = createRateLimiter(store);
    const [first, second, third] = [rule(3), rule(3), rule(3)];
    await limiter.take(first, at(0));
    await limiter.take(second, at(30));
    expect(await limiter.purge(at(20))).toBe(1);

    await limiter.take(first, at(0));
    await limiter.take(third, at(59));
    // No sweep yet (59 s after the last): the first key's passed state is still there for purge to find.
    expect(await limiter.purge(at(20))).toBe(1);
    await limiter.take(first, at(0));
    await limiter.take(third, at(60));
    // The take a minute after the last sweep swept everything that had passed, so purge finds nothing more.
    expect(await limiter.purge(at(60))).toBe(0);
  });

  it.skipIf(!redisUrl)('lets Redis expire a key when its time passes', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const store = await createRedisStore({ url: redisUrl!, keyPrefix });
    const { Redis } = await import('ioredis');
    const probe = new Redis(redisUrl!);
    try {
      const r = rule(3);
      await createRateLimiter(store).take(r, at(0));
      // The TAT is 20 s ahead (one unit of 3 per minute): the key lives exactly that long.
      const ttl = await probe.pttl(`${keyPrefix}${r.key}`);
      expect(ttl).toBeGreaterThan(19_000);
      expect(ttl).toBeLessThanOrEqual(20_000);
      expect(await store.purge(at(60).getTime() * 1000)).toBe(0);
    } finally {
      probe.disconnect();
      await store.close();
    }
    await expect(createRateLimiter(store).take(rule(1), at(0))).rejects.toThrow(/closed/i);
  });
});

describe('openRateLimitStore', () => {
  it('keeps budgets in memory on the embedded database, which runs one process', async () => {
    expect((await openRateLimitStore({ REDIS_URL: undefined, embeddedDatabase: true })).kind).toBe('memory');
  });

  it('keeps budgets in PostgreSQL with a database server', async () => {
    expect((await openRateLimitStore({ REDIS_URL: undefined, embeddedDatabase: false })).kind).toBe('postgres');
  });

  it.skipIf(!redisUrl)('keeps budgets in Redis when REDIS_URL is set, whatever the database', async () => {
    for (const embeddedDatabase of [true, false]) {
      const store = await openRateLimitStore({ REDIS_URL: redisUrl, embeddedDatabase });
      expect(store.kind).toBe('redis');
      await store.close();
    }
  });
});

describe('the app limiter', () => {
  it('takes, consumes, refunds and purges through the configured store', async () => {
    const r = rule(2);
    expect(await takeRateLimit(r, at(0))).toMatchObject({ allowed: true, remaining: 1 });
    expect(await consumeRateLimit(r, at(0))).toMatchObject({ allowed: true, remaining: 0 });
    await refundRateLimit(r, at(0));
    expect(await takeRateLimit(r, at(0))).toMatchObject({ allowed: true, remaining: 0 });
    expect(await takeRateLimit(r, at(0))).toMatchObject({ allowed: false });
    expect(await purgeExpiredRateLimits(at(3600))).toBeGreaterThanOrEqual(1);
    expect(await takeRateLimit(r, at(3600))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("shares its store with another copy of the module (Next's bundle), which throws its own AppError", async () => {
    const r = rule(1);
    await consumeRateLimit(r, at(0));
    vi.resetModules();
    const copy = await import('./index');
    const { AppError: CopysAppError } = await import('../errors');
    expect(CopysAppError).not.toBe(AppError);
    const refusal = await copy.consumeRateLimit(r, at(0)).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(CopysAppError);
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED' });
  });
});

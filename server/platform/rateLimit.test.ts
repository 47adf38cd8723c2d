import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../test/db';
import { AppError } from './errors';
import { consumeRateLimit, purgeExpiredRateLimits, type RateLimitRule } from './rateLimit';

// Minute-aligned so every expected Retry-After is exact; years ahead so no real window shares it.
const MINUTE = Date.UTC(2031, 4, 6, 12, 0, 0);
const at = (seconds: number) => new Date(MINUTE + Math.round(seconds * 1000));

const rule = (limit: number, windowSeconds = 60): RateLimitRule => ({ key: `test:${randomUUID()}`, limit, windowSeconds });

async function attempt(r: RateLimitRule, now: Date): Promise<'allowed' | AppError> {
  try {
    await consumeRateLimit(r, now);
    return 'allowed';
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

async function attempts(r: RateLimitRule, now: Date, n: number): Promise<Array<'allowed' | 'limited'>> {
  const out: Array<'allowed' | 'limited'> = [];
  for (let i = 0; i < n; i += 1) out.push((await attempt(r, now)) === 'allowed' ? 'allowed' : 'limited');
  return out;
}

async function refused(r: RateLimitRule, now: Date): Promise<AppError> {
  const result = await attempt(r, now);
  if (result === 'allowed') throw new Error('expected the attempt to be rate limited');
  return result;
}

async function counters(key: string): Promise<Array<{ window_start: string; count: number; expires_at: string }>> {
  return queryRows(sql`
    select to_char(window_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as window_start, count,
           to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as expires_at
    from rate_limit_counters where key = ${key} order by window_start`);
}

describe('consumeRateLimit', () => {
  it('allows exactly `limit` attempts in a window and refuses the next', async () => {
    const r = rule(3);
    expect(await attempts(r, at(5), 4)).toEqual(['allowed', 'allowed', 'allowed', 'limited']);
  });

  it('allows a single attempt under a limit of one', async () => {
    const r = rule(1);
    expect(await attempts(r, at(0), 2)).toEqual(['allowed', 'limited']);
  });

  it('refuses with 429, a message and headers that say when to come back', async () => {
    const r = rule(2);
    await attempts(r, at(15.5), 2);
    const err = await refused(r, at(15.5));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.status).toBe(429);
    // 44.5 s remain in the window: rounded up, so a client that waits that long is let in.
    expect(err.message).toBe('Too many attempts; try again in 45 seconds');
    expect(err.headers).toEqual({
      'retry-after': '45',
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '45',
    });
  });

  it('never tells a client to retry in 0 seconds, even in the last millisecond of a window', async () => {
    const r = rule(1);
    await attempt(r, at(59.999));
    const err = await refused(r, at(59.999));
    expect(err.headers?.['retry-after']).toBe('1');
    expect(err.message).toBe('Too many attempts; try again in 1 seconds');
  });

  it('keeps refusing for the rest of the window, counting down to its end', async () => {
    const r = rule(1);
    await attempt(r, at(0));
    expect((await refused(r, at(0))).headers?.['retry-after']).toBe('60');
    expect((await refused(r, at(30))).headers?.['retry-after']).toBe('30');
    expect((await refused(r, at(59))).headers?.['ratelimit-reset']).toBe('1');
  });

  it('counts a fixed window aligned to the clock: a new window starts on the boundary, not a window after the first attempt', async () => {
    const r = rule(2);
    expect(await attempts(r, at(50), 2)).toEqual(['allowed', 'allowed']);
    expect(await attempts(r, at(59.999), 1)).toEqual(['limited']);
    expect(await attempts(r, at(60), 3)).toEqual(['allowed', 'allowed', 'limited']);
    expect(await attempts(r, at(70), 1)).toEqual(['limited']);
  });

  it('uses the rule window length, not a fixed minute', async () => {
    const hourly = rule(1, 3600);
    const hour = Date.UTC(2031, 4, 6, 13, 0, 0);
    await attempt(hourly, new Date(hour + 10_000));
    const err = await refused(hourly, new Date(hour + 20 * 60_000));
    expect(err.headers?.['retry-after']).toBe('2400');
    expect(await attempt(hourly, new Date(hour + 3_600_000))).toBe('allowed');
  });

  it('stores one counter per window that expires when the window ends', async () => {
    const r = rule(5, 60);
    await attempts(r, at(10), 3);
    await attempts(r, at(61), 1);
    expect(await counters(r.key)).toEqual([
      { window_start: '2031-05-06T12:00:00', count: 3, expires_at: '2031-05-06T12:01:00' },
      { window_start: '2031-05-06T12:01:00', count: 1, expires_at: '2031-05-06T12:02:00' },
    ]);
  });

  it('keeps counting refused attempts, so hammering does not reopen the window', async () => {
    const r = rule(1);
    expect(await attempts(r, at(0), 4)).toEqual(['allowed', 'limited', 'limited', 'limited']);
    expect((await counters(r.key))[0]?.count).toBe(4);
  });

  it('keeps keys apart: one client at its limit does not limit another', async () => {
    const a = rule(1);
    const b = rule(1);
    expect(await attempts(a, at(0), 2)).toEqual(['allowed', 'limited']);
    expect(await attempts(b, at(0), 1)).toEqual(['allowed']);
  });

  it('shares one count between concurrent attempts, as app instances do', async () => {
    const r = rule(3);
    const results = await Promise.all(Array.from({ length: 8 }, () => attempt(r, at(1))));
    expect(results.filter((x) => x === 'allowed')).toHaveLength(3);
    expect((await counters(r.key))[0]?.count).toBe(8);
  });
});

describe('purgeExpiredRateLimits', () => {
  it('drops the windows that have ended, keeps the current one, and says how many it dropped', async () => {
    await queryRows(sql`delete from rate_limit_counters`);
    const r = rule(10);
    const other = rule(10);
    await attempts(r, at(0), 2);
    await attempts(other, at(30), 1);
    await attempts(r, at(60), 1);
    await attempts(r, at(120), 1);

    expect(await purgeExpiredRateLimits(at(130))).toBe(3);
    expect(await counters(r.key)).toEqual([{ window_start: '2031-05-06T12:02:00', count: 1, expires_at: '2031-05-06T12:03:00' }]);
    expect(await counters(other.key)).toEqual([]);
    expect(await purgeExpiredRateLimits(at(130))).toBe(0);
  });

  it('leaves counts intact for windows still running', async () => {
    await queryRows(sql`delete from rate_limit_counters`);
    const r = rule(1);
    await attempt(r, at(0));
    expect(await purgeExpiredRateLimits(at(59))).toBe(0);
    expect(await attempts(r, at(59), 1)).toEqual(['limited']);
  });
});

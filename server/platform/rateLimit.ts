import { lt, sql } from 'drizzle-orm';
import { getDb } from '../../db';
import { rateLimitCounters } from '../../db/schema';
import { AppError } from './errors';

export interface RateLimitRule {
  /** What is limited and for whom, e.g. `restore:ip:203.0.113.9`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Counts one attempt in a fixed window stored in PostgreSQL, so every app instance shares the
 * count, and throws RATE_LIMITED with Retry-After and RateLimit-* headers once the limit is passed.
 */
export async function consumeRateLimit(rule: RateLimitRule, now = new Date()): Promise<void> {
  const windowMs = rule.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const resetAt = new Date(windowStart.getTime() + windowMs);
  const db = await getDb();
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ key: rule.key, windowStart, count: 1, expiresAt: resetAt })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + 1` },
    })
    .returning({ count: rateLimitCounters.count });
  const count = row?.count ?? 1;
  if (count > rule.limit) {
    const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
    throw new AppError('RATE_LIMITED', `Too many attempts; try again in ${retryAfter} seconds`, {
      headers: {
        'retry-after': String(retryAfter),
        'ratelimit-limit': String(rule.limit),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(retryAfter),
      },
    });
  }
}

/** Drops windows that have ended; run by the maintenance job. */
export async function purgeExpiredRateLimits(now = new Date()): Promise<number> {
  const db = await getDb();
  const deleted = await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now)).returning({ key: rateLimitCounters.key });
  return deleted.length;
}

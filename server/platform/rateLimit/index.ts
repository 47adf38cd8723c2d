import { getDb } from '../../../db';
import { getConfig, type AppConfig } from '../config';
import { AppError } from '../errors';
import { budgetLeft, gcraRate, type BudgetLeft, type GcraOutcome } from './gcra';
import { createLeases, leaseSize } from './leases';
import type { RateLimitStore } from './store';
import { createMemoryStore } from './stores/memory';
import { createPostgresStore } from './stores/postgres';
import { createRedisStore } from './stores/redis';

export type { RateLimitStore } from './store';
export { gcraRate } from './gcra';

export interface RateLimitRule {
  /** Names the budget in the RateLimit-Policy and RateLimit fields, e.g. `password-reset`. */
  policy: string;
  /** What is limited and for whom, e.g. `restore:ip:203.0.113.9`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitResult extends BudgetLeft {
  rule: RateLimitRule;
  allowed: boolean;
}

export interface RateLimiter {
  readonly storeKind: RateLimitStore['kind'];
  /** Takes one unit of the rule's budget when one is left, and says what remains either way. */
  take(rule: RateLimitRule, now?: Date): Promise<RateLimitResult>;
  /** Takes one unit, or throws RATE_LIMITED with Retry-After and the RateLimit fields. */
  consume(rule: RateLimitRule, now?: Date): Promise<RateLimitResult>;
  /** Gives back the unit a take took, for an attempt that turned out not to count (a right password). */
  refund(rule: RateLimitRule, now?: Date): Promise<void>;
  /** Drops the state of budgets that are whole again; run by the maintenance job. */
  purge(now?: Date): Promise<number>;
}

/**
 * A limiter over one store; the app's own is `getRateLimiter()`, tests build one per store. Over a
 * shared store, large budgets (such as the per-minute request budgets) are taken in leases (see
 * ./leases.ts), so the store sees one step per lease rather than one per request; memory needs none.
 */
export function createRateLimiter(store: RateLimitStore): RateLimiter {
  const leases = store.kind === 'memory' ? undefined : createLeases(store);

  async function step(rule: RateLimitRule, now: Date, cost: 1 | -1): Promise<RateLimitResult> {
    const nowUs = now.getTime() * 1000;
    return rateLimitResult(rule, await store.apply(rule.key, { nowUs, cost, ...gcraRate(rule.limit, rule.windowSeconds) }), nowUs);
  }

  async function take(rule: RateLimitRule, now: Date): Promise<RateLimitResult> {
    const size = leaseSize(rule.limit);
    if (!leases || size < 2) return step(rule, now, 1);
    const nowUs = now.getTime() * 1000;
    const budget = { key: rule.key, size, windowUs: rule.windowSeconds * 1_000_000, ...gcraRate(rule.limit, rule.windowSeconds) };
    const outcome = await leases.take(budget, nowUs);
    return rateLimitResult(rule, outcome, nowUs, outcome.held);
  }

  return {
    storeKind: store.kind,
    take: (rule, now = new Date()) => take(rule, now),
    async consume(rule, now = new Date()) {
      const result = await take(rule, now);
      if (!result.allowed) throw rateLimited(result);
      return result;
    },
    async refund(rule, now = new Date()) {
      if (leases?.giveBack(rule.key, now.getTime() * 1000)) return;
      await step(rule, now, -1);
    },
    purge: (now = new Date()) => store.purge(now.getTime() * 1000),
  };
}

/**
 * What a step on the rule's budget left, at `nowUs`: what the store has left, plus the units this
 * instance holds in a lease, never more than the limit.
 */
function rateLimitResult(rule: RateLimitRule, outcome: GcraOutcome, nowUs: number, held = 0): RateLimitResult {
  const left = budgetLeft(outcome.tatUs, nowUs, gcraRate(rule.limit, rule.windowSeconds));
  return { rule, allowed: outcome.allowed, remaining: Math.min(rule.limit, left.remaining + held), effectiveWindowSeconds: left.effectiveWindowSeconds };
}

/**
 * The RATE_LIMITED refusal: the message and Retry-After say when one unit is back, and the
 * RateLimit fields describe the budget that ran out.
 */
export function rateLimited(result: RateLimitResult, what = 'attempts'): AppError {
  const seconds = result.effectiveWindowSeconds;
  return new AppError('RATE_LIMITED', `Too many ${what}; try again in ${seconds} second${seconds === 1 ? '' : 's'}`, {
    headers: { 'retry-after': String(seconds), ...rateLimitFields([result]) },
  });
}

/**
 * The `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (the
 * structured-field form), one list item per budget: `"default";q=600;w=60` and `"default";r=598;t=1`,
 * where `t` is the seconds until one more unit comes back.
 */
export function rateLimitFields(results: readonly RateLimitResult[]): Record<string, string> {
  return {
    'ratelimit-policy': results.map(({ rule }) => `"${rule.policy}";q=${rule.limit};w=${rule.windowSeconds}`).join(', '),
    ratelimit: results.map((r) => `"${r.rule.policy}";r=${r.remaining};t=${r.effectiveWindowSeconds}`).join(', '),
  };
}

// One store per process, shared by the custom server and Next's bundled copy of this module; each copy
// wraps it in a limiter of its own, so the errors it throws are that copy's AppError.
const holder = globalThis as unknown as { __rateLimitStore?: Promise<RateLimitStore> };
let limiter: Promise<RateLimiter> | undefined;

/** The app's limiter: Redis when `REDIS_URL` is set, else PostgreSQL, else (embedded database, one process) memory. */
export function getRateLimiter(): Promise<RateLimiter> {
  holder.__rateLimitStore ??= openRateLimitStore(getConfig());
  limiter ??= holder.__rateLimitStore.then(createRateLimiter);
  return limiter;
}

export async function openRateLimitStore(config: Pick<AppConfig, 'REDIS_URL' | 'embeddedDatabase'>): Promise<RateLimitStore> {
  if (config.REDIS_URL) return createRedisStore({ url: config.REDIS_URL });
  if (config.embeddedDatabase) return createMemoryStore();
  return createPostgresStore(getDb);
}

export async function takeRateLimit(rule: RateLimitRule, now?: Date): Promise<RateLimitResult> {
  return (await getRateLimiter()).take(rule, now);
}

export async function consumeRateLimit(rule: RateLimitRule, now?: Date): Promise<RateLimitResult> {
  return (await getRateLimiter()).consume(rule, now);
}

export async function refundRateLimit(rule: RateLimitRule, now?: Date): Promise<void> {
  return (await getRateLimiter()).refund(rule, now);
}

export async function purgeExpiredRateLimits(now?: Date): Promise<number> {
  return (await getRateLimiter()).purge(now);
}

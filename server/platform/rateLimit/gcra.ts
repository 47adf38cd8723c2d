/**
 * The generic cell rate algorithm (GCRA), behind every budget: `limit` units per `windowSeconds`,
 * the whole limit usable as a burst, then one unit back every window / limit. A key's state is one
 * number, its theoretical arrival time (TAT): the moment its budget is whole again. Unlike a fixed
 * window it never lets twice the limit through around a window boundary, and unlike a sliding log
 * it keeps no list of requests.
 *
 * Times are whole microseconds, so the three stores (memory, a PostgreSQL statement, a Redis script)
 * do the same integer arithmetic and agree to the unit.
 */

export interface GcraStep {
  nowUs: number;
  /** How long one unit takes to come back: the window divided by the limit, rounded down. */
  intervalUs: number;
  /** limit × interval: the most the TAT may run ahead of now, so a burst is exactly `limit` units. */
  capacityUs: number;
  /** How many units the step takes (all of them or none); negative gives that many back. */
  cost: number;
}

export interface GcraOutcome {
  allowed: boolean;
  /** The key's TAT after the step: moved on when allowed, as it was when refused. */
  tatUs: number;
}

/** A key's budget as the RateLimit field reports it. */
export interface BudgetLeft {
  /** Units usable right now. */
  remaining: number;
  /** Seconds until one more unit comes back, during which no more than `remaining` can be used (at least 1). */
  effectiveWindowSeconds: number;
}

/** The step and limit of a budget of `limit` units per `windowSeconds`. */
export function gcraRate(limit: number, windowSeconds: number): { intervalUs: number; capacityUs: number } {
  const intervalUs = Math.floor((windowSeconds * 1_000_000) / limit);
  return { intervalUs, capacityUs: intervalUs * limit };
}

/**
 * One step on a key's state (`null` when it has none). Every store runs exactly this, atomically
 * per key: the memory store calls it, the others spell it in SQL and Lua.
 */
export function advance(tatUs: number | null, step: GcraStep): GcraOutcome {
  // No state reads as a TAT long past: the budget is whole.
  const base = Math.max(tatUs ?? 0, step.nowUs);
  const next = base + step.cost * step.intervalUs;
  return next - step.nowUs <= step.capacityUs ? { allowed: true, tatUs: next } : { allowed: false, tatUs: base };
}

/**
 * What a TAT leaves at `nowUs`. A TAT further ahead than the capacity (written by an instance whose
 * clock runs ahead) leaves nothing rather than a negative count.
 */
export function budgetLeft(tatUs: number, nowUs: number, rate: { intervalUs: number; capacityUs: number }): BudgetLeft {
  const available = Math.max(0, rate.capacityUs - (tatUs - nowUs));
  return {
    remaining: Math.floor(available / rate.intervalUs),
    effectiveWindowSeconds: Math.ceil((rate.intervalUs - (available % rate.intervalUs)) / 1_000_000),
  };
}

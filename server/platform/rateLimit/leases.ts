import { budgetLeft, type GcraOutcome } from './gcra';
import type { RateLimitStore } from './store';

/**
 * A lease is at most this share of a budget's limit: 600 a minute leases 30 units at a time, and a
 * limit under 40 (a sign-in or sign-up budget) is not leased at all, each unit costing a store step.
 */
const LEASE_SHARE = 20;
/** Expired leases are swept at most this often, on the way through, so the map holds only live ones. */
const SWEEP_EVERY_US = 60_000_000;

/** How many units an instance takes from the shared store at a time for a budget of `limit`; under 2, none are leased. */
export function leaseSize(limit: number): number {
  return Math.floor(limit / LEASE_SHARE);
}

/** The budget a lease is taken from: its rate and how long its state lasts. */
export interface LeasedBudget {
  key: string;
  intervalUs: number;
  capacityUs: number;
  /** The rule's window: a lease is dropped this long after it was taken. */
  windowUs: number;
  /** Units taken from the store at a time (at least 2, at most the limit). */
  size: number;
}

export interface LeasedOutcome extends GcraOutcome {
  /** Units this instance still holds for the key after the step, beside what the store has left. */
  held: number;
}

export interface Leases {
  /** Takes one unit from this instance's lease on the budget, taking a new lease from the store when it has none left. */
  take(budget: LeasedBudget, nowUs: number): Promise<LeasedOutcome>;
  /** Puts a unit back into a live lease; false when there is none, and the store should have it back. */
  giveBack(key: string, nowUs: number): boolean;
  /** How many keys have a lease in memory, live or not yet swept. */
  readonly size: number;
}

interface Lease {
  /** Units taken from the store and not used yet. */
  units: number;
  /** The key's TAT as the store left it when the lease was taken (or refused). */
  tatUs: number;
  /** From then on the lease is not used: its units came back in the store long before. */
  expiresUs: number;
}

/**
 * Per-instance leases on budgets shared through a store, so that a busy caller costs the store one
 * step per lease rather than one per request. A lease takes `size` units in one GCRA step (fewer
 * when fewer are left, down to one), so no more units are ever handed out than the store allows;
 * the instance then serves them from memory. What this trades away, bounded by the lease size:
 * units one instance holds are not usable on another until they are used or the lease is dropped,
 * and units held past the moment the store had them back let a caller exceed its burst by at most
 * one lease per instance. A refused step is remembered too, until the store has a unit again, so a
 * caller hammering past its budget costs the store nothing more.
 */
export function createLeases(store: RateLimitStore): Leases {
  const leases = new Map<string, Lease>();
  /** The store steps under way, by key: other requests for the key wait for them instead of each taking a lease. */
  const refills = new Map<string, Promise<void>>();
  let sweptAtUs = 0;

  function sweep(nowUs: number): void {
    if (nowUs - sweptAtUs < SWEEP_EVERY_US) return;
    sweptAtUs = nowUs;
    for (const [key, lease] of leases) {
      if (lease.expiresUs <= nowUs) leases.delete(key);
    }
  }

  /** One step of as many units as fit, from `size` down to one; none when the store has none left. */
  async function takeUpTo(budget: LeasedBudget, nowUs: number): Promise<{ units: number; tatUs: number }> {
    const rate = { intervalUs: budget.intervalUs, capacityUs: budget.capacityUs };
    let want = budget.size;
    for (;;) {
      const outcome = await store.apply(budget.key, { nowUs, cost: want, ...rate });
      if (outcome.allowed) return { units: want, tatUs: outcome.tatUs };
      const left = budgetLeft(outcome.tatUs, nowUs, rate).remaining;
      if (left === 0) return { units: 0, tatUs: outcome.tatUs };
      want = Math.min(left, want - 1);
    }
  }

  function refill(budget: LeasedBudget, nowUs: number): Promise<void> {
    const step = takeUpTo(budget, nowUs)
      .then(({ units, tatUs }) => {
        leases.set(budget.key, { units, tatUs, expiresUs: nowUs + budget.windowUs });
      })
      .finally(() => refills.delete(budget.key));
    refills.set(budget.key, step);
    return step;
  }

  return {
    async take(budget, nowUs) {
      sweep(nowUs);
      for (;;) {
        const pending = refills.get(budget.key);
        if (pending) {
          await pending;
          continue;
        }
        const lease = leases.get(budget.key);
        if (lease && nowUs < lease.expiresUs) {
          if (lease.units > 0) {
            lease.units -= 1;
            return { allowed: true, tatUs: lease.tatUs, held: lease.units };
          }
          if (budgetLeft(lease.tatUs, nowUs, budget).remaining === 0) return { allowed: false, tatUs: lease.tatUs, held: 0 };
        }
        await refill(budget, nowUs);
      }
    },
    giveBack(key, nowUs) {
      const lease = leases.get(key);
      if (!lease || lease.expiresUs <= nowUs) return false;
      lease.units += 1;
      return true;
    },
    get size() {
      return leases.size;
    },
  };
}

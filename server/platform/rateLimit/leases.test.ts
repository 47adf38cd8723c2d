import { describe, expect, it } from 'vitest';
import { gcraRate, type GcraStep } from './gcra';
import { createRateLimiter, type RateLimitRule, type RateLimitStore } from '.';
import { createLeases, leaseSize, type LeasedBudget } from './leases';
import { createMemoryStore } from './stores/memory';

const SECOND = 1_000_000;
const MINUTE = Date.UTC(2031, 4, 6, 12, 0, 0);
const at = (seconds: number) => new Date(MINUTE + Math.round(seconds * 1000));
const us = (seconds: number) => at(seconds).getTime() * 1000;

let keys = 0;
const rule = (limit: number): RateLimitRule => ({ policy: 'default', key: `lease-test:${(keys += 1)}`, limit, windowSeconds: 60 });

/** A store shared by instances, as PostgreSQL or Redis would be, that records the steps asked of it (the memory store's algorithm underneath). */
function sharedStore(kind: RateLimitStore['kind'] = 'postgres') {
  const inner = createMemoryStore();
  const steps: Array<{ key: string; cost: number }> = [];
  let failing = false;
  const store: RateLimitStore = {
    kind,
    apply(key: string, step: GcraStep) {
      steps.push({ key, cost: step.cost });
      if (failing) return Promise.reject(new Error('store unavailable'));
      return inner.apply(key, step);
    },
    purge: (nowUs) => inner.purge(nowUs),
    close: () => inner.close(),
  };
  return {
    store,
    steps,
    fail(on: boolean) {
      failing = on;
    },
  };
}

async function takeMany(limiter: ReturnType<typeof createRateLimiter>, r: RateLimitRule, now: Date, n: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < n; i += 1) if ((await limiter.take(r, now)).allowed) allowed += 1;
  return allowed;
}

describe('leaseSize', () => {
  it('is a twentieth of the limit, rounded down', () => {
    expect([39, 40, 59, 60, 600, 6000].map(leaseSize)).toEqual([1, 2, 2, 3, 30, 300]);
  });
});

describe('a limiter over a shared store', () => {
  it('takes a budget of 600 a minute from the store 30 units at a time', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(600);
    expect(await takeMany(limiter, r, at(0), 30)).toBe(30);
    expect(steps).toEqual([{ key: r.key, cost: 30 }]);
    await limiter.take(r, at(0));
    expect(steps).toEqual([
      { key: r.key, cost: 30 },
      { key: r.key, cost: 30 },
    ]);
  });

  it('reports what the store has left plus what the lease still holds, and when the next unit comes back', async () => {
    const limiter = createRateLimiter(sharedStore().store);
    const r = rule(600);
    expect(await limiter.take(r, at(0))).toMatchObject({ allowed: true, remaining: 599, effectiveWindowSeconds: 1 });
    expect(await limiter.take(r, at(0))).toMatchObject({ allowed: true, remaining: 598 });
  });

  it('never reports more than the limit, though a lease held while the store refilled counts twice', async () => {
    const limiter = createRateLimiter(sharedStore().store);
    const r = rule(600);
    await limiter.take(r, at(0));
    expect((await limiter.take(r, at(59))).remaining).toBe(600);
  });

  it('lets exactly the limit through in a burst, the last lease smaller than the others', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(45);
    expect(await takeMany(limiter, r, at(0), 46)).toBe(45);
    // 22 leases of 2; then 2 did not fit and the 1 left did; after that the last lease's TAT says nothing is left.
    expect(steps.map((s) => s.cost)).toEqual([...Array<number>(22).fill(2), 2, 1]);
  });

  it('refuses from memory once it knows the budget is spent, until a unit is back', async () => {
    const { store, steps } = sharedStore();
    const [a, b] = [createRateLimiter(store), createRateLimiter(store)];
    const r = rule(40);
    // The last lease's TAT says the store has nothing left: the 41st is refused without asking it.
    expect(await takeMany(a, r, at(0), 41)).toBe(40);
    expect(steps).toHaveLength(20);
    // Another instance learns it from the store once.
    expect(await b.take(r, at(0))).toMatchObject({ allowed: false, remaining: 0, effectiveWindowSeconds: 2 });
    expect(steps).toHaveLength(21);
    expect(await takeMany(b, r, at(1.4), 10)).toBe(0);
    expect(steps).toHaveLength(21);
    // One unit comes back every 1.5 s: the store is asked again and gives the one it has.
    expect(await b.take(r, at(1.5))).toMatchObject({ allowed: true, remaining: 0 });
    expect(steps.slice(21).map((s) => s.cost)).toEqual([2, 1]);
  });

  it('drops a lease after the window and takes a new one', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const [r, other] = [rule(600), rule(600)];
    await limiter.take(other, at(0));
    await limiter.take(r, at(30));
    // Expired leases are also swept once a minute: this take sweeps now, so the next minute's does not decide for the lease.
    await limiter.take(other, at(85));
    await limiter.take(r, at(89.999));
    expect(steps.filter((s) => s.key === r.key)).toHaveLength(1);
    expect(await limiter.take(r, at(90))).toMatchObject({ allowed: true, remaining: 599 });
    expect(steps.filter((s) => s.key === r.key)).toHaveLength(2);
  });

  it('asks the store once for concurrent requests that find no lease', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(600);
    const results = await Promise.all(Array.from({ length: 30 }, () => limiter.take(r, at(0))));
    expect(results.every((x) => x.allowed)).toBe(true);
    expect(steps).toHaveLength(1);
    expect(results.map((x) => x.remaining).sort((a, b) => b - a)).toEqual(Array.from({ length: 30 }, (_, i) => 599 - i));
  });

  it('lets concurrent requests past a lease take the next one, still no more than the limit', async () => {
    const { store } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(100);
    const results = await Promise.all(Array.from({ length: 130 }, () => limiter.take(r, at(0))));
    expect(results.filter((x) => x.allowed)).toHaveLength(100);
  });

  it('fails the request when the store does, and asks it again on the next one', async () => {
    const { store, steps, fail } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(600);
    fail(true);
    await expect(Promise.all([limiter.take(r, at(0)), limiter.take(r, at(0))])).rejects.toThrow('store unavailable');
    fail(false);
    expect(await limiter.take(r, at(0))).toMatchObject({ allowed: true, remaining: 599 });
    expect(steps).toHaveLength(2);
  });

  it('gives a refunded unit back to the live lease, or to the store when there is none', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(600);
    await limiter.take(r, at(0));
    await limiter.refund(r, at(0));
    expect(steps).toHaveLength(1);
    expect((await limiter.take(r, at(0))).remaining).toBe(599);
    await limiter.refund(r, at(60));
    expect(steps.at(-1)).toEqual({ key: r.key, cost: -1 });
  });

  it('takes a small budget one unit per step: it is not leased', async () => {
    const { store, steps } = sharedStore();
    const limiter = createRateLimiter(store);
    const r = rule(39);
    expect(await takeMany(limiter, r, at(0), 3)).toBe(3);
    expect(steps.map((s) => s.cost)).toEqual([1, 1, 1]);
  });

  it('shares one budget between two instances: together they get the limit, no more', async () => {
    const { store } = sharedStore();
    const [a, b] = [createRateLimiter(store), createRateLimiter(store)];
    const r = rule(100);
    expect(await takeMany(a, r, at(0), 1)).toBe(1);
    expect(await takeMany(b, r, at(0), 100)).toBe(95);
    expect(await takeMany(a, r, at(0), 10)).toBe(4);
  });
});

describe('a limiter over memory', () => {
  it('takes one unit per step, whatever the limit: memory is as near as a lease', async () => {
    const { store, steps } = sharedStore('memory');
    const limiter = createRateLimiter(store);
    expect(await takeMany(limiter, rule(600), at(0), 3)).toBe(3);
    expect(steps.map((s) => s.cost)).toEqual([1, 1, 1]);
  });
});

describe('createLeases', () => {
  const budget = (key: string): LeasedBudget => ({ key, size: 5, windowUs: 60 * SECOND, ...gcraRate(100, 60) });

  it('sweeps leases past their window on the way through, at most once a minute', async () => {
    const leases = createLeases(sharedStore().store);
    await leases.take(budget('a'), us(0));
    await leases.take(budget('b'), us(30));
    await leases.take(budget('c'), us(61));
    expect(leases.size).toBe(2);
    // b's window ended at 90 s, but the last sweep was at 61 s.
    await leases.take(budget('d'), us(100));
    expect(leases.size).toBe(3);
    await leases.take(budget('e'), us(121));
    expect(leases.size).toBe(2);
  });

  it('asks for one unit less after a refusal that raced with units coming back, so the steps end', async () => {
    const { store, steps } = sharedStore();
    let refusals = 1;
    // A refusal whose TAT says everything is left: another instance's units came back in between.
    const racing: RateLimitStore = {
      ...store,
      apply: async (key, step) => (refusals-- > 0 ? (steps.push({ key, cost: step.cost }), { allowed: false, tatUs: step.nowUs }) : store.apply(key, step)),
    };
    const leases = createLeases(racing);
    expect(await leases.take(budget('k'), us(0))).toMatchObject({ allowed: true, held: 3 });
    expect(steps.map((s) => s.cost)).toEqual([5, 4]);
  });

  it('holds what it took: the outcome says how many units are left in the lease', async () => {
    const leases = createLeases(sharedStore().store);
    expect(await leases.take(budget('k'), us(0))).toEqual({ allowed: true, tatUs: us(0) + 5 * 600_000, held: 4 });
    expect(await leases.take(budget('k'), us(0))).toMatchObject({ held: 3 });
  });

  it('has nothing to give back to without a live lease', async () => {
    const leases = createLeases(sharedStore().store);
    expect(leases.giveBack('k', us(0))).toBe(false);
    await leases.take(budget('k'), us(0));
    expect(leases.giveBack('k', us(59.999))).toBe(true);
    expect(leases.giveBack('k', us(60))).toBe(false);
  });
});

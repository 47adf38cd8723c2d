import { describe, expect, it } from 'vitest';
import { advance, budgetLeft, gcraRate, type GcraStep } from './gcra';

const SECOND = 1_000_000;
const NOW = 1_900_000_000 * SECOND;

function burst(limit: number, windowSeconds: number, attempts: number): boolean[] {
  const rate = gcraRate(limit, windowSeconds);
  let tat: number | null = null;
  const allowed: boolean[] = [];
  for (let i = 0; i < attempts; i += 1) {
    const outcome = advance(tat, { nowUs: NOW, cost: 1, ...rate });
    tat = outcome.tatUs;
    allowed.push(outcome.allowed);
  }
  return allowed;
}

describe('gcraRate', () => {
  it('gives back one unit every window / limit, in whole microseconds', () => {
    expect(gcraRate(600, 60)).toEqual({ intervalUs: 100_000, capacityUs: 60 * SECOND });
    expect(gcraRate(7, 60)).toEqual({ intervalUs: 8_571_428, capacityUs: 59_999_996 });
  });

  it.each([
    [600, 60],
    [7, 60],
    [3, 1],
    // The interval rounds down (666 µs): compared with the whole second, 1,501 units would fit.
    [1500, 1],
  ])('lets exactly %i units through in a burst over %i s', (limit, windowSeconds) => {
    const allowed = burst(limit, windowSeconds, limit + 1);
    expect(allowed.filter(Boolean)).toHaveLength(limit);
    expect(allowed.at(-1)).toBe(false);
  });
});

describe('advance', () => {
  const rate = { intervalUs: 20 * SECOND, capacityUs: 60 * SECOND };
  const step = (nowUs: number, cost: 1 | -1 = 1): GcraStep => ({ nowUs, cost, ...rate });

  it('starts a key without state at now, one interval on', () => {
    expect(advance(null, step(NOW))).toEqual({ allowed: true, tatUs: NOW + 20 * SECOND });
  });

  it('counts from now, not from a time already past, so idling banks no more than the capacity', () => {
    expect(advance(NOW - 3600 * SECOND, step(NOW))).toEqual({ allowed: true, tatUs: NOW + 20 * SECOND });
  });

  it('moves a TAT ahead of now on by one interval', () => {
    expect(advance(NOW + 30 * SECOND, step(NOW))).toEqual({ allowed: true, tatUs: NOW + 50 * SECOND });
  });

  it('allows the step that fills the capacity exactly, and refuses one microsecond more, leaving the TAT alone', () => {
    expect(advance(NOW + 40 * SECOND, step(NOW))).toEqual({ allowed: true, tatUs: NOW + 60 * SECOND });
    expect(advance(NOW + 40 * SECOND + 1, step(NOW))).toEqual({ allowed: false, tatUs: NOW + 40 * SECOND + 1 });
  });

  it('gives a unit back by moving the TAT one interval back', () => {
    expect(advance(NOW + 60 * SECOND, step(NOW, -1))).toEqual({ allowed: true, tatUs: NOW + 40 * SECOND });
  });

  it('gives nothing to bank on a key whose budget is already whole', () => {
    expect(advance(null, step(NOW, -1))).toEqual({ allowed: true, tatUs: NOW - 20 * SECOND });
    expect(advance(NOW - 20 * SECOND, step(NOW))).toEqual({ allowed: true, tatUs: NOW + 20 * SECOND });
  });
});

describe('budgetLeft', () => {
  const rate = { intervalUs: 20 * SECOND, capacityUs: 60 * SECOND };

  it('counts the whole units left and the seconds until the next comes back', () => {
    expect(budgetLeft(NOW + 20 * SECOND, NOW, rate)).toEqual({ remaining: 2, effectiveWindowSeconds: 20 });
    expect(budgetLeft(NOW + 45 * SECOND, NOW, rate)).toEqual({ remaining: 0, effectiveWindowSeconds: 5 });
    expect(budgetLeft(NOW + 59 * SECOND, NOW, rate)).toEqual({ remaining: 0, effectiveWindowSeconds: 19 });
  });

  it('rounds the seconds up, so a client that waits that long is let in', () => {
    expect(budgetLeft(NOW + 40 * SECOND + 1, NOW, rate)).toEqual({ remaining: 0, effectiveWindowSeconds: 1 });
    expect(budgetLeft(NOW + 41 * SECOND + 1, NOW, rate)).toEqual({ remaining: 0, effectiveWindowSeconds: 2 });
  });

  it('reports nothing left, never a negative count, for a TAT beyond the capacity (a clock running ahead wrote it)', () => {
    expect(budgetLeft(NOW + 90 * SECOND, NOW, rate)).toEqual({ remaining: 0, effectiveWindowSeconds: 20 });
  });
});

import { describe, expect, it } from 'vitest';
import { billingPeriodOf, monthKeyOf, nextBillingDate, prorate } from './period';

const at = (iso: string) => new Date(iso);

describe('prorate', () => {
  it.each([
    ['2026-02-01T00:00:00.000Z', 28],
    ['2028-02-01T00:00:00.000Z', 29],
    ['2026-04-01T00:00:00.000Z', 30],
    ['2026-01-01T00:00:00.000Z', 31],
  ])('charges the whole price at the first instant of %s (%i days)', (iso) => {
    expect(prorate(2400, at(iso))).toBe(2400);
  });

  it.each([
    ['2026-02-15T00:00:00.000Z', 2400, 1200],
    ['2028-02-15T12:00:00.000Z', 2900, 1450],
    ['2026-04-16T00:00:00.000Z', 3000, 1500],
    ['2026-01-16T12:00:00.000Z', 3100, 1550],
  ])('charges exactly half in the middle of the month (%s)', (iso, monthly, expected) => {
    expect(prorate(monthly, at(iso))).toBe(expected);
  });

  it('charges nothing for the last second of a month but rounds half a cent up', () => {
    expect(prorate(2400, at('2026-02-28T23:59:59.000Z'))).toBe(0);
    // 31-day month, 1/31 of 3100 left is exactly 100.
    expect(prorate(3100, at('2026-01-31T00:00:00.000Z'))).toBe(100);
    // 28-day month: 1 of 56 half-days left of 1 cent × 28 = 0.5 → 1.
    expect(prorate(28, at('2026-02-28T12:00:00.000Z'))).toBe(1);
    expect(prorate(27, at('2026-02-28T12:00:00.000Z'))).toBe(0);
  });

  it('stays exact for large prices', () => {
    expect(prorate(99_999_900, at('2026-06-16T00:00:00.000Z'))).toBe(49_999_950);
  });

  it('refuses fractional or negative prices', () => {
    expect(() => prorate(1.5, at('2026-06-16T00:00:00.000Z'))).toThrow(RangeError);
    expect(() => prorate(-1, at('2026-06-16T00:00:00.000Z'))).toThrow(RangeError);
  });
});

describe('billing period', () => {
  it('is the UTC calendar month', () => {
    expect(billingPeriodOf(at('2026-12-31T23:59:59.999Z'))).toEqual({ start: at('2026-12-01T00:00:00.000Z'), end: at('2027-01-01T00:00:00.000Z') });
    expect(nextBillingDate(at('2028-02-29T10:00:00Z')).toISOString()).toBe('2028-03-01T00:00:00.000Z');
    expect(monthKeyOf(at('2026-03-01T00:00:00Z'))).toBe('2026-03');
  });
});

import { describe, expect, it } from 'vitest';
import { graceExpiredBefore, nextDunningAttempt, suspensionDueAt } from './dunningSchedule';

const policy = { retryDays: [1, 3, 5], graceDays: 7 };
const firstFailure = new Date('2026-11-01T00:05:00.000Z');
const at = (iso: string) => new Date(iso);

describe('nextDunningAttempt', () => {
  it.each([
    ['2026-11-01T00:05:00.000Z', '2026-11-02T00:05:00.000Z'],
    ['2026-11-02T00:04:59.999Z', '2026-11-02T00:05:00.000Z'],
    ['2026-11-02T00:05:00.000Z', '2026-11-04T00:05:00.000Z'],
    ['2026-11-03T12:00:00.000Z', '2026-11-04T00:05:00.000Z'],
    ['2026-11-04T00:05:00.000Z', '2026-11-06T00:05:00.000Z'],
  ])('at %s the next attempt is %s (days counted from the first failure)', (now, next) => {
    expect(nextDunningAttempt(firstFailure, at(now), policy)?.toISOString()).toBe(next);
  });

  it('has none left once the last retry day has come', () => {
    expect(nextDunningAttempt(firstFailure, at('2026-11-06T00:05:00.000Z'), policy)).toBeNull();
    expect(nextDunningAttempt(firstFailure, at('2026-12-01T00:00:00.000Z'), policy)).toBeNull();
  });

  it('has none without retry days', () => {
    expect(nextDunningAttempt(firstFailure, firstFailure, { retryDays: [], graceDays: 7 })).toBeNull();
  });
});

describe('the grace period', () => {
  it('ends graceDays after the first failure', () => {
    expect(suspensionDueAt(firstFailure, policy).toISOString()).toBe('2026-11-08T00:05:00.000Z');
    expect(graceExpiredBefore(at('2026-11-08T00:05:00.000Z'), policy).toISOString()).toBe(firstFailure.toISOString());
    expect(graceExpiredBefore(at('2026-11-08T00:05:00.000Z'), { retryDays: [], graceDays: 0 }).toISOString()).toBe('2026-11-08T00:05:00.000Z');
  });
});

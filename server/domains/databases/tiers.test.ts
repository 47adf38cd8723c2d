import { describe, expect, it } from 'vitest';
import { storageChange, storageLimitBytes, TIER_LIMITS } from './tiers';

describe('storage limit decisions', () => {
  it('turns a writable tenant read-only only past its tier’s limit, in decimal gigabytes', () => {
    expect(storageLimitBytes('MICRO')).toBe(2_000_000_000);
    expect(storageChange(2_000_000_000, 'MICRO', false)).toBeNull();
    expect(storageChange(2_000_000_001, 'MICRO', false)).toBe('readOnly');
    expect(storageChange(2_000_000_001, 'STARTER', false)).toBeNull();
  });

  it('turns a read-only tenant writable again at or under the limit, and leaves it while over', () => {
    expect(storageChange(2_000_000_001, 'MICRO', true)).toBeNull();
    expect(storageChange(2_000_000_000, 'MICRO', true)).toBe('writable');
    expect(storageChange(0, 'MICRO', true)).toBe('writable');
    expect(storageChange(0, 'MICRO', false)).toBeNull();
  });

  it('follows SPEC’s tier table', () => {
    expect(TIER_LIMITS).toEqual({
      MICRO: { maxConnections: 2, storageGb: 2, poolSize: 3, monthly: 500 },
      STARTER: { maxConnections: 3, storageGb: 5, poolSize: 5, monthly: 900 },
      GROWTH: { maxConnections: 10, storageGb: 20, poolSize: 15, monthly: 2900 },
      SCALE: { maxConnections: 25, storageGb: 50, poolSize: 30, monthly: 9900 },
    });
    expect(storageLimitBytes('SCALE')).toBe(50_000_000_000);
  });
});

import { describe, expect, it } from 'vitest';
import { CDN_PRICES, exceededAllowances, SUSPENSION_TOLERANCE, TIER_PLANS } from './tiers';

const GB = 1_000_000_000;
const within = { storageBytes: 0, egressBytes: 0, requests: 0 };

describe('bucket tiers', () => {
  it("charges SPEC's monthly prices in cents, and allows ours", () => {
    expect(Object.fromEntries(Object.entries(TIER_PLANS).map(([tier, plan]) => [tier, plan.monthly]))).toEqual({
      STARTER: 500,
      GROWTH: 2000,
      SCALE: 7500,
      ENTERPRISE: 30_000,
    });
    expect(TIER_PLANS.STARTER).toEqual({ monthly: 500, storageBytes: 250 * GB, egressBytes: 1000 * GB, requests: 5_000_000 });
    expect(TIER_PLANS.GROWTH).toEqual({ monthly: 2000, storageBytes: 1000 * GB, egressBytes: 5000 * GB, requests: 25_000_000 });
    expect(TIER_PLANS.SCALE).toEqual({ monthly: 7500, storageBytes: 5000 * GB, egressBytes: 20_000 * GB, requests: 100_000_000 });
    expect(TIER_PLANS.ENTERPRISE).toEqual({ monthly: 30_000, storageBytes: 25_000 * GB, egressBytes: 100_000 * GB, requests: 500_000_000 });
  });

  it("meters the CDN at SPEC's prices: 12 cents per GB, 150 cents per million requests", () => {
    expect(CDN_PRICES).toEqual({ perGb: 12, perMillionRequests: 150 });
  });

  it('names each allowance a usage goes past, and none at exactly the allowance', () => {
    const plan = TIER_PLANS.STARTER;
    expect(exceededAllowances({ storageBytes: plan.storageBytes, egressBytes: plan.egressBytes, requests: plan.requests }, 'STARTER')).toEqual([]);
    expect(exceededAllowances({ ...within, storageBytes: plan.storageBytes + 1 }, 'STARTER')).toEqual(['storageBytes']);
    expect(exceededAllowances({ ...within, egressBytes: plan.egressBytes + 1 }, 'STARTER')).toEqual(['egressBytes']);
    expect(exceededAllowances({ ...within, requests: plan.requests + 1 }, 'STARTER')).toEqual(['requests']);
    expect(exceededAllowances({ storageBytes: plan.storageBytes + 1, egressBytes: plan.egressBytes + 1, requests: plan.requests + 1 }, 'STARTER')).toEqual([
      'storageBytes',
      'egressBytes',
      'requests',
    ]);
    expect(exceededAllowances({ ...within, storageBytes: plan.storageBytes + 1 }, 'GROWTH')).toEqual([]);
  });

  it('suspends only past 10% over: 110% of an allowance still passes', () => {
    expect(SUSPENSION_TOLERANCE).toBe(1.1);
    const limit = TIER_PLANS.STARTER.storageBytes * SUSPENSION_TOLERANCE;
    expect(exceededAllowances({ ...within, storageBytes: limit }, 'STARTER', SUSPENSION_TOLERANCE)).toEqual([]);
    expect(exceededAllowances({ ...within, storageBytes: limit + 1 }, 'STARTER', SUSPENSION_TOLERANCE)).toEqual(['storageBytes']);
    expect(exceededAllowances({ ...within, storageBytes: TIER_PLANS.STARTER.storageBytes + 1 }, 'STARTER', SUSPENSION_TOLERANCE)).toEqual([]);
  });
});

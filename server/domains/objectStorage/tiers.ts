import type { BucketTier } from '../../../db/schema/objectStorage';

const GB = 1_000_000_000;
const TB = 1000 * GB;

/** What each tier costs (SPEC's prices, minor units) and allows each month (ours; decimal units, as S3 providers bill). */
export const TIER_PLANS: Record<BucketTier, { monthly: number; storageBytes: number; egressBytes: number; requests: number }> = {
  STARTER: { monthly: 500, storageBytes: 250 * GB, egressBytes: 1 * TB, requests: 5_000_000 },
  GROWTH: { monthly: 2000, storageBytes: 1 * TB, egressBytes: 5 * TB, requests: 25_000_000 },
  SCALE: { monthly: 7500, storageBytes: 5 * TB, egressBytes: 20 * TB, requests: 100_000_000 },
  ENTERPRISE: { monthly: 30_000, storageBytes: 25 * TB, egressBytes: 100 * TB, requests: 500_000_000 },
};

/** SPEC: a bucket is suspended once its usage exceeds the tier's allowance by 10%. */
export const SUSPENSION_TOLERANCE = 1.1;

/** SPEC's metered CDN prices: USD 0.12 per GB and 0.015 per 10,000 requests, i.e. 150 cents per million. */
export const CDN_PRICES = { perGb: 12, perMillionRequests: 150 } as const;

export interface UsageFigures {
  storageBytes: number;
  egressBytes: number;
  requests: number;
}

/** The allowances a usage goes past, times `factor` (1 to fit a tier, SUSPENSION_TOLERANCE to stay open). */
export function exceededAllowances(usage: UsageFigures, tier: BucketTier, factor = 1): Array<keyof UsageFigures> {
  const plan = TIER_PLANS[tier];
  return (['storageBytes', 'egressBytes', 'requests'] as const).filter((key) => usage[key] > plan[key] * factor);
}

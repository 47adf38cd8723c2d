import type { HostingTier } from '../../../db/schema/hosting';

/** What a tier gives a site; ours, since SPEC leaves the figures open. */
export interface TierLimits {
  /** Monthly list price in minor units. */
  monthly: number;
  diskGb: number;
  phpWorkers: number;
  memoryMb: number;
  domains: number;
  databases: number;
  connectionsPerDatabase: number;
}

export const TIER_LIMITS: Record<HostingTier, TierLimits> = {
  STARTER: { monthly: 500, diskGb: 10, phpWorkers: 2, memoryMb: 256, domains: 3, databases: 2, connectionsPerDatabase: 10 },
  GROWTH: { monthly: 1500, diskGb: 25, phpWorkers: 5, memoryMb: 512, domains: 10, databases: 10, connectionsPerDatabase: 25 },
  SCALE: { monthly: 3500, diskGb: 60, phpWorkers: 12, memoryMb: 1024, domains: 30, databases: 30, connectionsPerDatabase: 50 },
};

/** Extra storage is sold in blocks of 10 GB at this monthly price each. */
export const EXTRA_STORAGE_BLOCK_GB = 10;
export const EXTRA_STORAGE_BLOCK_MONTHLY = 200;
export const MAX_EXTRA_STORAGE_GB = 500;

/** The monthly price of a site: its tier and its extra storage blocks. */
export function siteMonthly(tier: HostingTier, extraStorageGb: number): number {
  return TIER_LIMITS[tier].monthly + (extraStorageGb / EXTRA_STORAGE_BLOCK_GB) * EXTRA_STORAGE_BLOCK_MONTHLY;
}

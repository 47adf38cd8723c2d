import type { DatabaseTier } from '../../../db/schema/databases';

/** What a tier gives a tenant, from SPEC's tier table. */
export interface TierLimits {
  /** Direct connections (the login role's CONNECTION LIMIT). */
  maxConnections: number;
  /** Decimal gigabytes, as sold. */
  storageGb: number;
  /** The pooler's server connections for the tenant. */
  poolSize: number;
  /** Monthly list price in minor units. */
  monthly: number;
}

export const TIER_LIMITS: Record<DatabaseTier, TierLimits> = {
  MICRO: { maxConnections: 2, storageGb: 2, poolSize: 3, monthly: 500 },
  STARTER: { maxConnections: 3, storageGb: 5, poolSize: 5, monthly: 900 },
  GROWTH: { maxConnections: 10, storageGb: 20, poolSize: 15, monthly: 2900 },
  SCALE: { maxConnections: 25, storageGb: 50, poolSize: 30, monthly: 9900 },
};

export function storageLimitBytes(tier: DatabaseTier): number {
  return TIER_LIMITS[tier].storageGb * 1_000_000_000;
}

/** What a reading means for a tenant: read-only past its tier's limit (not at it), writable again at or under it. */
export function storageChange(usedBytes: number, tier: DatabaseTier, readOnly: boolean): 'readOnly' | 'writable' | null {
  const over = usedBytes > storageLimitBytes(tier);
  if (over && !readOnly) return 'readOnly';
  if (!over && readOnly) return 'writable';
  return null;
}

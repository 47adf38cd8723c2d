import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { buckets, type BucketTier } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { billingPeriodOf } from '../../billing/period';
import type { Preview, TierChangePreview } from '../../billing/preview';
import { endBillingItem, previewPurchase, previewTierChangeOf, purchaseCreation, purchaseTierChange } from '../../billing/purchases';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getObjectStorageProvider, type BucketSettings } from '../../providers/objectStorage';
import { syncProjectWideCredentials } from './credentials';
import type { Bucket, BucketUsageView } from './schema';
import { CDN_PRICES, exceededAllowances, SUSPENSION_TOLERANCE, TIER_PLANS } from './tiers';

export const BUCKET_RESOURCE_TYPE = 'bucket';
/** How long the simulated CDN takes to hand out a domain. */
export const CDN_PROVISION_MS = 30_000;
/** A usage read on request older than this is measured again (SPEC allows 24 hours). */
export const USAGE_REFRESH_MS = 5 * 60_000;

export type BucketRow = typeof buckets.$inferSelect;

export interface CreateBucketRequest {
  projectId: string;
  actorUserId: string;
  name: string;
  region: string;
  tier: BucketTier;
  publicAccess: boolean;
  versioning: boolean;
  cdnEnabled: boolean;
  corsRules: BucketRow['corsRules'];
}

export async function listBuckets(projectId: string): Promise<Bucket[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), isNull(buckets.deletedAt)))
    .orderBy(desc(buckets.createdAt), desc(buckets.id));
  const settled = await Promise.all(rows.map(settleCdn));
  return settled.map(toView);
}

/**
 * Buys a bucket: everything refusable is checked first (CDN without public access is a 400, a
 * name any live bucket holds a 409), then the engine charges the prorated tier price, the bucket
 * is made on the endpoint with its settings (a failure refunds and answers 502), and the row, its
 * billing item and the charge are written together. Project-wide credentials then reach it.
 */
export async function createBucket(request: CreateBucketRequest): Promise<{ deployed: true }> {
  if (request.cdnEnabled && !request.publicAccess) throw cdnNeedsPublicAccess();
  const db = await getDb();
  await assertNameFree(db, request.name);
  const bucketId = newId('bkt');
  const settings: BucketSettings = { publicAccess: request.publicAccess, versioning: request.versioning, corsRules: request.corsRules, suspended: false };
  const provider = getObjectStorageProvider();
  try {
    await purchaseCreation({
      projectId: request.projectId,
      actorUserId: request.actorUserId,
      resourceType: BUCKET_RESOURCE_TYPE,
      resourceKey: request.name,
      category: 'objectStorage',
      description: `Bucket ${request.name} (${request.tier}, ${request.region})`,
      monthly: TIER_PLANS[request.tier].monthly,
      assertAvailable: (tx) => assertNameFree(tx, request.name),
      provision: () => upstream(() => provider.createBucket(request.name, request.region, settings)),
      unprovision: () => discardBucket(request.name),
      fulfil: async (tx, { billingItemId }) => {
        const now = new Date();
        await tx.insert(buckets).values({
          id: bucketId,
          projectId: request.projectId,
          name: request.name,
          region: request.region,
          tier: request.tier,
          publicAccess: request.publicAccess,
          versioning: request.versioning,
          corsRules: request.corsRules,
          cdnEnabled: request.cdnEnabled,
          cdnRequestedAt: request.cdnEnabled ? now : null,
          status: 'active',
          billingItemId,
          createdAt: now,
          updatedAt: now,
        });
        await emit(tx, request.projectId, 'bucket.created', {
          bucketId,
          name: request.name,
          tier: request.tier,
          region: request.region,
          by: request.actorUserId,
        });
        return { resourceId: bucketId, result: undefined };
      },
    });
  } catch (err) {
    if (isUniqueViolation(err, 'buckets_live_name_key')) throw nameTaken(request.name);
    throw err;
  }
  await syncProjectWideCredentials(request.projectId);
  return { deployed: true };
}

export async function previewBucket(projectId: string, tier: BucketTier): Promise<Preview> {
  return previewPurchase(projectId, TIER_PLANS[tier].monthly);
}

export async function previewTierChange(projectId: string, bucketId: string, tier: BucketTier): Promise<TierChangePreview> {
  const row = await liveBucket(projectId, bucketId);
  return previewTierChangeOf(projectId, row.billingItemId, TIER_PLANS[tier].monthly);
}

/**
 * An upgrade is invoiced now for the prorated difference (a declined card: 402 and nothing
 * changes) and reopens a bucket suspended for its usage. A downgrade is allowed only when the
 * current usage fits the target tier (409 otherwise) and credits the prorated difference back.
 */
export async function changeTier(projectId: string, bucketId: string, actorUserId: string, tier: BucketTier): Promise<Bucket> {
  const row = await refreshUsage(await liveBucket(projectId, bucketId), 0);
  if (row.tier === tier) throw new AppError('CONFLICT', `Bucket "${row.name}" is already on ${tier}`);
  const upgrade = TIER_PLANS[tier].monthly > TIER_PLANS[row.tier].monthly;
  if (!upgrade) {
    const over = exceededAllowances(row, tier);
    if (over.length > 0) {
      throw new AppError(
        'CONFLICT',
        `Bucket "${row.name}" uses more than ${tier} allows (${over.join(', ')}); delete data or wait for the next month before downgrading`,
      );
    }
  }
  const reopen = upgrade && row.status === 'suspended';
  const { result } = await purchaseTierChange({
    projectId,
    actorUserId,
    billingItemId: row.billingItemId,
    monthly: TIER_PLANS[tier].monthly,
    description: `Bucket ${row.name} (${tier}, ${row.region})`,
    apply: async (tx) => {
      const [saved] = await tx
        .update(buckets)
        .set({ tier, ...(reopen ? { status: 'active' as const, suspendedAt: null } : {}), updatedAt: new Date() })
        .where(eq(buckets.id, row.id))
        .returning();
      await emit(tx, projectId, 'bucket.tier_changed', { bucketId: row.id, name: row.name, from: row.tier, to: tier, reopened: reopen, by: actorUserId });
      return saved!;
    },
  });
  if (reopen) await applySettingsLogged(result);
  return toView(result);
}

export async function replaceCors(projectId: string, bucketId: string, actorUserId: string, corsRules: BucketRow['corsRules']): Promise<Bucket> {
  const row = await liveBucket(projectId, bucketId);
  await upstream(() => getObjectStorageProvider().applySettings(row.name, settingsOf({ ...row, corsRules })));
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [saved] = await tx.update(buckets).set({ corsRules, updatedAt: new Date() }).where(eq(buckets.id, row.id)).returning();
    await emit(tx, projectId, 'bucket.cors_replaced', { bucketId: row.id, name: row.name, rules: corsRules.length, by: actorUserId });
    return toView(saved!);
  });
}

/** The CDN serves public buckets only (400 otherwise); its domain arrives a little after enabling. */
export async function setCdn(
  projectId: string,
  bucketId: string,
  actorUserId: string,
  cdnEnabled: boolean,
): Promise<{ cdnEnabled: boolean; cdnDomain: string | null }> {
  const row = await settleCdn(await liveBucket(projectId, bucketId));
  if (cdnEnabled && !row.publicAccess) throw cdnNeedsPublicAccess();
  if (row.cdnEnabled === cdnEnabled) return { cdnEnabled, cdnDomain: row.cdnDomain };
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [saved] = await tx
      .update(buckets)
      .set({ cdnEnabled, cdnRequestedAt: cdnEnabled ? new Date() : null, cdnDomain: null, updatedAt: new Date() })
      .where(eq(buckets.id, row.id))
      .returning();
    await emit(tx, projectId, cdnEnabled ? 'bucket.cdn_enabled' : 'bucket.cdn_disabled', { bucketId: row.id, name: row.name, by: actorUserId });
    return { cdnEnabled: saved!.cdnEnabled, cdnDomain: saved!.cdnDomain };
  });
}

/** Removes the bucket and its objects at the endpoint (502 and kept when that fails), then ends its billing item. */
export async function deleteBucket(projectId: string, bucketId: string, actorUserId: string): Promise<void> {
  const row = await liveBucket(projectId, bucketId);
  await upstream(() => getObjectStorageProvider().deleteBucket(row.name));
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(buckets)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(buckets.id, row.id), isNull(buckets.deletedAt)))
      .returning({ id: buckets.id });
    if (!deleted) return;
    await endBillingItem(tx, projectId, BUCKET_RESOURCE_TYPE, row.id, now);
    await emit(tx, projectId, 'bucket.deleted', { bucketId: row.id, name: row.name, by: actorUserId });
  });
  await syncProjectWideCredentials(projectId);
}

export async function bucketUsage(projectId: string, bucketId: string): Promise<BucketUsageView> {
  const row = await refreshUsage(await liveBucket(projectId, bucketId), USAGE_REFRESH_MS);
  const plan = TIER_PLANS[row.tier];
  return {
    storageBytes: row.storageBytes,
    egressBytes: row.egressBytes,
    requests: row.requests,
    objects: row.objects,
    allowances: { storageBytes: plan.storageBytes, egressBytes: plan.egressBytes, requests: plan.requests },
    periodStart: billingPeriodOf(new Date()).start.toISOString(),
    measuredAt: (row.usageMeasuredAt ?? new Date()).toISOString(),
    cdn: { enabled: row.cdnEnabled, ...CDN_PRICES, currency: getConfig().BILLING_CURRENCY },
  };
}

/**
 * The hourly pass: every live bucket's usage is measured; an active one more than 10% over an
 * allowance of its tier is suspended at the endpoint. Returns how many were suspended.
 */
export async function enforceUsageLimits(now = new Date()): Promise<number> {
  const db = await getDb();
  const rows = await db.select().from(buckets).where(isNull(buckets.deletedAt)).orderBy(asc(buckets.createdAt));
  let suspended = 0;
  for (const stale of rows) {
    let row: BucketRow;
    try {
      row = await refreshUsage(stale, 0, now);
    } catch (err) {
      getLogger().warn({ err, bucketId: stale.id }, 'bucket usage not measured this pass');
      continue;
    }
    const over = exceededAllowances(row, row.tier, SUSPENSION_TOLERANCE);
    if (row.status !== 'active' || over.length === 0) continue;
    const [marked] = await db.transaction(async (tx) => {
      const updated = await tx
        .update(buckets)
        .set({ status: 'suspended', suspendedAt: now, updatedAt: now })
        .where(and(eq(buckets.id, row.id), eq(buckets.status, 'active')))
        .returning();
      if (updated[0])
        await emit(tx, row.projectId, 'bucket.suspended', { bucketId: row.id, name: row.name, tier: row.tier, over, reason: 'usage_over_allowance' });
      return updated;
    });
    if (!marked) continue;
    await applySettingsLogged(marked);
    suspended += 1;
  }
  return suspended;
}

async function refreshUsage(row: BucketRow, maxAgeMs: number, now = new Date()): Promise<BucketRow> {
  if (row.usageMeasuredAt && now.getTime() - row.usageMeasuredAt.getTime() < maxAgeMs) return row;
  const usage = await upstream(() => getObjectStorageProvider().usage(row.name, billingPeriodOf(now).start));
  const db = await getDb();
  const [saved] = await db
    .update(buckets)
    .set({ storageBytes: usage.storageBytes, objects: usage.objects, egressBytes: usage.egressBytes, requests: usage.requests, usageMeasuredAt: now })
    .where(eq(buckets.id, row.id))
    .returning();
  return saved ?? row;
}

/** The simulated CDN hands out its domain once the provisioning delay has passed. */
async function settleCdn(row: BucketRow): Promise<BucketRow> {
  if (!row.cdnEnabled || row.cdnDomain || !row.cdnRequestedAt) return row;
  if (Date.now() - row.cdnRequestedAt.getTime() < CDN_PROVISION_MS) return row;
  const db = await getDb();
  const [saved] = await db
    .update(buckets)
    .set({ cdnDomain: `${row.name}.cdn.simulator.invalid` })
    .where(and(eq(buckets.id, row.id), eq(buckets.cdnEnabled, true), isNull(buckets.cdnDomain)))
    .returning();
  return saved ?? row;
}

export function settingsOf(row: Pick<BucketRow, 'publicAccess' | 'versioning' | 'corsRules' | 'status' | 'billingSuspendedAt'>): BucketSettings {
  return {
    publicAccess: row.publicAccess,
    versioning: row.versioning,
    corsRules: row.corsRules,
    suspended: row.status === 'suspended' || row.billingSuspendedAt !== null,
  };
}

/** Pushes a row's settings to the endpoint; a failure is logged and the next hourly pass tries again. */
export async function applySettingsLogged(row: BucketRow): Promise<boolean> {
  try {
    await upstream(() => getObjectStorageProvider().applySettings(row.name, settingsOf(row)));
    return true;
  } catch (err) {
    getLogger().error({ err, bucketId: row.id }, 'bucket settings not applied at the endpoint');
    return false;
  }
}

export async function liveBucket(projectId: string, bucketId: string): Promise<BucketRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(buckets)
    .where(and(eq(buckets.id, bucketId), eq(buckets.projectId, projectId), isNull(buckets.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Bucket not found');
  return row;
}

async function assertNameFree(db: DbOrTx, name: string): Promise<void> {
  const [clash] = await db
    .select({ id: buckets.id })
    .from(buckets)
    .where(and(eq(buckets.name, name), isNull(buckets.deletedAt)));
  if (clash) throw nameTaken(name);
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `The bucket name "${name}" is taken; bucket names are shared by every project`);
}

function cdnNeedsPublicAccess(): AppError {
  return new AppError('BAD_REQUEST', 'The CDN serves public buckets only: turn publicAccess on to enable it');
}

async function discardBucket(name: string): Promise<void> {
  try {
    await getObjectStorageProvider().deleteBucket(name);
  } catch (err) {
    getLogger().error({ err, bucket: name }, 'bucket of a failed purchase could not be removed');
  }
}

/** Endpoint failures answer 502; a bucket the endpoint no longer knows is one too. */
export async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError && err.code !== 'NOT_FOUND') throw err;
    throw new AppError('UPSTREAM_ERROR', 'The object storage endpoint could not complete the request; try again', { cause: err });
  }
}

export function toView(row: BucketRow): Bucket {
  return {
    id: row.id,
    name: row.name,
    provider: 'S3_PROVIDER',
    region: row.region,
    tier: row.tier,
    status: row.billingSuspendedAt ? 'suspended' : row.status,
    publicAccess: row.publicAccess,
    versioning: row.versioning,
    cdnEnabled: row.cdnEnabled,
    cdnDomain: row.cdnDomain,
    corsRules: row.corsRules,
    endpoint: getObjectStorageProvider().endpoint(row.region),
    createdAt: row.createdAt.toISOString(),
  };
}

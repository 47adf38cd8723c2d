import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { databaseTenants } from '../../../db/schema';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getTenantClusterProvider } from '../../providers/databases';
import type { TenantRow } from './tenants';
import { storageChange, TIER_LIMITS } from './tiers';

export interface StoragePass {
  measured: number;
  madeReadOnly: number;
  madeWritable: number;
}

/**
 * Measures every live tenant's database. One over its tier's storage limit becomes read-only (new
 * transactions default to read-only; a session may still opt into read-write to delete data, which
 * is how space is freed) and its project is told; one back under the limit is writable again. A
 * tenant the cluster cannot measure is skipped until the next pass.
 */
export async function enforceStorageLimits(now = new Date()): Promise<StoragePass> {
  const provider = getTenantClusterProvider();
  if (provider.kind === 'unconfigured') return { measured: 0, madeReadOnly: 0, madeWritable: 0 };
  const db = await getDb();
  const rows = await db.select().from(databaseTenants).where(isNull(databaseTenants.deletedAt));
  const pass: StoragePass = { measured: 0, madeReadOnly: 0, madeWritable: 0 };
  for (const row of rows) {
    try {
      const change = await measure(row, now);
      pass.measured += 1;
      if (change === 'readOnly') pass.madeReadOnly += 1;
      if (change === 'writable') pass.madeWritable += 1;
    } catch (err) {
      getLogger().error({ err, tenantId: row.id }, 'tenant database not measured this pass');
    }
  }
  return pass;
}

async function measure(row: TenantRow, now: Date): Promise<'readOnly' | 'writable' | null> {
  const provider = getTenantClusterProvider();
  const used = await provider.databaseSize(row.dbName);
  const change = storageChange(used, row.tier, row.readOnlySince !== null);
  if (change) await provider.setReadOnly(row, change === 'readOnly');
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [saved] = await tx
      .update(databaseTenants)
      .set({ storageBytes: used, storageMeasuredAt: now, ...(change ? { readOnlySince: change === 'readOnly' ? now : null } : {}) })
      .where(and(eq(databaseTenants.id, row.id), isNull(databaseTenants.deletedAt)))
      .returning({ projectId: databaseTenants.projectId });
    if (!change || !saved?.projectId) return;
    const payload = { tenantId: row.id, dbName: row.dbName, tier: row.tier, usedBytes: used, limitGb: TIER_LIMITS[row.tier].storageGb };
    await emit(tx, saved.projectId, change === 'readOnly' ? 'database_tenant.storage_limit_reached' : 'database_tenant.writable_again', payload);
  });
  return change;
}

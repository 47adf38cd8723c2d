import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { databaseTenants, DATABASE_TIERS, type DatabaseTier } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Preview, TierChangePreview } from '../../billing/preview';
import { endBillingItem, previewPurchase, previewTierChangeOf, purchaseCreation, purchaseTierChange } from '../../billing/purchases';
import { getConfig } from '../../platform/config';
import { AppError, callUpstream } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getTenantClusterProvider } from '../../providers/databases';
import type { TenantRoles } from '../../providers/databases/types';
import type { CreateTenantInput, Tenant } from './schema';
import { storageLimitBytes, TIER_LIMITS } from './tiers';

export const TENANT_RESOURCE_TYPE = 'database_tenant';
export type TenantRow = typeof databaseTenants.$inferSelect;

export async function listTenants(projectId: string): Promise<Tenant[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(databaseTenants)
    .where(and(eq(databaseTenants.projectId, projectId), isNull(databaseTenants.deletedAt)))
    .orderBy(desc(databaseTenants.createdAt), desc(databaseTenants.id));
  return rows.map((row) => toView(row));
}

export async function getTenant(projectId: string, tenantId: string): Promise<Tenant> {
  return toView(await liveTenant(projectId, tenantId));
}

export function prices() {
  const currency = getConfig().BILLING_CURRENCY.toUpperCase();
  return DATABASE_TIERS.map((tier) => {
    const { monthly, maxConnections, storageGb, poolSize } = TIER_LIMITS[tier];
    return { tier, monthly, currency, maxConnections, storageGb, poolSize };
  });
}

/** Whether tenants can be created now, and why not: the panel shows it before anyone tries. */
export async function availability(): Promise<{ available: boolean; reason: string | null; pooler: boolean; retentionDays: number }> {
  const provider = getTenantClusterProvider();
  const retentionDays = getConfig().DATABASES_RETENTION_DAYS;
  try {
    await provider.assertReady();
    return { available: true, reason: null, pooler: provider.endpoints().pool !== undefined, retentionDays };
  } catch (err) {
    if (err instanceof AppError) return { available: false, reason: err.message, pooler: false, retentionDays };
    throw err;
  }
}

export function previewTenant(projectId: string, tier: DatabaseTier): Promise<Preview> {
  return previewPurchase(projectId, TIER_LIMITS[tier].monthly);
}

/**
 * Buys a tenant: the cluster must be able to take it (503 naming the setting otherwise) and the
 * name must be free on it (409), both before anything is charged. Then the prorated tier price is
 * charged, the database, its roles and its pool are made (a failure refunds the charge and answers
 * 502), and the row is written. The password is answered here and never stored.
 */
export async function createTenant(projectId: string, actorUserId: string, input: CreateTenantInput): Promise<Tenant> {
  const provider = getTenantClusterProvider();
  await provider.assertReady();
  const db = await getDb();
  await assertNameFree(db, input.dbName);
  const tenantId = newId('pdb');
  const roles = rolesFor(input.dbName);
  const password = newPassword();
  const limits = TIER_LIMITS[input.tier];
  try {
    const { result } = await purchaseCreation({
      projectId,
      actorUserId,
      resourceType: TENANT_RESOURCE_TYPE,
      resourceKey: input.dbName,
      category: 'databases',
      description: description(input.dbName, input.tier),
      monthly: limits.monthly,
      assertAvailable: (tx) => assertNameFree(tx, input.dbName),
      // The first storage reading comes with the database, so the panel's meter starts filled.
      provision: () =>
        upstream(async () => {
          await provider.createTenant({ ...roles, password, maxConnections: limits.maxConnections, poolSize: limits.poolSize, poolMode: input.poolMode });
          return { storageBytes: await provider.databaseSize(input.dbName), storageMeasuredAt: new Date() };
        }),
      unprovision: () => provider.dropTenant(roles),
      fulfil: async (tx, { billingItemId, provisioned }) => {
        const [row] = await tx
          .insert(databaseTenants)
          .values({ id: tenantId, projectId, ...roles, tier: input.tier, poolMode: input.poolMode, billingItemId, ...provisioned })
          .returning();
        await emit(tx, projectId, 'database_tenant.created', { tenantId, dbName: input.dbName, tier: input.tier, poolMode: input.poolMode, by: actorUserId });
        return { resourceId: tenantId, result: row! };
      },
    });
    return toView(result, password);
  } catch (err) {
    if (isUniqueViolation(err, 'database_tenants_cluster_name_key')) throw nameTaken(input.dbName);
    throw err;
  }
}

/**
 * A new password for the tenant: the old one stops working at once, directly and through the
 * pool, and every open session of the tenant is dropped. Answered once, never stored.
 */
export async function rotatePassword(projectId: string, tenantId: string, actorUserId: string): Promise<Tenant> {
  const row = await liveTenant(projectId, tenantId);
  const password = newPassword();
  await upstream(() => getTenantClusterProvider().setPassword(row, password));
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.update(databaseTenants).set({ updatedAt: new Date() }).where(eq(databaseTenants.id, row.id));
    await emit(tx, projectId, 'database_tenant.password_rotated', { tenantId, dbName: row.dbName, by: actorUserId });
  });
  return toView(row, password);
}

export async function previewTierChange(projectId: string, tenantId: string, tier: DatabaseTier): Promise<TierChangePreview> {
  const row = await liveTenant(projectId, tenantId);
  return previewTierChangeOf(projectId, row.billingItemId, TIER_LIMITS[tier].monthly);
}

/**
 * Moves a tenant to another tier: connection limit, pool size and storage limit apply at once. A
 * downgrade needs the data to fit the target tier's storage (409 otherwise). An upgrade is charged
 * the prorated difference (402 and unchanged when declined); a downgrade credits it back. A
 * read-only tenant that now fits is writable again.
 */
export async function changeTier(projectId: string, tenantId: string, actorUserId: string, tier: DatabaseTier): Promise<Tenant> {
  const row = await liveTenant(projectId, tenantId);
  if (row.tier === tier) throw new AppError('CONFLICT', `Database "${row.dbName}" is already on ${tier}`);
  const provider = getTenantClusterProvider();
  const used = await upstream(() => provider.databaseSize(row.dbName));
  if (used > storageLimitBytes(tier)) {
    throw new AppError(
      'CONFLICT',
      `Database "${row.dbName}" holds ${formatGb(used)}; ${tier} allows ${TIER_LIMITS[tier].storageGb} GB. Free some space first.`,
    );
  }
  const target = TIER_LIMITS[tier];
  const { result } = await purchaseTierChange({
    projectId,
    actorUserId,
    billingItemId: row.billingItemId,
    monthly: target.monthly,
    description: description(row.dbName, tier),
    apply: async (tx) => {
      const now = new Date();
      const [saved] = await tx
        .update(databaseTenants)
        .set({ tier, storageBytes: used, storageMeasuredAt: now, readOnlySince: null, updatedAt: now })
        .where(eq(databaseTenants.id, row.id))
        .returning();
      await emit(tx, projectId, 'database_tenant.tier_changed', { tenantId, dbName: row.dbName, from: row.tier, to: tier, by: actorUserId });
      // Applied inside the transaction: when the cluster refuses, nothing is recorded and an upgrade's charge is refunded.
      await upstream(() => provider.setLimits(row, { maxConnections: target.maxConnections, poolSize: target.poolSize }, row.poolMode));
      if (row.readOnlySince) await upstream(() => provider.setReadOnly(row, false));
      return saved!;
    },
  });
  return toView(result);
}

/**
 * Deprovisions a tenant: logins are refused and open sessions dropped, the pool is removed (502 and
 * kept when the cluster fails), then billing stops. The database and its data are kept for
 * DATABASES_RETENTION_DAYS, then dropped; the name stays taken until then.
 */
export async function deleteTenant(projectId: string, tenantId: string, actorUserId: string): Promise<void> {
  const row = await liveTenant(projectId, tenantId);
  await upstream(() => getTenantClusterProvider().revokeTenant(row));
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(databaseTenants)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(databaseTenants.id, row.id), isNull(databaseTenants.deletedAt)))
      .returning({ id: databaseTenants.id });
    if (!deleted) return;
    await endBillingItem(tx, projectId, TENANT_RESOURCE_TYPE, row.id, now);
    await emit(tx, projectId, 'database_tenant.deleted', { tenantId, dbName: row.dbName, retainedDays: getConfig().DATABASES_RETENTION_DAYS, by: actorUserId });
  });
}

export async function liveTenant(projectId: string, tenantId: string): Promise<TenantRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(databaseTenants)
    .where(and(eq(databaseTenants.id, tenantId), eq(databaseTenants.projectId, projectId), isNull(databaseTenants.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Database not found');
  return row;
}

export function upstream<T>(call: () => Promise<T>): Promise<T> {
  return callUpstream('The database cluster could not complete the request; try again', call);
}

/** The login roles beside the owner role named like the database; the suffix keeps them from guessing each other. */
function rolesFor(dbName: string): TenantRoles {
  const dbUser = `${dbName}_${randomBytes(3).toString('hex')}`;
  return { dbName, dbUser, poolUser: `${dbUser}_pool` };
}

function newPassword(): string {
  return randomBytes(24).toString('base64url');
}

async function assertNameFree(db: DbOrTx, dbName: string): Promise<void> {
  const [clash] = await db
    .select({ id: databaseTenants.id })
    .from(databaseTenants)
    .where(and(eq(databaseTenants.dbName, dbName), isNull(databaseTenants.purgedAt)));
  if (clash || (await upstream(() => getTenantClusterProvider().isNameTaken(dbName)))) throw nameTaken(dbName);
}

function nameTaken(dbName: string): AppError {
  return new AppError('CONFLICT', `The database name "${dbName}" is taken on the shared cluster; choose another`);
}

function description(dbName: string, tier: DatabaseTier): string {
  return `Shared PostgreSQL ${dbName} (${tier})`;
}

function formatGb(bytes: number): string {
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}

/** A connection string of SPEC's shape; the password only when it is being handed out. */
function connectionUri(user: string, password: string | undefined, host: string, port: number, database: string): string {
  const credentials = password === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return `postgresql://${credentials}@${host}:${port}/${database}?sslmode=require`;
}

export function toView(row: TenantRow, password?: string): Tenant {
  const endpoints = getTenantClusterProvider().endpoints();
  const limits = TIER_LIMITS[row.tier];
  return {
    tenantId: row.id,
    status: 'ACTIVE',
    suspended: row.billingSuspendedAt !== null,
    dbName: row.dbName,
    tier: row.tier,
    poolMode: row.poolMode,
    dbUser: row.dbUser,
    ...(password === undefined ? {} : { dbPassword: password }),
    host: endpoints.host,
    port: endpoints.port,
    connectionUri: connectionUri(row.dbUser, password, endpoints.host, endpoints.port, row.dbName),
    ...(endpoints.pool
      ? {
          poolConnectionUri: connectionUri(row.dbUser, password, endpoints.pool.host, endpoints.pool.port, row.dbName),
          poolHost: endpoints.pool.host,
          poolPort: endpoints.pool.port,
          poolName: row.dbName,
        }
      : {}),
    limits: { maxConnections: limits.maxConnections, poolSize: limits.poolSize, storageBytes: storageLimitBytes(row.tier) },
    storage: { usedBytes: row.storageBytes, measuredAt: row.storageMeasuredAt?.toISOString() ?? null, readOnly: row.readOnlySince !== null },
    createdAt: row.createdAt.toISOString(),
  };
}

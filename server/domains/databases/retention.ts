import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import { getDb } from '../../../db';
import { databaseTenants } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';
import { getTenantClusterProvider } from '../../providers/databases';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Drops the databases of tenants deleted more than DATABASES_RETENTION_DAYS ago, with their roles;
 * their names are free again afterwards. One the cluster refuses is tried again on the next pass.
 */
export async function purgeRetainedDatabases(now = new Date()): Promise<number> {
  const provider = getTenantClusterProvider();
  if (provider.kind === 'unconfigured') return 0;
  const cutoff = new Date(now.getTime() - getConfig().DATABASES_RETENTION_DAYS * DAY_MS);
  const db = await getDb();
  const due = await db
    .select()
    .from(databaseTenants)
    .where(and(isNotNull(databaseTenants.deletedAt), lt(databaseTenants.deletedAt, cutoff), isNull(databaseTenants.purgedAt)));
  let purged = 0;
  for (const row of due) {
    try {
      await provider.dropTenant(row);
    } catch (err) {
      getLogger().error({ err, tenantId: row.id }, 'retained tenant database not dropped this pass');
      continue;
    }
    await db.update(databaseTenants).set({ purgedAt: now }).where(eq(databaseTenants.id, row.id));
    purged += 1;
  }
  return purged;
}

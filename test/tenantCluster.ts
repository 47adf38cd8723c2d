import { getDb } from '../db';
import { databaseTenants } from '../db/schema';
import { madeTenantClusterProvider } from '../server/providers/databases';

/**
 * Drops, on the shared cluster, every tenant this test file's database knows of. A file that never
 * reached the provider made no tenant (and may have left the configuration broken on purpose).
 */
export async function dropTenantsOfThisDatabase(): Promise<void> {
  const provider = madeTenantClusterProvider();
  if (!provider) return;
  const db = await getDb();
  const rows = await db.select({ dbName: databaseTenants.dbName, dbUser: databaseTenants.dbUser, poolUser: databaseTenants.poolUser }).from(databaseTenants);
  for (const roles of rows) {
    await provider.dropTenant(roles).catch((err: unknown) => console.error(`tenant ${roles.dbName} not dropped after the tests:`, err));
  }
}

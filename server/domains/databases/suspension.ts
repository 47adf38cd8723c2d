import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { databaseTenants } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getTenantClusterProvider } from '../../providers/databases';

/**
 * A billing suspension refuses the project's tenants' logins and drops their open sessions; the
 * data is kept, and deleting a tenant still works and stops its billing. Paying the invoice lets
 * them log in again. A tenant the cluster cannot be told about waits for the next pass.
 */
export const databasesSuspension: SuspensionHook = {
  resource: 'shared PostgreSQL databases',
  suspend: (projectId) => mark(projectId, true),
  resume: (projectId) => mark(projectId, false),
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: databaseTenants.projectId })
      .from(databaseTenants)
      .where(and(isNotNull(databaseTenants.billingSuspendedAt), isNull(databaseTenants.deletedAt)));
    return rows.flatMap((row) => (row.projectId ? [row.projectId] : []));
  },
};

async function mark(projectId: string, suspending: boolean): Promise<void> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(databaseTenants)
    .where(
      and(
        eq(databaseTenants.projectId, projectId),
        isNull(databaseTenants.deletedAt),
        suspending ? isNull(databaseTenants.billingSuspendedAt) : isNotNull(databaseTenants.billingSuspendedAt),
      ),
    );
  for (const row of rows) {
    try {
      await getTenantClusterProvider().setLoginAllowed(row, !suspending);
    } catch (err) {
      getLogger().error({ err, tenantId: row.id }, 'tenant logins not suspended or resumed this pass');
      continue;
    }
    await db.transaction(async (tx) => {
      const [saved] = await tx
        .update(databaseTenants)
        .set({ billingSuspendedAt: suspending ? new Date() : null, updatedAt: new Date() })
        .where(and(eq(databaseTenants.id, row.id), suspending ? isNull(databaseTenants.billingSuspendedAt) : isNotNull(databaseTenants.billingSuspendedAt)))
        .returning({ id: databaseTenants.id });
      if (saved) {
        await emit(tx, projectId, suspending ? 'database_tenant.suspended' : 'database_tenant.resumed', {
          tenantId: row.id,
          dbName: row.dbName,
          reason: suspending ? 'invoice_unpaid' : 'invoice_paid',
        });
      }
    });
  }
}

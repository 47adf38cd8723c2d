import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { hostingSites } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { applyServing } from './serving';

/**
 * A billing suspension takes the project's sites offline (503 on every hostname) and closes their
 * SFTP; files and databases are kept, and deleting a site still works and stops its billing. Paying
 * the invoice serves them again. A site the web server cannot be told about waits for the next pass.
 */
export const hostingSuspension: SuspensionHook = {
  resource: 'hosting sites',
  suspend: (projectId) => mark(projectId, true),
  resume: (projectId) => mark(projectId, false),
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: hostingSites.projectId })
      .from(hostingSites)
      .where(and(isNotNull(hostingSites.billingSuspendedAt), isNull(hostingSites.deletedAt)));
    return rows.map((row) => row.projectId);
  },
};

async function mark(projectId: string, suspending: boolean): Promise<void> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(hostingSites)
    .where(
      and(
        eq(hostingSites.projectId, projectId),
        isNull(hostingSites.deletedAt),
        suspending ? isNull(hostingSites.billingSuspendedAt) : isNotNull(hostingSites.billingSuspendedAt),
      ),
    );
  for (const row of rows) {
    const next = { ...row, billingSuspendedAt: suspending ? new Date() : null };
    try {
      await applyServing(next);
    } catch (err) {
      getLogger().error({ err, tenantId: row.id }, 'site not suspended or resumed at the web server this pass');
      continue;
    }
    await db.transaction(async (tx) => {
      const [saved] = await tx
        .update(hostingSites)
        .set({ billingSuspendedAt: next.billingSuspendedAt, updatedAt: new Date() })
        .where(and(eq(hostingSites.id, row.id), suspending ? isNull(hostingSites.billingSuspendedAt) : isNotNull(hostingSites.billingSuspendedAt)))
        .returning({ id: hostingSites.id });
      if (saved) {
        await emit(tx, projectId, suspending ? 'hosting_site.suspended' : 'hosting_site.resumed', {
          tenantId: row.id,
          siteName: row.siteName,
          reason: suspending ? 'invoice_unpaid' : 'invoice_paid',
        });
      }
    });
  }
}

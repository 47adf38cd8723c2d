import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { apps } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { failDeployments, SUSPENDED_REASON } from './queue';

/**
 * A billing suspension marks the project's apps SUSPENDED: deployments are refused (402
 * PROJECT_SUSPENDED), pushes queue none, and deployments still waiting in the queue end FAILED. A
 * build already running finishes, and what is live stays as it is; nothing is deleted, and deleting
 * an app still works and stops its billing. Paying the invoice makes them ACTIVE again; nothing is
 * redeployed by itself.
 */
export const appsSuspension: SuspensionHook = {
  resource: 'apps',
  suspend: (projectId) => mark(projectId, 'SUSPENDED'),
  resume: (projectId) => mark(projectId, 'ACTIVE'),
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: apps.projectId })
      .from(apps)
      .where(and(eq(apps.status, 'SUSPENDED'), isNull(apps.deletedAt)));
    return rows.map((row) => row.projectId);
  },
};

async function mark(projectId: string, status: 'SUSPENDED' | 'ACTIVE'): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const now = new Date();
    const changed = await tx
      .update(apps)
      .set({ status, updatedAt: now })
      .where(and(eq(apps.projectId, projectId), isNull(apps.deletedAt), eq(apps.status, status === 'SUSPENDED' ? 'ACTIVE' : 'SUSPENDED')))
      .returning();
    for (const app of changed) {
      if (status === 'SUSPENDED') await failDeployments(tx, app, ['QUEUED'], SUSPENDED_REASON, now);
      await emit(tx, projectId, status === 'SUSPENDED' ? 'app.suspended' : 'app.resumed', {
        appId: app.id,
        name: app.name,
        reason: status === 'SUSPENDED' ? 'invoice_unpaid' : 'invoice_paid',
      });
    }
  });
}

import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { buckets } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { applySettingsLogged, type BucketRow } from './buckets';

/**
 * A billing suspension closes the project's buckets at the endpoint: every request is refused,
 * nothing is deleted, and deleting a bucket still works and stops its billing. Paying the invoice
 * opens them again (unless one is also suspended for its usage). A bucket the endpoint cannot
 * reach is left for the dunning job's next pass.
 */
export const objectStorageSuspension: SuspensionHook = {
  resource: 'buckets',
  suspend: (projectId) => mark(projectId, true),
  resume: (projectId) => mark(projectId, false),
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: buckets.projectId })
      .from(buckets)
      .where(and(isNotNull(buckets.billingSuspendedAt), isNull(buckets.deletedAt)));
    return rows.map((r) => r.projectId);
  },
};

async function mark(projectId: string, suspending: boolean): Promise<void> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(buckets)
    .where(
      and(eq(buckets.projectId, projectId), isNull(buckets.deletedAt), suspending ? isNull(buckets.billingSuspendedAt) : isNotNull(buckets.billingSuspendedAt)),
    );
  for (const row of rows) {
    const next: BucketRow = { ...row, billingSuspendedAt: suspending ? new Date() : null };
    if (!(await applySettingsLogged(next))) continue;
    await db.transaction(async (tx) => {
      const [saved] = await tx
        .update(buckets)
        .set({ billingSuspendedAt: next.billingSuspendedAt, updatedAt: new Date() })
        .where(and(eq(buckets.id, row.id), suspending ? isNull(buckets.billingSuspendedAt) : isNotNull(buckets.billingSuspendedAt)))
        .returning({ id: buckets.id });
      if (saved) {
        await emit(tx, projectId, suspending ? 'bucket.suspended' : 'bucket.resumed', {
          bucketId: row.id,
          name: row.name,
          reason: suspending ? 'invoice_unpaid' : 'invoice_paid',
        });
      }
    });
  }
}

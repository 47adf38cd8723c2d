import { and, asc, eq, isNotNull, isNull, lte, min } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../db';
import { invoices, projects } from '../../db/schema';
import { emit } from '../platform/events';
import { getLogger } from '../platform/logger';
import { graceExpiredBefore, suspensionDueAt } from './dunningSchedule';
import { dunningPolicy, retryInvoice } from './monthlyClose';
import { enforceSuspensions, stopSuspendedResources } from './suspension';

/**
 * One pass of dunning at `now`: failed invoices whose retry is due are charged again (through the
 * same path as the panel's Pay button, each attempt under its own key), projects whose oldest
 * failed invoice has outlived the grace period are suspended, and every project's resources are
 * brought in line with its suspension. Running it twice at once charges each attempt once.
 */
export async function runDunning(now = new Date()): Promise<{ retried: number; paid: number; suspended: number }> {
  const db = await getDb();
  const due = await db
    .select({ id: invoices.id, projectId: invoices.projectId })
    .from(invoices)
    .where(and(eq(invoices.status, 'failed'), lte(invoices.nextAttemptAt, now), isNotNull(invoices.projectId)))
    .orderBy(asc(invoices.nextAttemptAt));
  let paid = 0;
  for (const { id, projectId } of due) {
    try {
      const attempt = await retryInvoice(projectId!, id, now);
      if (attempt.status === 'paid') paid += 1;
    } catch (err) {
      getLogger().error({ err, invoiceId: id, projectId }, 'scheduled invoice retry failed');
    }
  }
  const suspended = await suspendOverdueProjects(now);
  await enforceSuspensions();
  return { retried: due.length, paid, suspended };
}

/** When the project is due to be suspended if its failed invoices stay unpaid; null when none has failed. */
export async function scheduledSuspension(db: DbOrTx, projectId: string): Promise<Date | null> {
  const unpaidSince = await oldestFailure(db, projectId);
  return unpaidSince ? suspensionDueAt(unpaidSince, dunningPolicy()) : null;
}

/** Suspends every project with a failed invoice that first failed more than the grace period ago. */
async function suspendOverdueProjects(now: Date): Promise<number> {
  const db = await getDb();
  const cutoff = graceExpiredBefore(now, dunningPolicy());
  const overdue = await db
    .selectDistinct({ projectId: projects.id })
    .from(invoices)
    .innerJoin(projects, eq(projects.id, invoices.projectId))
    .where(and(eq(invoices.status, 'failed'), lte(invoices.firstFailedAt, cutoff), isNull(projects.suspendedAt)));
  let suspended = 0;
  for (const { projectId } of overdue) {
    if (!(await suspendProject(projectId, now))) continue;
    suspended += 1;
    await stopSuspendedResources(projectId);
  }
  return suspended;
}

/**
 * Marks the project suspended, checking again with its row locked: a payment settling at the same
 * moment locks the same row, so the project is never left suspended with nothing unpaid.
 */
async function suspendProject(projectId: string, now: Date): Promise<boolean> {
  const db = await getDb();
  const cutoff = graceExpiredBefore(now, dunningPolicy());
  return db.transaction(async (tx) => {
    const [project] = await tx.select({ suspendedAt: projects.suspendedAt }).from(projects).where(eq(projects.id, projectId)).for('update');
    if (!project || project.suspendedAt) return false;
    const unpaidSince = await oldestFailure(tx, projectId);
    if (!unpaidSince || unpaidSince > cutoff) return false;
    const unpaid = await tx
      .select({ id: invoices.id, period: invoices.period })
      .from(invoices)
      .where(and(eq(invoices.projectId, projectId), eq(invoices.status, 'failed')));
    await tx.update(projects).set({ suspendedAt: now }).where(eq(projects.id, projectId));
    await emit(tx, projectId, 'billing.project_suspended', { invoices: unpaid, unpaidSince: unpaidSince.toISOString() });
    return true;
  });
}

/** When the oldest of the project's failed invoices first failed. */
async function oldestFailure(db: DbOrTx, projectId: string): Promise<Date | null> {
  const [oldest] = await db
    .select({ firstFailedAt: min(invoices.firstFailedAt) })
    .from(invoices)
    .where(and(eq(invoices.projectId, projectId), eq(invoices.status, 'failed')));
  return oldest?.firstFailedAt ?? null;
}

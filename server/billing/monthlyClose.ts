import { and, asc, eq, isNull, lt, ne, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../db';
import { isUniqueViolation } from '../../db/errors';
import { billingItems, creditEntries, invoiceLines, invoices, projects } from '../../db/schema';
import { newId } from '../../db/schema/ids';
import { getConfig } from '../platform/config';
import { AppError } from '../platform/errors';
import { emit } from '../platform/events';
import { getLogger } from '../platform/logger';
import { getPaymentsProvider } from '../providers/payments';
import { creditBalance, loadPayer, taxRateFor } from './account';
import { nextDunningAttempt, type DunningPolicy } from './dunningSchedule';
import { billingPeriodOf, monthKeyOf } from './period';
import { taxOn } from './preview';
import { recordCharge } from './purchases';
import { restartResumedResources } from './suspension';

type InvoiceRow = typeof invoices.$inferSelect;
/** An invoice of a live project (only a deleted project's invoices have no project, and those are all paid). */
export type ProjectInvoice = InvoiceRow & { projectId: string };

type Outcome = { paid: true; chargeId: string | null; paidByUserId: string } | { paid: false; failureCode: string };

/**
 * The close of the month that ends at `now`'s month start: every item active at that moment is
 * billed in full for the month that begins. One invoice per project and month (a unique key), so
 * running the close twice bills once.
 */
export async function closeMonthForAllProjects(now = new Date()): Promise<{ invoiced: number }> {
  const db = await getDb();
  const periodStart = billingPeriodOf(now).start;
  const due = await db
    .selectDistinct({ projectId: billingItems.projectId })
    .from(billingItems)
    .where(and(isNull(billingItems.endedAt), lt(billingItems.startedAt, periodStart)));
  let invoiced = 0;
  for (const { projectId } of due) {
    try {
      await closeMonthForProject(projectId, now);
      invoiced += 1;
    } catch (err) {
      getLogger().error({ err, projectId }, 'monthly close failed for a project');
    }
  }
  return { invoiced };
}

export async function closeMonthForProject(projectId: string, now = new Date()): Promise<ProjectInvoice | null> {
  const invoice = await openInvoice(projectId, now);
  if (!invoice || invoice.status !== 'open') return invoice;
  return collectInvoice(invoice, `invoice:${invoice.id}`, now);
}

/**
 * Charges a failed invoice again with the biller's current default card; paying it unblocks the
 * project. Only a failed invoice: an open one is being collected by the close under its own key, and
 * a second key would charge it twice. Each attempt has its own key, so a repeated request within
 * one attempt charges once. The panel's retry and dunning's scheduled ones both come here.
 */
export async function retryInvoice(projectId: string, invoiceId: string, now = new Date()): Promise<ProjectInvoice> {
  const invoice = await findProjectInvoice(await getDb(), projectId, invoiceId);
  if (invoice.status === 'paid') throw new AppError('CONFLICT', 'This invoice is already paid');
  if (invoice.status !== 'failed') throw new AppError('CONFLICT', 'This invoice is still being collected; it can be paid here once a charge has failed');
  return collectInvoice(invoice, `invoice:${invoice.id}:attempt:${invoice.attempts + 1}`, now);
}

/** An invoice of the project; another project's id is as unknown as a made-up one. */
export async function findProjectInvoice(db: DbOrTx, projectId: string, invoiceId: string): Promise<ProjectInvoice> {
  const [invoice] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, invoiceId), eq(invoices.projectId, projectId)));
  if (!invoice) throw new AppError('NOT_FOUND', 'Invoice not found');
  return { ...invoice, projectId };
}

/** The project's invoices that are not paid yet (being collected, or failed), oldest first. */
export async function unpaidInvoices(db: DbOrTx, projectId: string): Promise<InvoiceRow[]> {
  return db
    .select()
    .from(invoices)
    .where(and(eq(invoices.projectId, projectId), ne(invoices.status, 'paid')))
    .orderBy(asc(invoices.period));
}

export function dunningPolicy(): DunningPolicy {
  const config = getConfig();
  return { retryDays: config.DUNNING_RETRY_DAYS, graceDays: config.DUNNING_GRACE_DAYS };
}

async function openInvoice(projectId: string, now: Date): Promise<ProjectInvoice | null> {
  const db = await getDb();
  const period = monthKeyOf(now);
  const periodStart = billingPeriodOf(now).start;
  const [existing] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.projectId, projectId), eq(invoices.period, period)));
  if (existing) return { ...existing, projectId };
  const payer = await loadPayer(db, projectId);
  try {
    return await db.transaction(async (tx) => {
      const [project] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId)).for('update');
      if (!project) return null;
      const items = await tx
        .select()
        .from(billingItems)
        .where(and(eq(billingItems.projectId, projectId), isNull(billingItems.endedAt), lt(billingItems.startedAt, periodStart)));
      if (items.length === 0) return null;
      const subtotal = items.reduce((sum, item) => sum + item.monthly, 0);
      const tax = taxOn(subtotal, taxRateFor(payer.defaultCard));
      const gross = subtotal + (tax ?? 0);
      const creditApplied = Math.min(Math.max(await creditBalance(tx, projectId), 0), gross);
      const id = newId('in');
      const [invoice] = await tx
        .insert(invoices)
        .values({
          id,
          projectId,
          projectName: project.name,
          period,
          subtotal,
          tax,
          creditApplied,
          total: gross - creditApplied,
          currency: getConfig().BILLING_CURRENCY,
        })
        .returning();
      await tx.insert(invoiceLines).values(
        items.map((item) => ({
          id: newId('il'),
          invoiceId: id,
          billingItemId: item.id,
          category: item.category,
          description: item.description,
          amount: item.monthly,
        })),
      );
      if (creditApplied > 0) {
        await tx.insert(creditEntries).values({ id: newId('cre'), projectId, amount: -creditApplied, reason: `Applied to invoice ${period}`, invoiceId: id });
      }
      return { ...invoice!, projectId };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'invoices_project_period_key')) {
      const [raced] = await db
        .select()
        .from(invoices)
        .where(and(eq(invoices.projectId, projectId), eq(invoices.period, period)));
      return raced ? { ...raced, projectId } : null;
    }
    throw err;
  }
}

async function collectInvoice(invoice: ProjectInvoice, idempotencyKey: string, now: Date): Promise<ProjectInvoice> {
  const db = await getDb();
  const payer = await loadPayer(db, invoice.projectId);
  let outcome: Outcome;
  if (invoice.total === 0) {
    outcome = { paid: true, chargeId: null, paidByUserId: payer.billerUserId };
  } else if (!payer.customerId || !payer.defaultCard) {
    outcome = { paid: false, failureCode: 'no_payment_method' };
  } else {
    const charge = await getPaymentsProvider().chargeOffSession({
      customerId: payer.customerId,
      paymentMethodId: payer.defaultCard.id,
      amount: invoice.total,
      currency: invoice.currency,
      description: `Invoice ${invoice.period}`,
      idempotencyKey,
      projectId: invoice.projectId,
    });
    outcome =
      charge.status === 'succeeded'
        ? { paid: true, chargeId: charge.chargeId, paidByUserId: payer.billerUserId }
        : { paid: false, failureCode: charge.declineCode };
  }
  const { invoice: settled, resumed } = await settleInvoice(invoice, outcome, now);
  // Another attempt paid the invoice while this one charged: this charge is owed back in full.
  if (outcome.paid && outcome.chargeId && settled.processorChargeId !== outcome.chargeId) {
    await getPaymentsProvider().refund({ chargeId: outcome.chargeId, amount: invoice.total, idempotencyKey: `refund:${idempotencyKey}` });
    getLogger().warn({ invoiceId: invoice.id }, 'a second charge of a paid invoice was refunded');
  }
  if (resumed) await restartResumedResources(invoice.projectId);
  return settled;
}

/**
 * Records the attempt's outcome. Paid: the charge history gets its lines and, once no failed
 * invoice is left, the project is unblocked and its suspension lifted. Failed: the project is
 * blocked, and dunning schedules the next attempt from the invoice's first failure. The project
 * row is locked first, so a payment and a suspension of the same project happen one after the other.
 */
async function settleInvoice(invoice: ProjectInvoice, outcome: Outcome, now: Date): Promise<{ invoice: ProjectInvoice; resumed: boolean }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [project] = await tx.select({ suspendedAt: projects.suspendedAt }).from(projects).where(eq(projects.id, invoice.projectId)).for('update');
    const asStored = async () => {
      const [current] = await tx.select().from(invoices).where(eq(invoices.id, invoice.id));
      return { invoice: current ? { ...current, projectId: invoice.projectId } : invoice, resumed: false };
    };
    if (outcome.paid) {
      const [paid] = await tx
        .update(invoices)
        .set({
          status: 'paid',
          paidAt: now,
          paidByUserId: outcome.paidByUserId,
          processorChargeId: outcome.chargeId,
          failureCode: null,
          nextAttemptAt: null,
          attempts: sql`${invoices.attempts} + 1`,
        })
        .where(and(eq(invoices.id, invoice.id), ne(invoices.status, 'paid')))
        .returning();
      if (!paid) return asStored();
      const lines = await tx.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id));
      for (const line of lines) await recordCharge(tx, invoice.projectId, line.category, line.amount, line.description, now);
      await emit(tx, invoice.projectId, 'invoice.paid', { invoiceId: invoice.id, period: invoice.period, amount: invoice.total, currency: invoice.currency });
      const [stillFailing] = await tx
        .select({ id: invoices.id })
        .from(invoices)
        .where(and(eq(invoices.projectId, invoice.projectId), eq(invoices.status, 'failed')))
        .limit(1);
      if (stillFailing) return { invoice: { ...paid, projectId: invoice.projectId }, resumed: false };
      await tx.update(projects).set({ blockedAt: null, blockedReason: null, suspendedAt: null }).where(eq(projects.id, invoice.projectId));
      const resumed = Boolean(project?.suspendedAt);
      if (resumed) await emit(tx, invoice.projectId, 'billing.project_resumed', { invoiceId: invoice.id, suspendedAt: project!.suspendedAt!.toISOString() });
      return { invoice: { ...paid, projectId: invoice.projectId }, resumed };
    }
    const firstFailedAt = invoice.firstFailedAt ?? now;
    const [failed] = await tx
      .update(invoices)
      .set({
        status: 'failed',
        failureCode: outcome.failureCode,
        attempts: sql`${invoices.attempts} + 1`,
        firstFailedAt,
        nextAttemptAt: nextDunningAttempt(firstFailedAt, now, dunningPolicy()),
      })
      .where(and(eq(invoices.id, invoice.id), ne(invoices.status, 'paid')))
      .returning();
    // Paid meanwhile by another attempt: a declined retry must not mark it unpaid again.
    if (!failed) return asStored();
    await tx
      .update(projects)
      .set({ blockedAt: now, blockedReason: `Unpaid invoice for ${invoice.period}` })
      .where(and(eq(projects.id, invoice.projectId), isNull(projects.blockedAt)));
    await emit(tx, invoice.projectId, 'invoice.payment_failed', {
      invoiceId: invoice.id,
      period: invoice.period,
      amount: invoice.total,
      currency: invoice.currency,
      failureCode: outcome.failureCode,
      nextAttemptAt: failed.nextAttemptAt?.toISOString() ?? null,
    });
    return { invoice: { ...failed, projectId: invoice.projectId }, resumed: false };
  });
}

import { and, desc, eq, gte, inArray, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { billingItems, invoiceLines, invoices, projectCharges, projects } from '../../../db/schema';
import { creditBalance, loadPayer } from '../../billing/account';
import { scheduledSuspension } from '../../billing/dunning';
import { findProjectInvoice, retryInvoice } from '../../billing/monthlyClose';
import { billingPeriodOf, monthKeyOf } from '../../billing/period';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getPaymentsProvider } from '../../providers/payments';
import type { AttachCardInput, SavedCard } from '../../providers/payments/types';
import type { AccountInvoice, BillingOverview, Card, Invoice } from './schema';
import { pendingBillerTransfer } from './transfers';

/**
 * The project's billing as `actorUserId` may see it. Cards are the biller's own: only the biller
 * sees the default card's details; everyone else learns only whether one is on file.
 */
export async function getBillingOverview(projectId: string, actorUserId: string, now = new Date()): Promise<BillingOverview> {
  const db = await getDb();
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  if (!project) throw new AppError('NOT_FOUND', 'Project not found');
  const payer = await loadPayer(db, projectId);
  const charges = await db
    .select({ amount: projectCharges.amount })
    .from(projectCharges)
    .where(and(eq(projectCharges.projectId, projectId), gte(projectCharges.chargedAt, billingPeriodOf(now).start)));
  const config = getConfig();
  const isBiller = payer.billerUserId === actorUserId;
  return {
    biller: { id: payer.billerUserId, name: payer.billerName, email: payer.billerEmail },
    billingEmail: project.billingEmail ?? payer.billerEmail,
    defaultPaymentMethod: isBiller && payer.defaultCard ? toCardView(payer.defaultCard) : null,
    billerHasPaymentMethod: payer.defaultCard !== null,
    pendingTransfer: await pendingBillerTransfer(db, projectId, now),
    creditBalance: await creditBalance(db, projectId),
    currency: config.BILLING_CURRENCY,
    blockedAt: project.blockedAt?.toISOString() ?? null,
    blockedReason: project.blockedReason,
    suspendedAt: project.suspendedAt?.toISOString() ?? null,
    suspendsAt: project.suspendedAt ? null : ((await scheduledSuspension(db, projectId))?.toISOString() ?? null),
    currentMonth: { month: monthKeyOf(now), total: charges.reduce((sum, c) => sum + c.amount, 0) },
    provider: getPaymentsProvider().kind,
    publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? null,
  };
}

/** The biller's saved cards, to the biller alone: they are personal cards, not the project's. */
export async function listPaymentMethods(projectId: string, actorUserId: string): Promise<Card[]> {
  const db = await getDb();
  const payer = await loadPayer(db, projectId);
  if (payer.billerUserId !== actorUserId) {
    throw new AppError('FORBIDDEN', `The saved cards are ${payer.billerName}'s, who holds billing for this project; only they can see them`);
  }
  if (!payer.customerId) return [];
  return (await getPaymentsProvider().listCards(payer.customerId)).map(toCardView);
}

/** Saves a card on the biller's processor customer; only the biller may, since the card is theirs. */
export async function addPaymentMethod(projectId: string, actorUserId: string, input: AttachCardInput): Promise<Card> {
  const customerId = await billerCustomer(projectId, actorUserId);
  const card = await getPaymentsProvider().attachCard(customerId, input);
  const db = await getDb();
  await db.transaction((tx) => emit(tx, projectId, 'payment_method.added', { paymentMethodId: card.id, brand: card.brand, last4: card.last4 }));
  return toCardView(card);
}

export async function setDefaultPaymentMethod(projectId: string, actorUserId: string, paymentMethodId: string): Promise<Card> {
  const customerId = await billerCustomer(projectId, actorUserId);
  const provider = getPaymentsProvider();
  await provider.setDefaultCard(customerId, paymentMethodId);
  const card = (await provider.listCards(customerId)).find((c) => c.id === paymentMethodId);
  if (!card) throw new AppError('NOT_FOUND', 'Payment method not found');
  return toCardView(card);
}

/**
 * Removes a card. The default one goes last: with other cards saved, another must become the
 * default first. The last card stays while it pays for running resources: a biller's cards pay for
 * every project they hold billing for, so any live paid resource in any of them keeps it.
 */
export async function removePaymentMethod(projectId: string, actorUserId: string, paymentMethodId: string): Promise<void> {
  const customerId = await billerCustomer(projectId, actorUserId);
  const provider = getPaymentsProvider();
  const cards = await provider.listCards(customerId);
  const card = cards.find((c) => c.id === paymentMethodId);
  if (!card) throw new AppError('NOT_FOUND', 'Payment method not found');
  if (card.isDefault && cards.length > 1) {
    throw new AppError('CONFLICT', 'This is the default card; make another card the default before removing it');
  }
  if (cards.length === 1) {
    const paying = await projectsWithPaidResources(actorUserId);
    if (paying.length > 0) {
      throw new AppError(
        'CONFLICT',
        `This is your last card and it pays for resources that are running in ${paying.map((name) => `"${name}"`).join(', ')}; add another card, hand billing to another member, or delete those resources first`,
      );
    }
  }
  await provider.detachCard(customerId, paymentMethodId);
}

export async function createCardSetup(projectId: string, actorUserId: string): Promise<{ clientSecret: string; publishableKey: string }> {
  const customerId = await billerCustomer(projectId, actorUserId);
  const provider = getPaymentsProvider();
  if (!provider.createCardSetup) {
    throw new AppError('BAD_REQUEST', 'Cards are entered directly in local payments mode; POST the card details to payment-methods');
  }
  return provider.createCardSetup(customerId);
}

/**
 * Every invoice paid with the user's cards, newest first, the invoices of projects deleted since
 * included: invoices are never deleted, and this is where those stay readable.
 */
export async function listAccountInvoices(userId: string): Promise<AccountInvoice[]> {
  const db = await getDb();
  const rows = await db.select().from(invoices).where(eq(invoices.paidByUserId, userId)).orderBy(desc(invoices.paidAt), desc(invoices.id));
  return rows.map((row) => ({ ...toInvoiceView(row), projectId: row.projectId, projectName: row.projectName }));
}

export async function listInvoices(projectId: string): Promise<Invoice[]> {
  const db = await getDb();
  const rows = await db.select().from(invoices).where(eq(invoices.projectId, projectId)).orderBy(desc(invoices.period), desc(invoices.createdAt));
  return rows.map(toInvoiceView);
}

export async function getInvoice(projectId: string, invoiceId: string) {
  const db = await getDb();
  const invoice = await findProjectInvoice(db, projectId, invoiceId);
  const lines = await db
    .select({ id: invoiceLines.id, category: invoiceLines.category, description: invoiceLines.description, amount: invoiceLines.amount })
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoiceId))
    .orderBy(invoiceLines.id);
  return { ...toInvoiceView(invoice), lines };
}

export async function payInvoice(projectId: string, invoiceId: string) {
  const paid = await retryInvoice(projectId, invoiceId);
  if (paid.status !== 'paid') {
    throw new AppError('CARD_DECLINED', `The invoice could not be paid (${paid.failureCode ?? 'declined'}); update the payment card and try again`);
  }
  return getInvoice(projectId, invoiceId);
}

async function billerCustomer(projectId: string, actorUserId: string): Promise<string> {
  const db = await getDb();
  const payer = await loadPayer(db, projectId);
  if (payer.billerUserId !== actorUserId) {
    throw new AppError('FORBIDDEN', `Only ${payer.billerName}, who holds billing for this project, can manage its payment cards`);
  }
  if (!payer.customerId) throw new AppError('CONFLICT', 'The biller has no payment customer yet');
  return payer.customerId;
}

function toCardView(card: SavedCard): Card {
  return { id: card.id, brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, isDefault: card.isDefault };
}

function toInvoiceView(row: typeof invoices.$inferSelect): Invoice {
  return {
    id: row.id,
    period: row.period,
    status: row.status,
    subtotal: row.subtotal,
    tax: row.tax,
    creditApplied: row.creditApplied,
    total: row.total,
    currency: row.currency,
    failureCode: row.failureCode,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
  };
}

/** Names of the projects billed to the user that have a live paid resource (an active subscription item). */
async function projectsWithPaidResources(userId: string): Promise<string[]> {
  const db = await getDb();
  const billed = await db.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.billerUserId, userId));
  if (billed.length === 0) return [];
  const live = await db
    .selectDistinct({ projectId: billingItems.projectId })
    .from(billingItems)
    .where(
      and(
        inArray(
          billingItems.projectId,
          billed.map((p) => p.id),
        ),
        isNull(billingItems.endedAt),
      ),
    );
  const liveIds = new Set(live.map((l) => l.projectId));
  return billed.filter((p) => liveIds.has(p.id)).map((p) => p.name);
}

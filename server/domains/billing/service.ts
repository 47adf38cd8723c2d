import { and, desc, eq, gte } from 'drizzle-orm';
import { getDb } from '../../../db';
import { invoiceLines, invoices, memberships, projectCharges, projects, users } from '../../../db/schema';
import { creditBalance, loadPayer } from '../../billing/account';
import { findProjectInvoice, retryInvoice } from '../../billing/monthlyClose';
import { billingPeriodOf, monthKeyOf } from '../../billing/period';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getPaymentsProvider } from '../../providers/payments';
import type { AttachCardInput, SavedCard } from '../../providers/payments/types';
import type { BillingOverview, Card, Invoice } from './schema';

export async function getBillingOverview(projectId: string, now = new Date()): Promise<BillingOverview> {
  const db = await getDb();
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  if (!project) throw new AppError('NOT_FOUND', 'Project not found');
  const payer = await loadPayer(db, projectId);
  const charges = await db
    .select({ amount: projectCharges.amount })
    .from(projectCharges)
    .where(and(eq(projectCharges.projectId, projectId), gte(projectCharges.chargedAt, billingPeriodOf(now).start)));
  const config = getConfig();
  return {
    biller: { id: payer.billerUserId, name: payer.billerName, email: payer.billerEmail },
    billingEmail: project.billingEmail ?? payer.billerEmail,
    defaultPaymentMethod: payer.defaultCard ? toCardView(payer.defaultCard) : null,
    creditBalance: await creditBalance(db, projectId),
    currency: config.BILLING_CURRENCY,
    blockedAt: project.blockedAt?.toISOString() ?? null,
    blockedReason: project.blockedReason,
    currentMonth: { month: monthKeyOf(now), total: charges.reduce((sum, c) => sum + c.amount, 0) },
    provider: getPaymentsProvider().kind,
    publishableKey: config.STRIPE_PUBLISHABLE_KEY ?? null,
  };
}

export async function listPaymentMethods(projectId: string): Promise<Card[]> {
  const db = await getDb();
  const payer = await loadPayer(db, projectId);
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

/** Removes a card. The default one goes last: with other cards saved, another must become the default first. */
export async function removePaymentMethod(projectId: string, actorUserId: string, paymentMethodId: string): Promise<void> {
  const customerId = await billerCustomer(projectId, actorUserId);
  const provider = getPaymentsProvider();
  const cards = await provider.listCards(customerId);
  const card = cards.find((c) => c.id === paymentMethodId);
  if (!card) throw new AppError('NOT_FOUND', 'Payment method not found');
  if (card.isDefault && cards.length > 1) {
    throw new AppError('CONFLICT', 'This is the default card; make another card the default before removing it');
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

/** Hands billing to another owner or admin; from then on their default card pays. */
export async function transferBilling(projectId: string, actorUserId: string, userId: string): Promise<BillingOverview> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [member] = await tx
      .select({ role: memberships.role, name: users.name })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
    if (!member) throw new AppError('NOT_FOUND', 'That user is not a member of this project');
    if (member.role !== 'owner' && member.role !== 'admin') {
      throw new AppError('CONFLICT', `${member.name} must be an owner or admin to hold billing`);
    }
    await tx.update(projects).set({ billerUserId: userId, updatedAt: new Date() }).where(eq(projects.id, projectId));
    await emit(tx, projectId, 'billing.biller_changed', { userId, by: actorUserId });
  });
  return getBillingOverview(projectId);
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
    createdAt: row.createdAt.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
  };
}

import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db';
import { creditEntries, projects, users } from '../../db/schema';
import { getConfig } from '../platform/config';
import { AppError } from '../platform/errors';
import { getPaymentsProvider } from '../providers/payments';
import type { SavedCard } from '../providers/payments/types';
import type { ChargeContext } from './preview';

/** Who pays for a project: the biller, their processor customer and default card (if any). */
export interface ProjectPayer {
  billerUserId: string;
  billerEmail: string;
  billerName: string;
  customerId: string | null;
  defaultCard: SavedCard | null;
}

export async function loadPayer(db: DbOrTx, projectId: string): Promise<ProjectPayer> {
  const [row] = await db
    .select({ billerUserId: users.id, billerEmail: users.email, billerName: users.name, customerId: users.paymentCustomerId })
    .from(projects)
    .innerJoin(users, eq(users.id, projects.billerUserId))
    .where(eq(projects.id, projectId));
  if (!row) throw new AppError('NOT_FOUND', 'Project not found');
  const cards = row.customerId ? await getPaymentsProvider().listCards(row.customerId) : [];
  return { ...row, defaultCard: cards.find((c) => c.isDefault) ?? null };
}

/**
 * The payer, refusing with the SPEC's 402 codes when no usable card is saved: the biller is told
 * to add one (ORG_PAYMENT_METHOD_REQUIRED), anyone else that the biller must (BILLER_…).
 */
export async function requireChargeablePayer(
  db: DbOrTx,
  projectId: string,
  actorUserId: string,
): Promise<ProjectPayer & { customerId: string; defaultCard: SavedCard }> {
  const payer = await loadPayer(db, projectId);
  if (payer.customerId && payer.defaultCard) return payer as ProjectPayer & { customerId: string; defaultCard: SavedCard };
  if (actorUserId === payer.billerUserId) {
    throw new AppError('ORG_PAYMENT_METHOD_REQUIRED', 'Add a payment card to this project before creating paid resources');
  }
  throw new AppError(
    'BILLER_PAYMENT_METHOD_REQUIRED',
    `${payer.billerName} holds billing for this project and must add a payment card before paid resources can be created`,
  );
}

export async function creditBalance(db: DbOrTx, projectId: string): Promise<number> {
  const [row] = await db
    .select({ balance: sql<string>`coalesce(sum(${creditEntries.amount}), 0)` })
    .from(creditEntries)
    .where(and(eq(creditEntries.projectId, projectId)));
  return Number(row?.balance ?? 0);
}

/** Tax follows the country of the card that pays; without one the location is unknown (tax null). */
export function taxRateFor(card: SavedCard | null): number | null {
  if (!card?.country) return null;
  const rates = getConfig().TAX_RATES;
  return rates[card.country] ?? 0;
}

export async function chargeContextFor(db: DbOrTx, projectId: string, card: SavedCard | null, now: Date): Promise<ChargeContext> {
  return {
    now,
    currency: getConfig().BILLING_CURRENCY,
    taxRateBps: taxRateFor(card),
    creditBalance: await creditBalance(db, projectId),
  };
}

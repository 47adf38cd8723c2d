import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { ledgerCustomers, ledgerPaymentIntents, ledgerPaymentMethods, ledgerRefunds } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError, invalidField } from '../../platform/errors';
import { cardBehaviour, cardBrand, isExpired, normaliseCardNumber, passesLuhn } from './cards';
import type { AttachCardInput, ChargeOutcome, ChargeRecord, CreateCustomerInput, OffSessionChargeInput, PaymentsProvider, SavedCard } from './types';

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
};

/**
 * The embedded payments ledger: the processor's customers, cards, charges and refunds kept in our
 * own PostgreSQL, behaving like a processor's test mode. It stands apart from the caller's
 * transactions (except customer creation at signup), as a remote processor would.
 */
export class LocalLedgerPayments implements PaymentsProvider {
  readonly kind = 'local' as const;

  async createCustomer(input: CreateCustomerInput, tx: DbOrTx): Promise<{ customerId: string }> {
    const [existing] = await tx
      .select({ id: ledgerCustomers.id })
      .from(ledgerCustomers)
      .where(eq(ledgerCustomers.idempotencyKey, input.idempotencyKey))
      .limit(1);
    if (existing) return { customerId: existing.id };
    const id = newId('cus');
    await tx.insert(ledgerCustomers).values({ id, email: input.email, name: input.name, idempotencyKey: input.idempotencyKey });
    return { customerId: id };
  }

  async attachCard(customerId: string, input: AttachCardInput): Promise<SavedCard> {
    if (input.kind !== 'card') {
      throw invalidField('paymentMethodId', 'local payments take card details (cardNumber, expMonth, expYear, cvc)');
    }
    const digits = normaliseCardNumber(input.cardNumber);
    if (!passesLuhn(digits)) throw invalidField('cardNumber', 'Your card number is invalid');
    if (isExpired(input.expMonth, input.expYear)) throw invalidField('expYear', 'Your card has expired');
    const behaviour = cardBehaviour(digits);
    if (behaviour === 'decline' || behaviour === 'insufficient_funds') {
      const code = behaviour === 'decline' ? 'card_declined' : 'insufficient_funds';
      throw new AppError('CARD_DECLINED', DECLINE_MESSAGES[code]!);
    }
    const db = await getDb();
    return db.transaction(async (tx) => {
      await tx.execute(sql`select id from ledger_customers where id = ${customerId} for update`);
      const [{ n } = { n: 0 }] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(ledgerPaymentMethods)
        .where(and(eq(ledgerPaymentMethods.customerId, customerId), isNull(ledgerPaymentMethods.detachedAt)));
      const [row] = await tx
        .insert(ledgerPaymentMethods)
        .values({
          id: newId('pm'),
          customerId,
          brand: cardBrand(digits),
          last4: digits.slice(-4),
          expMonth: input.expMonth,
          expYear: input.expYear,
          country: input.country?.toUpperCase() ?? null,
          behaviour,
          isDefault: n === 0,
        })
        .returning();
      return toSavedCard(row!);
    });
  }

  async listCards(customerId: string): Promise<SavedCard[]> {
    const db = await getDb();
    const rows = await db
      .select()
      .from(ledgerPaymentMethods)
      .where(and(eq(ledgerPaymentMethods.customerId, customerId), isNull(ledgerPaymentMethods.detachedAt)))
      .orderBy(asc(ledgerPaymentMethods.createdAt), asc(ledgerPaymentMethods.id));
    return rows.map(toSavedCard);
  }

  async setDefaultCard(customerId: string, paymentMethodId: string): Promise<void> {
    const db = await getDb();
    await db.transaction(async (tx) => {
      const [card] = await tx.select({ id: ledgerPaymentMethods.id }).from(ledgerPaymentMethods).where(activeCard(customerId, paymentMethodId)).for('update');
      if (!card) throw new AppError('NOT_FOUND', 'Payment method not found');
      await tx.update(ledgerPaymentMethods).set({ isDefault: false }).where(eq(ledgerPaymentMethods.customerId, customerId));
      await tx.update(ledgerPaymentMethods).set({ isDefault: true }).where(eq(ledgerPaymentMethods.id, paymentMethodId));
    });
  }

  async detachCard(customerId: string, paymentMethodId: string): Promise<void> {
    const db = await getDb();
    const detached = await db
      .update(ledgerPaymentMethods)
      .set({ detachedAt: new Date(), isDefault: false })
      .where(activeCard(customerId, paymentMethodId))
      .returning({ id: ledgerPaymentMethods.id });
    if (detached.length === 0) throw new AppError('NOT_FOUND', 'Payment method not found');
  }

  async chargeOffSession(input: OffSessionChargeInput): Promise<ChargeOutcome> {
    const db = await getDb();
    const existing = await this.findIntent(input.idempotencyKey);
    if (existing) return outcomeOf(existing);
    const [card] = await db.select().from(ledgerPaymentMethods).where(activeCard(input.customerId, input.paymentMethodId));
    const declineCode = !card
      ? 'card_declined'
      : card.behaviour === 'succeed'
        ? null
        : card.behaviour === 'insufficient_funds'
          ? 'insufficient_funds'
          : 'card_declined';
    try {
      const [intent] = await db
        .insert(ledgerPaymentIntents)
        .values({
          id: newId('pi'),
          customerId: input.customerId,
          paymentMethodId: card?.id ?? null,
          amount: input.amount,
          currency: input.currency,
          status: declineCode ? 'failed' : 'succeeded',
          declineCode,
          description: input.description,
          idempotencyKey: input.idempotencyKey,
        })
        .returning();
      return outcomeOf(intent!);
    } catch (err) {
      // Two concurrent requests with one idempotency key: the second answers with the first's result.
      if (isUniqueViolation(err, 'ledger_payment_intents_idempotency_key')) {
        const winner = await this.findIntent(input.idempotencyKey);
        if (winner) return outcomeOf(winner);
      }
      throw err;
    }
  }

  async findCharge(idempotencyKey: string): Promise<ChargeRecord | null> {
    const intent = await this.findIntent(idempotencyKey);
    if (!intent) return null;
    return { chargeId: intent.id, status: intent.status, amount: intent.amount, amountRefunded: intent.amountRefunded };
  }

  async refund(input: { chargeId: string; amount: number; idempotencyKey: string }): Promise<void> {
    const db = await getDb();
    await db.transaction(async (tx) => {
      const [done] = await tx.select({ id: ledgerRefunds.id }).from(ledgerRefunds).where(eq(ledgerRefunds.idempotencyKey, input.idempotencyKey));
      if (done) return;
      const [intent] = await tx.select().from(ledgerPaymentIntents).where(eq(ledgerPaymentIntents.id, input.chargeId)).for('update');
      if (!intent || intent.status !== 'succeeded') throw new AppError('NOT_FOUND', 'Charge not found');
      if (intent.amountRefunded + input.amount > intent.amount) {
        throw new AppError('BAD_REQUEST', 'Refund exceeds the amount charged');
      }
      await tx.insert(ledgerRefunds).values({ id: newId('re'), paymentIntentId: intent.id, amount: input.amount, idempotencyKey: input.idempotencyKey });
      await tx
        .update(ledgerPaymentIntents)
        .set({ amountRefunded: intent.amountRefunded + input.amount })
        .where(eq(ledgerPaymentIntents.id, intent.id));
    });
  }

  private async findIntent(idempotencyKey: string) {
    const db = await getDb();
    const [intent] = await db.select().from(ledgerPaymentIntents).where(eq(ledgerPaymentIntents.idempotencyKey, idempotencyKey));
    return intent;
  }
}

function activeCard(customerId: string, paymentMethodId: string) {
  return and(eq(ledgerPaymentMethods.id, paymentMethodId), eq(ledgerPaymentMethods.customerId, customerId), isNull(ledgerPaymentMethods.detachedAt));
}

function outcomeOf(intent: typeof ledgerPaymentIntents.$inferSelect): ChargeOutcome {
  if (intent.status === 'succeeded') return { status: 'succeeded', chargeId: intent.id };
  const declineCode = intent.declineCode ?? 'card_declined';
  return { status: 'failed', chargeId: intent.id, declineCode, message: DECLINE_MESSAGES[declineCode] ?? 'Your card was declined.' };
}

function toSavedCard(row: typeof ledgerPaymentMethods.$inferSelect): SavedCard {
  return {
    id: row.id,
    brand: row.brand,
    last4: row.last4,
    expMonth: row.expMonth,
    expYear: row.expYear,
    country: row.country,
    isDefault: row.isDefault,
  };
}

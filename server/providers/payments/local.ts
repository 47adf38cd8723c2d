import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db';
import { ledgerCustomers } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { CreateCustomerInput, PaymentsProvider } from './types';

/** The embedded payments ledger: the processor's objects, kept in our own PostgreSQL. */
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
}

import type { DbOrTx } from '../../../db';

export interface CreateCustomerInput {
  email: string;
  name: string;
  /** Derived from the row the customer belongs to, so a retried signup creates one customer. */
  idempotencyKey: string;
}

export interface PaymentsProvider {
  readonly kind: 'local' | 'stripe';
  /**
   * Creates the processor's customer object. The local ledger writes inside `tx` so the customer
   * and the account commit together; a remote processor relies on the idempotency key instead.
   */
  createCustomer(input: CreateCustomerInput, tx: DbOrTx): Promise<{ customerId: string }>;
}

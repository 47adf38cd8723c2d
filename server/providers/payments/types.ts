import type { DbOrTx } from '../../../db';

export interface CreateCustomerInput {
  email: string;
  name: string;
  /** Derived from the row the customer belongs to, so a retried signup creates one customer. */
  idempotencyKey: string;
}

/** A saved card as the API shows it; never the number. */
export interface SavedCard {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** Issuing country (ISO 3166-1 alpha-2); it decides the tax rate. Null when unknown. */
  country: string | null;
  isDefault: boolean;
}

/** Local mode takes card details (test cards only); a processor takes the id of a card it already saved. */
export type AttachCardInput =
  { kind: 'card'; cardNumber: string; expMonth: number; expYear: number; cvc: string; country?: string } | { kind: 'processor'; paymentMethodId: string };

export interface OffSessionChargeInput {
  customerId: string;
  paymentMethodId: string;
  amount: number;
  currency: string;
  description: string;
  /** Derived from the durable row the charge pays for: a retry after a crash charges once. */
  idempotencyKey: string;
  /** The project the charge is for, so processor events about it can be traced back. */
  projectId: string;
}

export type ChargeOutcome = { status: 'succeeded'; chargeId: string } | { status: 'failed'; chargeId: string | null; declineCode: string; message: string };

export interface ChargeRecord {
  chargeId: string;
  status: 'succeeded' | 'failed';
  amount: number;
  amountRefunded: number;
}

/** What the browser needs to collect a card for later off-session charges. */
export interface CardSetup {
  clientSecret: string;
  publishableKey: string;
}

export interface PaymentsProvider {
  readonly kind: 'local' | 'stripe';
  /**
   * Creates the processor's customer object. The local ledger writes inside `tx` so the customer
   * and the account commit together; a remote processor relies on the idempotency key instead.
   */
  createCustomer(input: CreateCustomerInput, tx: DbOrTx): Promise<{ customerId: string }>;
  /** Saves a card on the customer; the first one becomes the default. Throws CARD_DECLINED or VALIDATION_ERROR. */
  attachCard(customerId: string, input: AttachCardInput): Promise<SavedCard>;
  listCards(customerId: string): Promise<SavedCard[]>;
  setDefaultCard(customerId: string, paymentMethodId: string): Promise<void>;
  detachCard(customerId: string, paymentMethodId: string): Promise<void>;
  /** Charges a saved card with no customer present; a decline is an outcome, not an exception. */
  chargeOffSession(input: OffSessionChargeInput): Promise<ChargeOutcome>;
  /** The charge made with this idempotency key, if any: how a crashed purchase is reconciled. */
  findCharge(idempotencyKey: string): Promise<ChargeRecord | null>;
  refund(input: { chargeId: string; amount: number; idempotencyKey: string }): Promise<void>;
  /**
   * Starts saving a card in the browser (a processor's card form posts the number to the processor,
   * never to us); the saved card's id then comes back through attachCard. Only processors have it.
   */
  createCardSetup?(customerId: string): Promise<CardSetup>;
}

import { boolean, index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

// The embedded payments processor (PAYMENTS_PROVIDER=local): what Stripe would hold in production.

/** Customers of the embedded payments ledger (the processor's customer object in local mode). */
export const ledgerCustomers = pgTable('ledger_customers', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  idempotencyKey: text('idempotency_key').unique(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const cardBehaviour = pgEnum('ledger_card_behaviour', ['succeed', 'decline', 'insufficient_funds', 'attach_then_decline']);

/** Cards saved on a ledger customer, with the test-mode behaviour their number selects. */
export const ledgerPaymentMethods = pgTable(
  'ledger_payment_methods',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => ledgerCustomers.id),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    country: text('country'),
    behaviour: cardBehaviour('behaviour').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    detachedAt: timestamp('detached_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('ledger_payment_methods_customer_idx').on(t.customerId)],
);

/** Off-session charges of the ledger (the processor's payment intents); the idempotency key makes retries safe. */
export const ledgerPaymentIntents = pgTable(
  'ledger_payment_intents',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => ledgerCustomers.id),
    paymentMethodId: text('payment_method_id').references(() => ledgerPaymentMethods.id),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ['succeeded', 'failed'] }).notNull(),
    declineCode: text('decline_code'),
    description: text('description').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    amountRefunded: integer('amount_refunded').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('ledger_payment_intents_idempotency_key').on(t.idempotencyKey)],
);

export const ledgerRefunds = pgTable(
  'ledger_refunds',
  {
    id: text('id').primaryKey(),
    paymentIntentId: text('payment_intent_id')
      .notNull()
      .references(() => ledgerPaymentIntents.id),
    amount: integer('amount').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('ledger_refunds_idempotency_key').on(t.idempotencyKey)],
);

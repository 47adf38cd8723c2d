import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Ids of payment-processor webhook events already acted on. Processors deliver at least once, so a
 * redelivered event finds its id here and changes nothing a second time.
 */
export const processedPaymentEvents = pgTable('processed_payment_events', {
  id: text('id').primaryKey(),
  receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

import { index, integer, pgEnum, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './projects';

/** Customers of the embedded payments ledger (the processor's customer object in local mode). */
export const ledgerCustomers = pgTable('ledger_customers', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  idempotencyKey: text('idempotency_key').unique(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const chargeCategory = pgEnum('charge_category', [
  'servers',
  'domains',
  'apps',
  'objectStorage',
  'containerRegistry',
  'databases',
  'redis',
  'email',
  'other',
]);

/** Every amount billed to a project, by category; the charge history sums these per month. */
export const projectCharges = pgTable(
  'project_charges',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    category: chargeCategory('category').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull().default('usd'),
    description: text('description').notNull(),
    chargedAt: timestamp('charged_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('project_charges_project_time_idx').on(t.projectId, t.chargedAt)],
);

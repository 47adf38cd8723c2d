import { sql } from 'drizzle-orm';
import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

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

/** A resource's subscription item: billed in full at every month's close until it ends. */
export const billingItems = pgTable(
  'billing_items',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    category: chargeCategory('category').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    description: text('description').notNull(),
    monthly: integer('monthly').notNull(),
    currency: text('currency').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('billing_items_project_idx').on(t.projectId), index('billing_items_resource_idx').on(t.resourceType, t.resourceId)],
);

export const purchaseStatus = pgEnum('purchase_status', ['pending', 'completed', 'failed', 'refunded']);

/**
 * The durable record of one paid change (a creation or an upgrade), written before the card is
 * charged: the charge's idempotency key derives from its id, and a purchase left pending by a crash
 * is settled by the reconciliation job (attached to its resource, or refunded).
 */
export const purchases = pgTable(
  'purchases',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['create', 'upgrade'] }).notNull(),
    resourceType: text('resource_type').notNull(),
    /** What is being bought, unique among pending purchases of a project (a name, or a resource id for upgrades). */
    resourceKey: text('resource_key').notNull(),
    category: chargeCategory('category').notNull(),
    description: text('description').notNull(),
    monthly: integer('monthly').notNull(),
    subtotal: integer('subtotal').notNull(),
    tax: integer('tax'),
    creditApplied: integer('credit_applied').notNull(),
    dueToday: integer('due_today').notNull(),
    currency: text('currency').notNull(),
    status: purchaseStatus('status').notNull().default('pending'),
    processorChargeId: text('processor_charge_id'),
    failureCode: text('failure_code'),
    billingItemId: text('billing_item_id'),
    createdByUserId: text('created_by_user_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('purchases_pending_resource_key')
      .on(t.projectId, t.resourceType, t.resourceKey)
      .where(sql`${t.status} = 'pending'`),
    index('purchases_status_idx').on(t.status, t.createdAt),
  ],
);

/** The project's credit balance is the sum of its entries: credits are positive, uses negative. */
export const creditEntries = pgTable(
  'credit_entries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    amount: integer('amount').notNull(),
    reason: text('reason').notNull(),
    purchaseId: text('purchase_id'),
    invoiceId: text('invoice_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('credit_entries_project_idx').on(t.projectId)],
);

export const invoiceStatus = pgEnum('invoice_status', ['open', 'paid', 'failed']);

/**
 * The invoice of a month's close: every active item billed in full for the month that starts.
 * Invoices are never deleted: a project with unpaid ones cannot be deleted, and deleting one whose
 * invoices are all paid keeps them (project id null) in the billing history of who paid them.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    /** The project's name when the invoice was issued; what names it once the project is gone. */
    projectName: text('project_name').notNull(),
    period: text('period').notNull(),
    status: invoiceStatus('status').notNull().default('open'),
    subtotal: integer('subtotal').notNull(),
    tax: integer('tax'),
    creditApplied: integer('credit_applied').notNull(),
    total: integer('total').notNull(),
    currency: text('currency').notNull(),
    processorChargeId: text('processor_charge_id'),
    failureCode: text('failure_code'),
    attempts: integer('attempts').notNull().default(0),
    /** When a charge of the invoice first failed: dunning's retries and grace period count from here. */
    firstFailedAt: timestamp('first_failed_at', { withTimezone: true, mode: 'date' }),
    /** When dunning charges the failed invoice again; null once paid or when no retry is left. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /** The biller whose card paid it: the account's billing history lists it, even after the project is deleted. */
    paidByUserId: text('paid_by_user_id').references(() => users.id),
  },
  (t) => [
    uniqueIndex('invoices_project_period_key').on(t.projectId, t.period),
    index('invoices_next_attempt_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'failed'`),
    index('invoices_paid_by_idx').on(t.paidByUserId, t.paidAt),
  ],
);

export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: text('id').primaryKey(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    billingItemId: text('billing_item_id').notNull(),
    category: chargeCategory('category').notNull(),
    description: text('description').notNull(),
    amount: integer('amount').notNull(),
  },
  (t) => [index('invoice_lines_invoice_idx').on(t.invoiceId)],
);

/** An offer is pending until the member it names accepts or declines it, its proposer cancels it, or it expires. */
export const BILLER_TRANSFER_STATUSES = ['pending', 'accepted', 'declined', 'cancelled', 'expired'] as const;
export type BillerTransferStatus = (typeof BILLER_TRANSFER_STATUSES)[number];

export const billerTransferStatus = pgEnum('biller_transfer_status', BILLER_TRANSFER_STATUSES);

/**
 * An offer to move a project's billing onto another member's card. Billing moves only when that
 * member accepts; one offer per project is pending at a time (a pending row past `expiresAt` counts
 * as expired and is closed before the next offer is made).
 */
export const billerTransfers = pgTable(
  'biller_transfers',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The biller when the offer was made. */
    fromUserId: text('from_user_id')
      .notNull()
      .references(() => users.id),
    toUserId: text('to_user_id')
      .notNull()
      .references(() => users.id),
    proposedByUserId: text('proposed_by_user_id')
      .notNull()
      .references(() => users.id),
    status: billerTransferStatus('status').notNull().default('pending'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('biller_transfers_pending_project_key')
      .on(t.projectId)
      .where(sql`${t.status} = 'pending'`),
  ],
);

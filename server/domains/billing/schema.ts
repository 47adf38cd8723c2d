import { z } from 'zod';
import { isoDateTime } from '../../platform/schemas';

const MAX_EXPIRY_YEARS_AHEAD = 30;

/** Local mode: card details of a test card. The number is checked and never stored whole. */
export const localCardInput = z.object({
  cardNumber: z
    .string()
    .describe('The card number (test cards only); spaces and hyphens are ignored')
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(z.string().regex(/^\d{12,19}$/, 'Card number must be 12 to 19 digits')),
  expMonth: z.coerce.number().int().min(1, 'Expiry month must be 1 to 12').max(12, 'Expiry month must be 1 to 12'),
  expYear: z.coerce
    .number()
    .int()
    .min(2000)
    // Read at each check, not once at start: a process running over New Year moves with it.
    .refine((year) => year <= new Date().getUTCFullYear() + MAX_EXPIRY_YEARS_AHEAD, 'Expiry year is too far ahead')
    .describe(`Four digits; at most ${MAX_EXPIRY_YEARS_AHEAD} years ahead`),
  cvc: z.string().regex(/^\d{3,4}$/, 'CVC must be 3 or 4 digits'),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Country must be a two-letter ISO code')
    .transform((v) => v.toUpperCase())
    .optional()
    .describe('Issuing country, ISO 3166-1 alpha-2; decides the tax rate'),
});

/** Processor mode: a card saved by the processor's own form (a SetupIntent). */
export const processorCardInput = z.object({
  paymentMethodId: z.string().min(3).max(255).describe('The payment method the card form saved (SetupIntent)'),
});

export const cardSchema = z
  .object({
    id: z.string(),
    brand: z.string(),
    last4: z.string(),
    expMonth: z.number().int(),
    expYear: z.number().int(),
    isDefault: z.boolean(),
  })
  .meta({ id: 'PaymentMethod' });

export { previewSchema, tierChangePreviewSchema } from '../../billing/previewSchema';

const userSummary = z.object({ id: z.string(), name: z.string(), email: z.string() });

export const billerTransferSchema = z
  .object({
    id: z.string(),
    from: userSummary.describe('Who held billing when the offer was made'),
    to: userSummary.describe('The member who is offered billing; only they can accept or decline'),
    proposedBy: userSummary,
    createdAt: isoDateTime,
    expiresAt: isoDateTime.describe('The offer lapses at this time unless it is answered first'),
  })
  .meta({ id: 'BillerTransfer' });

export const billingOverviewSchema = z
  .object({
    biller: userSummary,
    billingEmail: z.string().describe("The project's billing email, or the biller's account email when unset"),
    defaultPaymentMethod: cardSchema.nullable().describe("The biller's default card, shown to the biller only (null for everyone else)"),
    billerHasPaymentMethod: z.boolean().describe('Whether the biller has a default card: purchases and invoices can be charged'),
    pendingTransfer: billerTransferSchema.nullable().describe('An offer of billing waiting for its answer'),
    creditBalance: z.number().int(),
    currency: z.string(),
    blockedAt: isoDateTime.nullable().describe('Set while an invoice is unpaid: new purchases are refused (402 PROJECT_BLOCKED)'),
    blockedReason: z.string().nullable(),
    suspendedAt: isoDateTime
      .nullable()
      .describe('Set once an invoice stayed unpaid past the grace period: paid resources are stopped until it is paid (402 PROJECT_SUSPENDED)'),
    suspendsAt: isoDateTime
      .nullable()
      .describe('While an invoice has failed and the project is not suspended yet: when its paid resources will be stopped unless the invoice is paid'),
    currentMonth: z.object({ month: z.string(), total: z.number().int().describe('Charged so far this month, minor units') }),
    provider: z.enum(['local', 'stripe']),
    publishableKey: z.string().nullable().describe('Set in processor mode, for its card form'),
  })
  .meta({ id: 'BillingOverview' });

export const invoiceLineSchema = z.object({ id: z.string(), category: z.string(), description: z.string(), amount: z.number().int() });

export const invoiceSchema = z
  .object({
    id: z.string(),
    period: z.string(),
    status: z.enum(['open', 'paid', 'failed']),
    subtotal: z.number().int(),
    tax: z.number().int().nullable(),
    creditApplied: z.number().int(),
    total: z.number().int(),
    currency: z.string(),
    failureCode: z.string().nullable(),
    attempts: z.number().int().describe('Charges tried so far'),
    nextAttemptAt: isoDateTime.nullable().describe('When a failed invoice is charged again automatically; null when no retry is scheduled'),
    createdAt: isoDateTime,
    paidAt: isoDateTime.nullable(),
  })
  .meta({ id: 'Invoice' });

export const invoiceWithLinesSchema = invoiceSchema.extend({ lines: z.array(invoiceLineSchema) });

export const accountInvoiceSchema = invoiceSchema
  .extend({
    projectId: z.string().nullable().describe('Null once the project has been deleted; the invoice is kept'),
    projectName: z.string().describe('The project as it was named when the invoice was issued'),
  })
  .meta({ id: 'AccountInvoice' });

export type Card = z.infer<typeof cardSchema>;
export type BillingOverview = z.infer<typeof billingOverviewSchema>;
export type Invoice = z.infer<typeof invoiceSchema>;
export type AccountInvoice = z.infer<typeof accountInvoiceSchema>;
export type BillerTransfer = z.infer<typeof billerTransferSchema>;

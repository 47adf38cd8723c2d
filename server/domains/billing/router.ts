import { z } from 'zod';
import { validationError } from '../../platform/errors';
import { getPaymentsProvider } from '../../providers/payments';
import type { AttachCardInput } from '../../providers/payments/types';
import { billingOverviewSchema, cardSchema, invoiceSchema, invoiceWithLinesSchema, localCardInput, processorCardInput } from './schema';
import * as billing from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['Billing'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const READ = ['billing:read'] as const;
const WRITE = ['billing:read', 'billing:write'] as const;

const addCardInput = z.object({
  ...projectRef,
  cardNumber: z.string().optional().describe('Local mode: the card number (test cards only)'),
  expMonth: z.number().int().optional().describe('Local mode'),
  expYear: z.number().int().optional().describe('Local mode'),
  cvc: z.string().optional().describe('Local mode'),
  country: z.string().optional().describe('Local mode: issuing country, ISO 3166-1 alpha-2; decides the tax rate'),
  paymentMethodId: z.string().optional().describe('Processor mode: the payment method saved by the card form (SetupIntent)'),
});

/** The body's shape depends on the payments mode; each mode's schema names what is missing. */
function cardInputFor(input: z.infer<typeof addCardInput>): AttachCardInput {
  if (getPaymentsProvider().kind === 'local') {
    const parsed = localCardInput.safeParse(input);
    if (!parsed.success) throw validationError(parsed.error.issues);
    return { kind: 'card', ...parsed.data };
  }
  const parsed = processorCardInput.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return { kind: 'processor', paymentMethodId: parsed.data.paymentMethodId };
}

export const billingRouter = router({
  overview: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/billing', tags: TAGS, summary: 'Billing overview', description: 'Who holds billing, the default card, credit balance, blocked state and what was charged this month. Owner or admin.' },
      scopes: [...READ],
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(billingOverviewSchema)
    .query(({ ctx }) => billing.getBillingOverview(ctx.project.id)),

  listPaymentMethods: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/billing/payment-methods', tags: TAGS, summary: 'Saved cards', description: "The cards of the member who holds billing. Owner or admin." },
      scopes: [...READ],
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(z.array(cardSchema))
    .query(({ ctx }) => billing.listPaymentMethods(ctx.project.id)),

  addPaymentMethod: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/payment-methods',
        tags: TAGS,
        summary: 'Save a card',
        description:
          'Only the member who holds billing. Local mode takes { cardNumber, expMonth, expYear, cvc, country? } (test cards: 4242 4242 4242 4242 works; 4000 0000 0000 0002 and 4000 0000 0000 9995 are declined with 402 CARD_DECLINED; 4000 0000 0000 0341 saves but declines when charged). Processor mode takes { paymentMethodId } from the card form. The first card becomes the default.',
      },
      scopes: [...WRITE],
      role: 'admin',
      successStatus: 201,
    })
    .input(addCardInput)
    .output(cardSchema)
    .mutation(({ ctx, input }) => billing.addPaymentMethod(ctx.project.id, ctx.actor.userId, cardInputFor(input))),

  createCardSetup: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/billing/payment-methods/setup', tags: TAGS, summary: 'Start saving a card (processor mode)', description: "Returns the SetupIntent client secret for the processor's card form. 400 in local mode. Only the member who holds billing." },
      scopes: [...WRITE],
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(z.object({ clientSecret: z.string(), publishableKey: z.string() }))
    .mutation(({ ctx }) => billing.createCardSetup(ctx.project.id, ctx.actor.userId)),

  setDefaultPaymentMethod: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/billing/payment-methods/{paymentMethodId}/default', tags: TAGS, summary: 'Make a card the default', description: 'Only the member who holds billing.' },
      scopes: [...WRITE],
      role: 'admin',
    })
    .input(z.object({ ...projectRef, paymentMethodId: pathParam('paymentMethodId') }))
    .output(cardSchema)
    .mutation(({ ctx, input }) => billing.setDefaultPaymentMethod(ctx.project.id, ctx.actor.userId, input.paymentMethodId)),

  removePaymentMethod: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}/billing/payment-methods/{paymentMethodId}', tags: TAGS, summary: 'Remove a card', description: 'Only the member who holds billing. The default card can only be removed when it is the last one (409 CONFLICT otherwise).' },
      scopes: [...WRITE],
      role: 'admin',
      successStatus: 204,
    })
    .input(z.object({ ...projectRef, paymentMethodId: pathParam('paymentMethodId') }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await billing.removePaymentMethod(ctx.project.id, ctx.actor.userId, input.paymentMethodId);
    }),

  listInvoices: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/billing/invoices', tags: TAGS, summary: 'Invoices', description: 'Monthly invoices, newest first. Owner or admin.' },
      scopes: [...READ],
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(z.array(invoiceSchema))
    .query(({ ctx }) => billing.listInvoices(ctx.project.id)),

  getInvoice: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/billing/invoices/{invoiceId}', tags: TAGS, summary: 'An invoice with its lines' },
      scopes: [...READ],
      role: 'admin',
    })
    .input(z.object({ ...projectRef, invoiceId: pathParam('invoiceId') }))
    .output(invoiceWithLinesSchema)
    .query(({ ctx, input }) => billing.getInvoice(ctx.project.id, input.invoiceId)),

  payInvoice: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/billing/invoices/{invoiceId}/pay', tags: TAGS, summary: 'Pay a failed invoice', description: "Charges the biller's current default card again; paying the last unpaid invoice unblocks the project. 402 CARD_DECLINED when it fails again, 409 when already paid." },
      scopes: [...WRITE],
      role: 'admin',
    })
    .input(z.object({ ...projectRef, invoiceId: pathParam('invoiceId') }))
    .output(invoiceWithLinesSchema)
    .mutation(({ ctx, input }) => billing.payInvoice(ctx.project.id, input.invoiceId)),

  transferBiller: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/billing/biller', tags: TAGS, summary: 'Hand billing to another member', description: "Owner only. The new biller must be an owner or admin (409 otherwise); their default card pays from then on." },
      scopes: [...WRITE],
      role: 'owner',
    })
    .input(z.object({ ...projectRef, userId: z.string().min(1) }))
    .output(billingOverviewSchema)
    .mutation(({ ctx, input }) => billing.transferBilling(ctx.project.id, ctx.actor.userId, input.userId)),
});

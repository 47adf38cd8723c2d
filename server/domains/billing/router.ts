import { z } from 'zod';
import { validationError } from '../../platform/errors';
import { getPaymentsProvider } from '../../providers/payments';
import type { AttachCardInput } from '../../providers/payments/types';
import {
  ACCEPT_BILLER_TRANSFER,
  ADD_PAYMENT_METHOD,
  BILLER_ONLY,
  BILLING_OVERVIEW,
  CANCEL_BILLER_TRANSFER,
  CREATE_CARD_SETUP,
  DECLINE_BILLER_TRANSFER,
  LIST_ACCOUNT_INVOICES,
  LIST_PAYMENT_METHODS,
  PAY_INVOICE,
  PROPOSE_BILLER_TRANSFER,
  REMOVE_PAYMENT_METHOD,
} from './docs';
import { accountInvoiceSchema, billingOverviewSchema, cardSchema, invoiceSchema, invoiceWithLinesSchema, localCardInput, processorCardInput } from './schema';
import * as billing from './service';
import * as transfers from './transfers';
import { authedProcedure, pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['Billing'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const READ = ['billing:read'] as const;
const WRITE = ['billing:read', 'billing:write'] as const;
const transferRef = { ...projectRef, transferId: pathParam('transferId').describe('The offer, from pendingTransfer.id of the overview') };

/** The card's fields are checked against the body of the payments mode in use, which is also the body the document shows. */
const addCardInput = z.object(projectRef).loose();

function cardBody(): typeof localCardInput | typeof processorCardInput {
  return getPaymentsProvider().kind === 'local' ? localCardInput : processorCardInput;
}

/** Each mode's body names what is missing for that mode. */
function cardInputFor(input: z.infer<typeof addCardInput>): AttachCardInput {
  const parsed = cardBody().safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return 'paymentMethodId' in parsed.data ? { kind: 'processor', paymentMethodId: parsed.data.paymentMethodId } : { kind: 'card', ...parsed.data };
}

export const billingRouter = router({
  overview: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/billing', tags: TAGS, summary: 'Billing overview', description: BILLING_OVERVIEW },
      scopes: [...READ],
      role: 'admin',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object(projectRef))
    .output(billingOverviewSchema)
    .query(({ ctx }) => billing.getBillingOverview(ctx.project.id, ctx.actor.userId)),

  listPaymentMethods: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/billing/payment-methods',
        tags: TAGS,
        summary: 'Saved cards',
        description: LIST_PAYMENT_METHODS,
      },
      scopes: [...READ],
      role: 'admin',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object(projectRef))
    .output(z.array(cardSchema))
    .query(({ ctx }) => billing.listPaymentMethods(ctx.project.id, ctx.actor.userId)),

  addPaymentMethod: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/billing/payment-methods', tags: TAGS, summary: 'Save a card', description: ADD_PAYMENT_METHOD },
      scopes: [...WRITE],
      role: 'admin',
      successStatus: 201,
      errors: ['CONFLICT', 'CARD_DECLINED', 'UPSTREAM_ERROR'],
      requestBody: cardBody,
    })
    .input(addCardInput)
    .output(cardSchema)
    .mutation(({ ctx, input }) => billing.addPaymentMethod(ctx.project.id, ctx.actor.userId, cardInputFor(input))),

  createCardSetup: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/payment-methods/setup',
        tags: TAGS,
        summary: 'Start saving a card (processor mode)',
        description: CREATE_CARD_SETUP,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['BAD_REQUEST', 'CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(z.object(projectRef))
    .output(z.object({ clientSecret: z.string(), publishableKey: z.string() }))
    .mutation(({ ctx }) => billing.createCardSetup(ctx.project.id, ctx.actor.userId)),

  setDefaultPaymentMethod: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/payment-methods/{paymentMethodId}/default',
        tags: TAGS,
        summary: 'Make a card the default',
        description: BILLER_ONLY,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, paymentMethodId: pathParam('paymentMethodId') }))
    .output(cardSchema)
    .mutation(({ ctx, input }) => billing.setDefaultPaymentMethod(ctx.project.id, ctx.actor.userId, input.paymentMethodId)),

  removePaymentMethod: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/billing/payment-methods/{paymentMethodId}',
        tags: TAGS,
        summary: 'Remove a card',
        description: REMOVE_PAYMENT_METHOD,
      },
      scopes: [...WRITE],
      role: 'admin',
      successStatus: 204,
      errors: ['CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, paymentMethodId: pathParam('paymentMethodId') }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await billing.removePaymentMethod(ctx.project.id, ctx.actor.userId, input.paymentMethodId);
    }),

  listInvoices: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/billing/invoices',
        tags: TAGS,
        summary: 'Invoices',
        description: 'Monthly invoices, newest first. Owner or admin.',
      },
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
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/invoices/{invoiceId}/pay',
        tags: TAGS,
        summary: 'Pay a failed invoice',
        description: PAY_INVOICE,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT', 'CARD_DECLINED', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, invoiceId: pathParam('invoiceId') }))
    .output(invoiceWithLinesSchema)
    .mutation(({ ctx, input }) => billing.payInvoice(ctx.project.id, input.invoiceId)),

  transferBiller: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/biller',
        tags: TAGS,
        summary: 'Offer billing to another member',
        description: PROPOSE_BILLER_TRANSFER,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, userId: z.string().min(1) }))
    .output(billingOverviewSchema)
    .mutation(async ({ ctx, input }) => {
      await transfers.proposeBillerTransfer(ctx.project.id, ctx.actor.userId, input.userId);
      return billing.getBillingOverview(ctx.project.id, ctx.actor.userId);
    }),

  acceptBillerTransfer: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/biller/transfers/{transferId}/accept',
        tags: TAGS,
        summary: 'Accept an offer of billing',
        description: ACCEPT_BILLER_TRANSFER,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT'],
    })
    .input(z.object(transferRef))
    .output(billingOverviewSchema)
    .mutation(async ({ ctx, input }) => {
      await transfers.acceptBillerTransfer(ctx.project.id, ctx.actor.userId, input.transferId);
      return billing.getBillingOverview(ctx.project.id, ctx.actor.userId);
    }),

  declineBillerTransfer: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/billing/biller/transfers/{transferId}/decline',
        tags: TAGS,
        summary: 'Decline an offer of billing',
        description: DECLINE_BILLER_TRANSFER,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT'],
    })
    .input(z.object(transferRef))
    .output(billingOverviewSchema)
    .mutation(async ({ ctx, input }) => {
      await transfers.declineBillerTransfer(ctx.project.id, ctx.actor.userId, input.transferId);
      return billing.getBillingOverview(ctx.project.id, ctx.actor.userId);
    }),

  cancelBillerTransfer: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/billing/biller/transfers/{transferId}',
        tags: TAGS,
        summary: 'Cancel an offer of billing',
        description: CANCEL_BILLER_TRANSFER,
      },
      scopes: [...WRITE],
      role: 'admin',
      errors: ['CONFLICT'],
      successStatus: 204,
    })
    .input(z.object(transferRef))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await transfers.cancelBillerTransfer(ctx.project.id, ctx.actor.userId, input.transferId);
    }),

  accountInvoices: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/account/invoices', tags: TAGS, summary: 'Your billing history', description: LIST_ACCOUNT_INVOICES },
      sessionOnly: true,
    })
    .input(z.object({}))
    .output(z.array(accountInvoiceSchema))
    .query(({ ctx }) => billing.listAccountInvoices(ctx.actor.userId)),
});

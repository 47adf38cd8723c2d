import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';

type BillingOutputs = inferRouterOutputs<AppRouter>['billing'];

export type BillingOverview = BillingOutputs['overview'];
export type SavedCard = BillingOutputs['listPaymentMethods'][number];
export type Invoice = BillingOutputs['listInvoices'][number];
export type InvoiceWithLines = BillingOutputs['getInvoice'];
export type AccountInvoice = BillingOutputs['accountInvoices'][number];
export type ChargeMonth = inferRouterOutputs<AppRouter>['projects']['stats']['resourceHistory'][number];

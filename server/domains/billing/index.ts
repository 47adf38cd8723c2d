import { billingJobs } from '../../billing/jobs';
import { defineDomain } from '../../platform/domain';
import { paymentWebhookRoute } from './paymentWebhook';
import { billingRouter } from './router';

export { previewSchema } from './schema';
export { cancelBillerTransfersInvolving } from './transfers';

/** Billing's REST surface and the processor's webhook; the engine itself is `server/billing/`. */
export const billingDomain = defineDomain({
  name: 'billing',
  routers: { billing: billingRouter },
  jobs: billingJobs,
  events: [
    'billing.biller_changed',
    'billing.transfer_proposed',
    'billing.transfer_declined',
    'billing.transfer_cancelled',
    'billing.project_suspended',
    'billing.project_resumed',
    'payment_method.added',
    'charge.succeeded',
    'charge.refunded',
    'payment.failed',
    'invoice.paid',
    'invoice.payment_failed',
    'subscription.downgraded',
  ],
  scopes: ['billing'],
  panel: [{ segment: 'billing', label: 'Billing', icon: 'creditCard', section: 'project', order: 30 }],
  rawRoutes: [paymentWebhookRoute],
});

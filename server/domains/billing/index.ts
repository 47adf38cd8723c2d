import { billingJobs } from '../../billing/jobs';
import { defineDomain } from '../../platform/domain';
import { billingEvents } from './events';
import { paymentWebhookRoute } from './paymentWebhook';
import { billingRouter } from './router';

export { previewSchema } from './schema';
export { cancelBillerTransfersInvolving } from './transfers';

/** Billing's REST surface and the processor's webhook; the engine itself is `server/billing/`. */
export const billingDomain = defineDomain({
  name: 'billing',
  routers: { billing: billingRouter },
  jobs: billingJobs,
  events: billingEvents,
  scopes: ['billing'],
  panel: [{ segment: 'billing', label: 'Billing', icon: 'creditCard', section: 'project', order: 30 }],
  rawRoutes: [paymentWebhookRoute],
});

import { webhookEndpoints } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { webhookDeliveryLoop, webhookEventHandler } from './delivery';
import { webhookEvents } from './events';
import { webhooksRouter } from './router';

/** Outbound webhooks: endpoints subscribed to the event catalogue, deliveries signed as Standard Webhooks. */
export const webhooksDomain = defineDomain({
  name: 'webhooks',
  routers: { webhooks: webhooksRouter },
  events: webhookEvents,
  eventHandlers: [webhookEventHandler],
  loops: [webhookDeliveryLoop],
  scopes: ['webhooks'],
  panel: [{ segment: 'webhooks', label: 'Webhooks', icon: 'inbox', section: 'resources', order: 40 }],
  sealedColumns: [
    { table: webhookEndpoints, id: webhookEndpoints.id, sealed: webhookEndpoints.secretSealed },
    { table: webhookEndpoints, id: webhookEndpoints.id, sealed: webhookEndpoints.previousSecretSealed },
  ],
});

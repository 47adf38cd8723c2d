import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { authedProcedure, pathParam, projectProcedure, router } from '../../platform/trpc';
import {
  CREATE_ENDPOINT,
  DELETE_ENDPOINT,
  EVENT_TYPES,
  GET_ENDPOINT,
  LIST_DELIVERIES,
  LIST_ENDPOINTS,
  PAUSE_ENDPOINT,
  REDELIVER,
  RESUME_ENDPOINT,
  ROTATE_SECRET,
  SEND_TEST,
  UPDATE_ENDPOINT,
} from './docs';
import {
  createWebhookEndpointInput,
  listWebhookDeliveriesInput,
  updateWebhookEndpointInput,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhookEventTypeSchema,
} from './schema';
import * as webhooks from './service';

const TAGS = ['Webhooks'];
const READ: Scope[] = ['webhooks:read'];
const WRITE: Scope[] = ['webhooks:read', 'webhooks:write'];
const BASE = '/projects/{projectId}/webhooks';
const ENDPOINT = `${BASE}/{endpointId}`;
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const endpointRef = { ...projectRef, endpointId: pathParam('endpointId') };

/** Writes need owners or admins: an endpoint receives the project's data. Every member reads. */
const write = { scopes: WRITE, role: 'admin' } as const;
const read = { scopes: READ, role: 'viewer' } as const;

export const webhooksRouter = router({
  eventTypes: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/webhooks/event-types', tags: TAGS, summary: 'Event types', description: EVENT_TYPES },
      anyCredential: true,
    })
    .input(z.object({}))
    .output(z.array(webhookEventTypeSchema))
    .query(() => webhooks.listEventTypes()),

  list: projectProcedure
    .meta({ openapi: { method: 'GET', path: BASE, tags: TAGS, summary: 'List webhook endpoints', description: LIST_ENDPOINTS }, ...read })
    .input(z.object(projectRef))
    .output(z.array(webhookEndpointSchema))
    .query(({ ctx }) => webhooks.listEndpoints(ctx.project.id)),

  create: projectProcedure
    .meta({
      openapi: { method: 'POST', path: BASE, tags: TAGS, summary: 'Create a webhook endpoint', description: CREATE_ENDPOINT },
      ...write,
      successStatus: 201,
      errors: ['URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
    })
    .input(z.object({ ...projectRef, ...createWebhookEndpointInput.shape }))
    .output(webhookEndpointWithSecretSchema)
    .mutation(({ ctx, input }) => webhooks.createEndpoint(ctx.project.id, input)),

  get: projectProcedure
    .meta({ openapi: { method: 'GET', path: ENDPOINT, tags: TAGS, summary: 'Get a webhook endpoint', description: GET_ENDPOINT }, ...read })
    .input(z.object(endpointRef))
    .output(webhookEndpointSchema)
    .query(({ ctx, input }) => webhooks.getEndpoint(ctx.project.id, input.endpointId)),

  update: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: ENDPOINT, tags: TAGS, summary: 'Update a webhook endpoint', description: UPDATE_ENDPOINT },
      ...write,
      errors: ['URL_NOT_ALLOWED'],
    })
    .input(z.object({ ...endpointRef, ...updateWebhookEndpointInput.shape }))
    .output(webhookEndpointSchema)
    .mutation(({ ctx, input }) => webhooks.updateEndpoint(ctx.project.id, input.endpointId, input)),

  delete: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: ENDPOINT, tags: TAGS, summary: 'Delete a webhook endpoint', description: DELETE_ENDPOINT },
      ...write,
      successStatus: 204,
    })
    .input(z.object(endpointRef))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await webhooks.deleteEndpoint(ctx.project.id, input.endpointId);
    }),

  rotateSecret: projectProcedure
    .meta({
      openapi: { method: 'POST', path: `${ENDPOINT}/rotate-secret`, tags: TAGS, summary: 'Rotate the signing secret', description: ROTATE_SECRET },
      ...write,
    })
    .input(z.object(endpointRef))
    .output(webhookEndpointWithSecretSchema)
    .mutation(({ ctx, input }) => webhooks.rotateSecret(ctx.project.id, input.endpointId)),

  pause: projectProcedure
    .meta({ openapi: { method: 'POST', path: `${ENDPOINT}/pause`, tags: TAGS, summary: 'Pause a webhook endpoint', description: PAUSE_ENDPOINT }, ...write })
    .input(z.object(endpointRef))
    .output(webhookEndpointSchema)
    .mutation(({ ctx, input }) => webhooks.pauseEndpoint(ctx.project.id, input.endpointId)),

  resume: projectProcedure
    .meta({ openapi: { method: 'POST', path: `${ENDPOINT}/resume`, tags: TAGS, summary: 'Resume a webhook endpoint', description: RESUME_ENDPOINT }, ...write })
    .input(z.object(endpointRef))
    .output(webhookEndpointSchema)
    .mutation(({ ctx, input }) => webhooks.resumeEndpoint(ctx.project.id, input.endpointId, ctx.actor.userId)),

  sendTest: projectProcedure
    .meta({
      openapi: { method: 'POST', path: `${ENDPOINT}/test`, tags: TAGS, summary: 'Send a test event', description: SEND_TEST },
      ...write,
      successStatus: 201,
      errors: ['CONFLICT'],
    })
    .input(z.object(endpointRef))
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => webhooks.sendTestEvent(ctx.project.id, input.endpointId)),

  deliveries: projectProcedure
    .meta({ openapi: { method: 'GET', path: `${ENDPOINT}/deliveries`, tags: TAGS, summary: 'List deliveries', description: LIST_DELIVERIES }, ...read })
    .input(z.object({ ...endpointRef, ...listWebhookDeliveriesInput.shape }))
    .output(webhookDeliveryPageSchema)
    .query(({ ctx, input }) => webhooks.listDeliveries(ctx.project.id, input.endpointId, input)),

  redeliver: projectProcedure
    .meta({
      openapi: { method: 'POST', path: `${ENDPOINT}/deliveries/{deliveryId}/redeliver`, tags: TAGS, summary: 'Redeliver', description: REDELIVER },
      ...write,
      errors: ['CONFLICT'],
    })
    .input(z.object({ ...endpointRef, deliveryId: pathParam('deliveryId') }))
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => webhooks.redeliver(ctx.project.id, input.endpointId, input.deliveryId)),
});

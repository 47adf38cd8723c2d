import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATUSES, WEBHOOK_PAUSE_REASONS } from '../../../db/schema/webhooks';
import { isoDateTime } from '../../platform/schemas';

export {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_ENDPOINT_STATUSES,
  WEBHOOK_PAUSE_REASONS,
  type WebhookDeliveryStatus,
  type WebhookEndpointStatus,
} from '../../../db/schema/webhooks';

/** Endpoints a project can hold. */
export const WEBHOOK_ENDPOINTS_PER_PROJECT = 20;
/** Subscribes to every event type, present and future. */
export const ALL_EVENTS = '*';
export const WEBHOOK_DELIVERIES_MAX_LIMIT = 100;
export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 20;

export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, 'URL is required')
  .max(2048, 'URL must be at most 2048 characters')
  .describe('Where deliveries are POSTed: an https:// URL whose host resolves to public addresses only');

export const webhookEventsSchema = z
  .array(z.string().min(1).max(100), { error: 'Events must be a list of event types' })
  .min(1, 'Choose at least one event type')
  .max(200, 'At most 200 event types')
  .describe('Event types of `GET /v1/webhooks/event-types`, or `["*"]` for every type, including ones added later');

export const webhookDescriptionSchema = z
  .string()
  .trim()
  .max(500, 'Description must be at most 500 characters')
  .describe('What the endpoint is for; shown in the panel');

export const createWebhookEndpointInput = z.object({
  url: webhookUrlSchema,
  events: webhookEventsSchema,
  description: webhookDescriptionSchema.optional(),
});

export const updateWebhookEndpointInput = z.object({
  url: webhookUrlSchema.optional(),
  events: webhookEventsSchema.optional(),
  description: webhookDescriptionSchema.optional(),
});

export const listWebhookDeliveriesInput = z.object({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).describe('Only deliveries in this state').optional(),
  cursor: z.string().min(1).max(200).describe('`nextCursor` of the previous page; opaque').optional(),
  limit: z
    .number()
    .int()
    .min(1)
    .max(WEBHOOK_DELIVERIES_MAX_LIMIT)
    .describe(`Deliveries per page, 1 to ${WEBHOOK_DELIVERIES_MAX_LIMIT}`)
    .default(WEBHOOK_DELIVERIES_DEFAULT_LIMIT),
});
export type WebhookDeliveryFilters = z.infer<typeof listWebhookDeliveriesInput>;

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()).describe('Subscribed event types; `["*"]` is every type'),
    status: z.enum(WEBHOOK_ENDPOINT_STATUSES).describe('`active` sends; `paused` and `disabled` (the URL answered 410 Gone) hold deliveries until resumed'),
    pausedReason: z.enum(WEBHOOK_PAUSE_REASONS).nullable().describe('`manual`, `failures` (paused automatically) or `gone` (410); null while active'),
    pausedAt: isoDateTime.nullable(),
    consecutiveFailures: z.number().int().min(0).describe('Deliveries that failed for good since the last successful attempt'),
    previousSecretExpiresAt: isoDateTime
      .nullable()
      .describe('Until then deliveries also carry a signature with the secret before the last rotation; null when there is none'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z
      .string()
      .describe('The signing secret, `whsec_` and the base64 of 32 random bytes (Standard Webhooks). Returned only in this response: store it now'),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookAttemptSchema = z.object({
  attemptedAt: isoDateTime,
  durationMs: z.number().int().min(0),
  ok: z.boolean().describe('A 2xx answer'),
  responseStatus: z.number().int().nullable().describe('Null when no answer came (connection error, timeout, refused address)'),
  responseBody: z.string().nullable().describe('The first 1 KB of the answer'),
  error: z.string().nullable().describe('Why no answer came'),
});

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('The `webhook-id` header, the same on every attempt of this delivery'),
    endpointId: z.string(),
    eventId: z.string().nullable().describe('The recorded event; null for a test event'),
    eventType: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).describe('`pending` (an attempt is due), `held` (endpoint paused), `succeeded`, `failed` (every attempt failed)'),
    attemptCount: z.number().int().min(0),
    nextAttemptAt: isoDateTime.nullable().describe('When the next attempt is due while pending'),
    payload: z.record(z.string(), z.unknown()).describe('The JSON body sent: `{ type, timestamp, data }`'),
    attempts: z.array(webhookAttemptSchema).describe('Oldest first'),
    createdAt: isoDateTime,
    completedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryPageSchema = z.object({
  deliveries: z.array(webhookDeliverySchema).describe('Newest first'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page'),
});

export const webhookEventTypeSchema = z
  .object({
    type: z.string(),
    description: z.string(),
    example: z.record(z.string(), z.unknown()).describe('`data` of a delivery of this type, without the `projectId` every delivery adds'),
  })
  .meta({ id: 'WebhookEventType' });

export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export type WebhookDeliveryPage = z.infer<typeof webhookDeliveryPageSchema>;
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;
export type CreateWebhookEndpointInput = z.infer<typeof createWebhookEndpointInput>;
export type UpdateWebhookEndpointInput = z.infer<typeof updateWebhookEndpointInput>;

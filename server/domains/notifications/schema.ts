import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../../../db/schema/notifications';
import { isoDateTime } from '../../platform/schemas';

export { NOTIFICATION_TYPES, type NotificationType } from '../../../db/schema/notifications';

export const NOTIFICATIONS_MAX_LIMIT = 200;
export const NOTIFICATIONS_DEFAULT_LIMIT = 50;

const dateOrDateTime = z.union([z.iso.date(), isoDateTime], { error: 'Expected an ISO 8601 date (2026-05-01) or date-time (2026-05-01T12:00:00Z)' });

/** Each must be a type of the event catalogue; the service checks (the panel imports this file, the catalogue lives on the server). */
const eventTypeSchema = z.string().min(1, 'Event type is required').max(100, 'Event type must be at most 100 characters');

export const listNotificationsInput = z.object({
  eventType: z
    .array(eventTypeSchema)
    .max(100, 'At most 100 event types')
    .describe('Notifications of these event types; repeat the parameter to match several (`eventType=invoice.paid&eventType=payment.failed`)')
    .optional(),
  type: z.enum(NOTIFICATION_TYPES, { error: 'Type must be INFO, WARNING, ERROR or SUCCESS' }).optional(),
  read: z
    .enum(['true', 'false'], { error: 'Read must be true or false' })
    .transform((value) => value === 'true')
    .describe('`true` for read notifications only, `false` for unread ones only')
    .optional(),
  from: dateOrDateTime.describe('On or after this instant (a bare date starts at 00:00 UTC)').optional(),
  to: dateOrDateTime.describe('On or before this instant; a bare date covers that whole day (UTC)').optional(),
  limit: z
    .number({ error: `Limit must be a whole number from 1 to ${NOTIFICATIONS_MAX_LIMIT}` })
    .int(`Limit must be a whole number from 1 to ${NOTIFICATIONS_MAX_LIMIT}`)
    .min(1, `Limit must be a whole number from 1 to ${NOTIFICATIONS_MAX_LIMIT}`)
    .max(NOTIFICATIONS_MAX_LIMIT, `Limit must be at most ${NOTIFICATIONS_MAX_LIMIT}`)
    .describe(`How many, 1 to ${NOTIFICATIONS_MAX_LIMIT}`)
    .default(NOTIFICATIONS_DEFAULT_LIMIT),
});
export type NotificationFilters = z.infer<typeof listNotificationsInput>;

export const notificationSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    body: z.string(),
    type: z.enum(NOTIFICATION_TYPES),
    eventType: z.string().nullable().describe('The event it tells of, such as `invoice.paid`'),
    read: z.boolean(),
    link: z.string().describe('Path of the panel page of what it is about, such as `/projects/prj_…/billing`'),
    createdAt: isoDateTime,
  })
  .meta({ id: 'Notification' });

export const notificationListSchema = z.object({ notifications: z.array(notificationSchema).describe('Newest first') });
export const unreadCountSchema = z.object({ unread: z.number().int().min(0) });
export const markedReadSchema = z.object({ marked: z.number().int().min(0).describe('How many notifications this call marked read (0 when none was unread)') });

export type Notification = z.infer<typeof notificationSchema>;
export type NotificationList = z.infer<typeof notificationListSchema>;

import { z } from 'zod';
import type { SignedInActor } from '../../platform/auth/access';
import type { Scope } from '../../platform/auth/scopes';
import { authedProcedure, pathParam, router } from '../../platform/trpc';
import { COUNT_UNREAD_NOTIFICATIONS, LIST_NOTIFICATIONS, MARK_ALL_NOTIFICATIONS_READ, MARK_NOTIFICATION_READ } from './docs';
import { listNotificationsInput, markedReadSchema, notificationListSchema, unreadCountSchema } from './schema';
import * as notifications from './service';

const TAGS = ['Notifications'];
const READ: Scope[] = ['notifications:read'];
const WRITE: Scope[] = ['notifications:read', 'notifications:write'];

const readerOf = (actor: SignedInActor): notifications.NotificationReader => ({
  userId: actor.userId,
  projectId: actor.kind === 'apiKey' ? actor.projectId : null,
});

export const notificationsRouter = router({
  list: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/notifications', tags: TAGS, summary: 'List my notifications', description: LIST_NOTIFICATIONS },
      scopes: READ,
    })
    .input(listNotificationsInput)
    .output(notificationListSchema)
    .query(({ ctx, input }) => notifications.listNotifications(readerOf(ctx.actor), input)),

  unreadCount: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/notifications/unread-count',
        tags: TAGS,
        summary: 'Count my unread notifications',
        description: COUNT_UNREAD_NOTIFICATIONS,
      },
      scopes: READ,
    })
    .input(z.object({}))
    .output(unreadCountSchema)
    .query(async ({ ctx }) => ({ unread: await notifications.countUnread(readerOf(ctx.actor)) })),

  markAllRead: authedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/notifications/read-all',
        tags: TAGS,
        summary: 'Mark all my notifications read',
        description: MARK_ALL_NOTIFICATIONS_READ,
      },
      scopes: WRITE,
    })
    .input(z.object({}))
    .output(markedReadSchema)
    .mutation(({ ctx }) => notifications.markAllRead(readerOf(ctx.actor))),

  markRead: authedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/notifications/{id}/read', tags: TAGS, summary: 'Mark a notification read', description: MARK_NOTIFICATION_READ },
      scopes: WRITE,
    })
    .input(z.object({ id: pathParam('id').describe('The notification id (`ntf_…`)') }))
    .output(markedReadSchema)
    .mutation(({ ctx, input }) => notifications.markRead(readerOf(ctx.actor), input.id)),
});

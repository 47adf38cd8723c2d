import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/** How a notification is shown: its colour and icon in the panel. */
export const NOTIFICATION_TYPES = ['INFO', 'WARNING', 'ERROR', 'SUCCESS'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * One row per person told about one event (written by the notifications domain's event handler).
 * A deleted project's notifications stay in their readers' feeds, without the project, until the
 * retention job purges them.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The project the event happened in; an API key reads only its own project's notifications. */
    projectId: text('project_id').references(() => projects.id, { onDelete: 'set null' }),
    /** The recorded event it tells of; with the user, it makes a redelivered event write nothing twice. */
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    type: text('type', { enum: NOTIFICATION_TYPES }).notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** A panel path, such as `/projects/prj_…/billing`. */
    link: text('link').notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('notifications_event_user_key').on(t.eventId, t.userId),
    index('notifications_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('notifications_user_unread_idx')
      .on(t.userId)
      .where(sql`${t.readAt} is null`),
    index('notifications_created_idx').on(t.createdAt),
  ],
);

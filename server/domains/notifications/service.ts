import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, type SQL } from 'drizzle-orm';
import { getDb, type Tx } from '../../../db';
import { invitations, memberships, notifications, projects, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError, invalidField } from '../../platform/errors';
import type { DispatchedEvent, EventHandler } from '../../platform/events/dispatch';
import { eventTypes } from '../../platform/events';
import { NOTIFICATION_RULES, type Audience, type NotificationRule } from './rules';
import type { Notification, NotificationFilters, NotificationList } from './schema';

/** How long notifications are kept; a daily job purges older ones. */
export const NOTIFICATION_RETENTION_DAYS = 180;

/**
 * Whose notifications a caller reaches: a session reaches all of its user's; an API key only its
 * creator's notifications of the key's own project, since a key reaches exactly one project.
 */
export interface NotificationReader {
  userId: string;
  projectId: string | null;
}

/**
 * Writes the notifications one event calls for, inside the dispatcher's transaction, so they exist
 * exactly when the event counts as dispatched. Returns how many were written.
 */
export async function notifyEvent(tx: Tx, event: DispatchedEvent, rules: Readonly<Record<string, NotificationRule>> = NOTIFICATION_RULES): Promise<number> {
  const rule = rules[event.type];
  if (!rule || !event.projectId) return 0;
  const [project] = await tx
    .select({ id: projects.id, name: projects.name, billerUserId: projects.billerUserId })
    .from(projects)
    .where(eq(projects.id, event.projectId));
  if (!project) return 0;

  const actor = (rule.actor ?? ((payload) => payload.by))(event.payload);
  const excluded = new Set<unknown>(rule.tellActor ? [] : [actor]);
  if (rule.alsoExcludeInviter) excluded.add(await inviterOf(tx, event.payload.invitationId));
  const recipients = (await audienceOf(tx, rule.audience, project, event.payload)).filter((userId) => !excluded.has(userId));
  if (recipients.length === 0) return 0;

  const names = await namesOf(tx, [...recipients, ...Object.values(event.payload)]);
  const told = recipients.filter((userId) => names.has(userId));
  if (told.length === 0) return 0;
  const rendered = rule.render({ payload: event.payload, project, nameOf: (userId) => (typeof userId === 'string' && names.get(userId)) || 'Someone' });
  const written = await tx
    .insert(notifications)
    .values(
      told.map((userId) => ({
        id: newId('ntf'),
        userId,
        projectId: project.id,
        eventId: event.id,
        eventType: event.type,
        ...rendered,
        createdAt: event.createdAt,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: notifications.id });
  return written.length;
}

async function audienceOf(tx: Tx, audience: Audience, project: { id: string; billerUserId: string }, payload: Record<string, unknown>): Promise<string[]> {
  switch (audience.kind) {
    case 'payloadUser': {
      const userId = payload[audience.field];
      return typeof userId === 'string' ? [userId] : [];
    }
    case 'inviter': {
      const inviter = await inviterOf(tx, payload.invitationId);
      return inviter ? [inviter] : [];
    }
    case 'members':
    case 'admins':
    case 'billing': {
      const roles = audience.kind === 'members' ? undefined : audience.kind === 'admins' ? (['owner', 'admin'] as const) : (['owner'] as const);
      const rows = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.projectId, project.id), roles ? inArray(memberships.role, [...roles]) : undefined));
      const ids = rows.map((row) => row.userId);
      // The biller is always a member; they are told of money matters whatever their role.
      if (audience.kind === 'billing' && !ids.includes(project.billerUserId)) ids.push(project.billerUserId);
      return ids;
    }
  }
}

async function inviterOf(tx: Tx, invitationId: unknown): Promise<string | null> {
  if (typeof invitationId !== 'string') return null;
  const [row] = await tx.select({ userId: invitations.invitedByUserId }).from(invitations).where(eq(invitations.id, invitationId));
  return row?.userId ?? null;
}

/** Names of the users among `ids` (anything that is not a user id is ignored); a missing key means no such user. */
async function namesOf(tx: Tx, ids: unknown[]): Promise<Map<string, string>> {
  const candidates = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.startsWith('usr_')))];
  if (candidates.length === 0) return new Map();
  const rows = await tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, candidates));
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The reader's notifications, newest first, filtered. */
export async function listNotifications(reader: NotificationReader, filters: NotificationFilters): Promise<NotificationList> {
  const conditions = [...readerConditions(reader)];
  if (filters.eventType) {
    const known = new Set(eventTypes());
    const unknown = filters.eventType.find((type) => !known.has(type));
    if (unknown !== undefined) throw invalidField('eventType', `Unknown event type ${JSON.stringify(unknown)}; see the event catalogue`);
    conditions.push(inArray(notifications.eventType, filters.eventType));
  }
  if (filters.type) conditions.push(eq(notifications.type, filters.type));
  if (filters.read !== undefined) conditions.push(filters.read ? isNotNull(notifications.readAt) : isNull(notifications.readAt));
  const from = filters.from ? new Date(filters.from) : undefined;
  const to = filters.to ? endOf(filters.to) : undefined;
  if (from && to && from.getTime() > to.getTime()) throw invalidField('to', 'Must be on or after from');
  if (from) conditions.push(gte(notifications.createdAt, from));
  if (to) conditions.push(lte(notifications.createdAt, to));

  const db = await getDb();
  const rows = await db
    .select()
    .from(notifications)
    .where(and(...conditions))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(filters.limit);
  return { notifications: rows.map(toView) };
}

export async function countUnread(reader: NotificationReader): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ unread: count() })
    .from(notifications)
    .where(and(...readerConditions(reader), isNull(notifications.readAt)));
  return row?.unread ?? 0;
}

/** Marks one notification read; marking a read one again changes nothing. Another user's is not found. */
export async function markRead(reader: NotificationReader, id: string): Promise<{ marked: number }> {
  const db = await getDb();
  const [row] = await db
    .select({ readAt: notifications.readAt })
    .from(notifications)
    .where(and(eq(notifications.id, id), ...readerConditions(reader)));
  if (!row) throw new AppError('NOT_FOUND', 'Notification not found');
  if (row.readAt) return { marked: 0 };
  const marked = await db
    .update(notifications)
    .set({ readAt: new Date() })
    .where(and(eq(notifications.id, id), isNull(notifications.readAt)))
    .returning({ id: notifications.id });
  return { marked: marked.length };
}

/** Marks every unread notification of the reader read, whatever filters a list used. */
export async function markAllRead(reader: NotificationReader): Promise<{ marked: number }> {
  const db = await getDb();
  const marked = await db
    .update(notifications)
    .set({ readAt: new Date() })
    .where(and(...readerConditions(reader), isNull(notifications.readAt)))
    .returning({ id: notifications.id });
  return { marked: marked.length };
}

/** Deletes notifications older than the retention period. */
export async function purgeExpiredNotifications(now = new Date()): Promise<number> {
  const db = await getDb();
  const cutoff = new Date(now.getTime() - NOTIFICATION_RETENTION_DAYS * 24 * 3600_000);
  const purged = await db.delete(notifications).where(lt(notifications.createdAt, cutoff)).returning({ id: notifications.id });
  return purged.length;
}

function readerConditions(reader: NotificationReader): SQL[] {
  const conditions = [eq(notifications.userId, reader.userId)];
  if (reader.projectId) conditions.push(eq(notifications.projectId, reader.projectId));
  return conditions;
}

/** A bare date as `to` covers that whole day; an instant is taken as it is. */
function endOf(value: string): Date {
  if (value.length > 10) return new Date(value);
  return new Date(new Date(`${value}T00:00:00Z`).getTime() + 24 * 3600_000 - 1);
}

function toView(row: typeof notifications.$inferSelect): Notification {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    type: row.type,
    eventType: row.eventType,
    read: row.readAt !== null,
    link: row.link,
    createdAt: row.createdAt.toISOString(),
  };
}

export const notificationEventHandler: EventHandler = {
  name: 'notifications',
  handle: async (tx: Tx, event: DispatchedEvent) => {
    await notifyEvent(tx, event);
  },
};

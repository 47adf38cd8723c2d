import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';

export const projectRole = pgEnum('project_role', ['owner', 'admin', 'member', 'viewer']);
export const invitationStatus = pgEnum('invitation_status', ['PENDING', 'ACCEPTED', 'REJECTED', 'REVOKED', 'EXPIRED']);

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    billingEmail: text('billing_email'),
    /** The user whose name-space the project's name is unique in (case-insensitive). */
    createdByUserId: text('created_by_user_id')
      .notNull()
      .references(() => users.id),
    /** The member whose saved card pays for the project; the creator until billing is transferred. */
    billerUserId: text('biller_user_id')
      .notNull()
      .references(() => users.id),
    blockedAt: timestamp('blocked_at', { withTimezone: true, mode: 'date' }),
    blockedReason: text('blocked_reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('projects_slug_key').on(t.slug),
    uniqueIndex('projects_creator_name_key').on(t.createdByUserId, sql`lower(${t.name})`),
  ],
);

export const memberships = pgTable(
  'memberships',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: projectRole('role').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: projectRole('role').notNull(),
    status: invitationStatus('status').notNull().default('PENDING'),
    invitedByUserId: text('invited_by_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    respondedAt: timestamp('responded_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('invitations_pending_email_key')
      .on(t.projectId, sql`lower(${t.email})`)
      .where(sql`${t.status} = 'PENDING'`),
    index('invitations_email_idx').on(sql`lower(${t.email})`),
  ],
);

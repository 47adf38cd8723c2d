import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projectRole } from './members';
import { projects } from './projects';

export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED', 'REVOKED', 'EXPIRED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const invitationStatus = pgEnum('invitation_status', INVITATION_STATUSES);

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
    /** SHA-256 of the secret in the emailed link; null for invitations sent before links carried one. */
    secretHash: text('secret_hash'),
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

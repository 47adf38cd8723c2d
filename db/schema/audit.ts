import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * How a mutation ended: `ok`, or the error code it was refused with (`FORBIDDEN`, `CONFLICT`…).
 * `pending` while it runs; `interrupted` when the process ended before it could say (a job marks it).
 */
export const AUDIT_STATES = ['pending', 'ok', 'interrupted'] as const;

/** The id fields of an operation's input (and the created resource's `id`): names and ids, never values. */
export type AuditTargets = Record<string, string | string[]>;

/**
 * One entry per mutation that reached a procedure with a known actor. `project_id` has no foreign
 * key on purpose: a deleted project's entries are kept (who deleted it is the question an audit
 * log answers) until the retention job purges them; project ids are never reused, so no other
 * project can come to read them. Actor and key columns are copies for the same reason.
 */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: text('id').primaryKey(),
    /** Null when the mutation never reached a project: a refusal before access was resolved, an account change. */
    projectId: text('project_id'),
    actorUserId: text('actor_user_id').notNull(),
    apiKeyId: text('api_key_id'),
    apiKeyPrefix: text('api_key_prefix'),
    /** The procedure's path, such as `sshKeys.create`. */
    action: text('action').notNull(),
    targets: jsonb('targets').$type<AuditTargets>().notNull(),
    requestId: text('request_id').notNull(),
    clientIp: text('client_ip').notNull(),
    transport: text('transport', { enum: ['rest', 'trpc', 'internal'] }).notNull(),
    outcome: text('outcome').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('audit_entries_project_created_idx').on(t.projectId, t.createdAt.desc(), t.id.desc()),
    index('audit_entries_created_idx').on(t.createdAt),
    index('audit_entries_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.outcome} = 'pending'`),
  ],
);

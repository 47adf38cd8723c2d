import { z } from 'zod';
import { AUDIT_STATES } from '../../../db/schema/audit';
import { ERROR_STATUS, type ErrorCode } from '../../platform/errors';
import { isoDateTime } from '../../platform/schemas';

/** What an entry's outcome can be: `ok`, an error code, or `pending` / `interrupted` (see the operation's description). */
export const AUDIT_OUTCOMES = [...AUDIT_STATES, ...(Object.keys(ERROR_STATUS) as ErrorCode[])] as const;
/** The outcome filter also takes `error`: any error code. */
export const AUDIT_OUTCOME_FILTERS = [...AUDIT_OUTCOMES, 'error'] as const;
export type AuditOutcomeFilter = (typeof AUDIT_OUTCOME_FILTERS)[number];

export const AUDIT_LOG_MAX_LIMIT = 200;
export const AUDIT_LOG_DEFAULT_LIMIT = 50;

const dateOrDateTime = z.union([z.iso.date(), isoDateTime], { error: 'Expected an ISO 8601 date (2026-05-01) or date-time (2026-05-01T12:00:00Z)' });

export const listAuditLogInput = z.object({
  actor: z.string().trim().min(1).max(100).describe('Entries of one user (`usr_…`) or one API key (`key_…`)').optional(),
  action: z.string().trim().min(1).max(100).describe('Entries of one operation, by its name, such as `sshKeys.create`').optional(),
  outcome: z
    .enum(AUDIT_OUTCOME_FILTERS, { error: 'Outcome must be ok, error, pending, interrupted or an error code such as FORBIDDEN' })
    .describe('`ok`, `error` (any error code), one error code, `pending` or `interrupted`')
    .optional(),
  from: dateOrDateTime.describe('On or after this instant (a bare date starts at 00:00 UTC)').optional(),
  to: dateOrDateTime.describe('On or before this instant; a bare date covers that whole day (UTC)').optional(),
  cursor: z.string().min(1).max(200).describe('`nextCursor` of the previous page; opaque').optional(),
  limit: z.number().int().min(1).max(AUDIT_LOG_MAX_LIMIT).describe(`Entries per page, 1 to ${AUDIT_LOG_MAX_LIMIT}`).default(AUDIT_LOG_DEFAULT_LIMIT),
});
export type AuditLogFilters = z.infer<typeof listAuditLogInput>;

export const auditEntrySchema = z
  .object({
    id: z.string(),
    action: z.string().describe("The operation's name: the router key and procedure, such as `servers.create`"),
    outcome: z.enum(AUDIT_OUTCOMES).describe('`ok`, the error code the caller got, `pending` while it runs, `interrupted` when its process ended first'),
    actor: z.object({
      userId: z.string(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      apiKey: z.object({ id: z.string(), prefix: z.string() }).nullable().describe('The key that acted, when one did (the user is its creator)'),
    }),
    targets: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .describe('The ids the call named (its `…Id` fields) and, on success, `resultId`: the id of what it created or changed'),
    requestId: z.string().describe('The X-Request-Id of the call'),
    clientIp: z.string(),
    transport: z.enum(['rest', 'trpc', 'internal']).describe('`rest` for /v1, `trpc` for the panel'),
    createdAt: isoDateTime.describe('When the call reached the operation'),
    completedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'AuditEntry' });

export const auditLogPageSchema = z.object({
  entries: z.array(auditEntrySchema).describe('Newest first'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page'),
});

export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type AuditLogPage = z.infer<typeof auditLogPageSchema>;

import { and, desc, eq, gte, lte, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { getDb } from '../../../db';
import { AUDIT_STATES, auditEntries, users } from '../../../db/schema';
import { invalidField } from '../../platform/errors';
import type { AuditEntry, AuditLogFilters, AuditLogPage, AuditOutcomeFilter } from './schema';

/** One page of the project's audit log, newest first, after the entry the cursor names. */
export async function listAuditLog(projectId: string, filters: AuditLogFilters): Promise<AuditLogPage> {
  const conditions: SQL[] = [eq(auditEntries.projectId, projectId)];
  if (filters.actor) conditions.push(or(eq(auditEntries.actorUserId, filters.actor), eq(auditEntries.apiKeyId, filters.actor))!);
  if (filters.action) conditions.push(eq(auditEntries.action, filters.action));
  if (filters.outcome) conditions.push(outcomeCondition(filters.outcome));
  const from = filters.from ? new Date(filters.from) : undefined;
  const to = filters.to ? endOf(filters.to) : undefined;
  if (from && to && from.getTime() > to.getTime()) throw invalidField('to', 'Must be on or after from');
  if (from) conditions.push(gte(auditEntries.createdAt, from));
  if (to) conditions.push(lte(auditEntries.createdAt, to));
  if (filters.cursor) {
    const after = decodeCursor(filters.cursor);
    conditions.push(sql`(${auditEntries.createdAt}, ${auditEntries.id}) < (${after.createdAt.toISOString()}::timestamptz, ${after.id})`);
  }

  const db = await getDb();
  const rows = await db
    .select({ entry: auditEntries, name: users.name, email: users.email })
    .from(auditEntries)
    .leftJoin(users, eq(users.id, auditEntries.actorUserId))
    .where(and(...conditions))
    .orderBy(desc(auditEntries.createdAt), desc(auditEntries.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1)?.entry;
  return {
    entries: page.map(({ entry, name, email }) => toView(entry, name, email)),
    nextCursor: rows.length > filters.limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}

function outcomeCondition(outcome: AuditOutcomeFilter): SQL {
  return outcome === 'error' ? notInArray(auditEntries.outcome, [...AUDIT_STATES]) : eq(auditEntries.outcome, outcome);
}

/** A bare date as `to` covers that whole day; an instant is taken as it is. */
function endOf(value: string): Date {
  if (value.length > 10) return new Date(value);
  return new Date(new Date(`${value}T00:00:00Z`).getTime() + 24 * 3600_000 - 1);
}

/** The position of the last entry of a page: its time (to the millisecond, as written) and id. */
function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(typeof time === 'string' ? time : Number.NaN);
    if (typeof id === 'string' && !Number.isNaN(createdAt.getTime())) return { createdAt, id };
  } catch {
    // falls through to the refusal below
  }
  throw invalidField('cursor', 'Not a cursor of this list; pass nextCursor as it was given');
}

function toView(entry: typeof auditEntries.$inferSelect, name: string | null, email: string | null): AuditEntry {
  return {
    id: entry.id,
    action: entry.action,
    outcome: entry.outcome as AuditEntry['outcome'],
    actor: {
      userId: entry.actorUserId,
      name,
      email,
      apiKey: entry.apiKeyId && entry.apiKeyPrefix ? { id: entry.apiKeyId, prefix: entry.apiKeyPrefix } : null,
    },
    targets: entry.targets,
    requestId: entry.requestId,
    clientIp: entry.clientIp,
    transport: entry.transport,
    createdAt: entry.createdAt.toISOString(),
    completedAt: entry.completedAt?.toISOString() ?? null,
  };
}

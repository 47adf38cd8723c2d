import { and, eq, inArray, lt } from 'drizzle-orm';
import { getDb } from '../../db';
import { auditEntries, type AuditTargets } from '../../db/schema';
import { newId } from '../../db/schema/ids';
import type { SignedInActor } from './auth/access';
import { getConfig } from './config';
import type { RequestContext } from './context';
import { toAppError } from './errors';

/**
 * The audit log: one entry per mutation that reaches a procedure with a known caller, written by
 * the base procedures in `trpc.ts` and never by a domain.
 *
 * Why write-ahead: a committed change must never lack its entry, yet domains open their own
 * transactions (sometimes several in one call) and some of their effects are outside any
 * transaction (a charge at the processor, a machine at the provider). Enlisting an insert in "the"
 * transaction cannot cover that; an entry committed before the procedure may write anything can.
 * So the entry is inserted as `pending` once the access checks have passed, and settled to `ok` or
 * the error code when the procedure has answered. A process that dies in between leaves it
 * `pending`; a job turns entries pending longer than any request can run into `interrupted` (the
 * change may or may not have committed). If the entry cannot be written, the procedure does not run.
 * Refusals by the access checks come before anything could be written and cost one insert.
 */

/** How the rest of a tRPC middleware chain ended, as `next()` reports it. */
type MiddlewareOutcome = { ok: true; data: unknown } | { ok: false; error: unknown };

/** The mutation being recorded; it rides on the request context down the rest of the chain. */
export class AuditedMutation {
  /** Filled by the project check once the caller is known to belong to the project the call names. */
  projectId: string | null = null;
  /** Where the entry is filed when the call never got that far: a key acts in its own project. */
  private fallbackProjectId: string | null;
  private entryId: string | null = null;
  private readonly startedAt = new Date();
  private readonly targets: AuditTargets;

  constructor(
    private readonly ctx: RequestContext,
    private readonly actor: SignedInActor,
    private readonly action: string,
    rawInput: unknown,
  ) {
    this.fallbackProjectId = actor.kind === 'apiKey' ? actor.projectId : null;
    this.targets = auditTargetsOf(rawInput);
  }

  /** Commits the entry as `pending`: from here on the procedure may write, and a crash leaves the entry behind. */
  async writeAhead(): Promise<void> {
    const id = newId('aud');
    const db = await getDb();
    await db.insert(auditEntries).values(this.row(id, 'pending', null));
    this.entryId = id;
  }

  /** Records how the mutation ended; a failure to record is logged, never turned into the caller's answer. */
  async settle(result: MiddlewareOutcome): Promise<void> {
    const outcome = result.ok ? 'ok' : toAppError(result.error).code;
    const output = result.ok ? result.data : undefined;
    this.fallbackProjectId ??= projectNamedBy(output);
    const resultId = idOf(output);
    const completedAt = new Date();
    try {
      const db = await getDb();
      if (this.entryId) {
        const row = this.row(this.entryId, outcome, resultId);
        await db.update(auditEntries).set({ projectId: row.projectId, targets: row.targets, outcome, completedAt }).where(eq(auditEntries.id, this.entryId));
      } else {
        await db.insert(auditEntries).values({ ...this.row(newId('aud'), outcome, resultId), completedAt });
      }
    } catch (err) {
      this.ctx.log.error({ err, action: this.action, entryId: this.entryId }, 'audit entry not settled');
    }
  }

  private row(id: string, outcome: string, resultId: string | null): typeof auditEntries.$inferInsert {
    const { actor, ctx } = this;
    const targets: AuditTargets = { ...this.targets };
    // The path may name the project by slug; the entry names it by id once access resolved it.
    if (this.projectId && typeof targets.projectId === 'string') targets.projectId = this.projectId;
    if (resultId) targets.resultId = resultId;
    return {
      id,
      projectId: this.projectId ?? this.fallbackProjectId,
      actorUserId: actor.userId,
      apiKeyId: actor.kind === 'apiKey' ? actor.keyId : null,
      apiKeyPrefix: actor.kind === 'apiKey' ? actor.keyPrefix : null,
      action: this.action,
      targets,
      requestId: ctx.requestId,
      clientIp: ctx.ip,
      transport: ctx.transport,
      outcome,
      createdAt: this.startedAt,
    };
  }
}

/**
 * Runs the rest of a mutation's chain (access checks, idempotency, validation, the procedure) and
 * records how it ended. `proceed` receives the mutation to put on the context.
 */
export async function auditMutation<TResult extends MiddlewareOutcome>(
  call: { ctx: RequestContext; actor: SignedInActor; action: string; rawInput: unknown },
  proceed: (audit: AuditedMutation) => Promise<TResult>,
): Promise<TResult> {
  const audit = new AuditedMutation(call.ctx, call.actor, call.action, call.rawInput);
  const result = await proceed(audit);
  await audit.settle(result);
  return result;
}

/**
 * An allow-list by name and shape: only top-level fields named `…Id` or `…Ids` whose values look
 * like ids are kept. Names, values, keys, tokens and card data never match both.
 */
const ID_FIELD = /^[a-z][A-Za-z0-9]*Ids?$/;
const ID_VALUE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;
const MAX_IDS_PER_FIELD = 50;

export function auditTargetsOf(rawInput: unknown): AuditTargets {
  const targets: AuditTargets = {};
  if (!rawInput || typeof rawInput !== 'object' || Array.isArray(rawInput)) return targets;
  for (const [field, value] of Object.entries(rawInput)) {
    if (!ID_FIELD.test(field)) continue;
    if (typeof value === 'string' && ID_VALUE.test(value)) targets[field] = value;
    if (Array.isArray(value)) {
      const ids = value.filter((v): v is string => typeof v === 'string' && ID_VALUE.test(v)).slice(0, MAX_IDS_PER_FIELD);
      if (ids.length > 0) targets[field] = ids;
    }
  }
  return targets;
}

function fieldOf(output: unknown, field: string): string | null {
  if (!output || typeof output !== 'object') return null;
  const value = (output as Record<string, unknown>)[field];
  return typeof value === 'string' && ID_VALUE.test(value) ? value : null;
}

/** The created (or changed) resource's id, when the answer has one. */
const idOf = (output: unknown) => fieldOf(output, 'id');

/** A mutation addressed to no project whose answer names one (a project created, an invitation accepted) is filed there. */
const projectNamedBy = (output: unknown) => fieldOf(output, 'projectId');

/** Longer than any request can run (Node ends requests after five minutes): a pending entry this old lost its process. */
export const INTERRUPTED_AFTER_MS = 15 * 60_000;

/** Marks entries whose process ended before they were settled; run by the maintenance job. */
export async function markInterruptedAuditEntries(now = new Date()): Promise<number> {
  const db = await getDb();
  const marked = await db
    .update(auditEntries)
    .set({ outcome: 'interrupted', completedAt: now })
    .where(and(eq(auditEntries.outcome, 'pending'), lt(auditEntries.createdAt, new Date(now.getTime() - INTERRUPTED_AFTER_MS))))
    .returning({ id: auditEntries.id });
  return marked.length;
}

const PURGE_BATCH = 5_000;
const DAY_MS = 24 * 3600_000;

/** Deletes entries older than AUDIT_RETENTION_DAYS, in batches so no statement holds the table long. */
export async function purgeExpiredAuditEntries(now = new Date()): Promise<number> {
  const db = await getDb();
  const cutoff = new Date(now.getTime() - getConfig().AUDIT_RETENTION_DAYS * DAY_MS);
  let purged = 0;
  for (;;) {
    const batch = db.select({ id: auditEntries.id }).from(auditEntries).where(lt(auditEntries.createdAt, cutoff)).limit(PURGE_BATCH);
    const deleted = await db.delete(auditEntries).where(inArray(auditEntries.id, batch)).returning({ id: auditEntries.id });
    purged += deleted.length;
    if (deleted.length < PURGE_BATCH) return purged;
  }
}

import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, lt, lte, or } from 'drizzle-orm';
import { getDb } from '../../db';
import { idempotencyKeys } from '../../db/schema';
import { getConfig } from './config';
import type { RequestContext } from './context';
import { AppError, invalidField, toAppError, type ErrorCode, type FieldErrors } from './errors';

/** Marks an answer that is the stored outcome of an earlier request with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * How long a claim holds off other requests with its key. A claim older than this belongs to a
 * request whose instance died before recording the outcome, so a retry takes it over and runs
 * rather than being refused until the record expires. It is well beyond the longest write (a
 * purchase makes a few upstream calls, each given up after 30 s): a slow request is never run twice.
 */
export const IDEMPOTENCY_LOCK_MS = 5 * 60_000;

/** Printable ASCII, as HTTP header values carry it. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

export interface IdempotentCall {
  ctx: Pick<RequestContext, 'actor' | 'idempotencyKey' | 'responseHeaders' | 'log'>;
  type: 'query' | 'mutation' | 'subscription';
  /** The procedure (`servers.create`): the same through /v1 and /api/trpc. */
  path: string;
  getRawInput: () => Promise<unknown>;
}

type ProcedureResult = { ok: true; data: unknown } | { ok: false; error: unknown };

/**
 * Runs a write sent with an Idempotency-Key once per caller and key (Stripe's semantics): the first
 * request claims the key, and its outcome (the data, or a 4xx refusal) is what every retry with the
 * same request gets, marked Idempotent-Replayed, until the record expires. A retry while the first
 * still runs is refused with IDEMPOTENCY_IN_PROGRESS, the same key with another request with
 * IDEMPOTENCY_KEY_REUSED. 5xx answers and rate limits are not kept: a retry runs again.
 * Anonymous writes (sign-up, password reset) have no caller to keep records for and just run.
 */
export async function idempotently<R extends ProcedureResult>(call: IdempotentCall, next: () => Promise<R>): Promise<R> {
  const { ctx } = call;
  const key = ctx.idempotencyKey;
  if (call.type !== 'mutation' || key === null || (ctx.actor.kind !== 'session' && ctx.actor.kind !== 'apiKey')) return next();
  if (!VALID_KEY.test(key)) throw invalidField('Idempotency-Key', 'Must be 1 to 255 printable ASCII characters');
  const owner: KeyOwner = { userId: ctx.actor.userId, credential: ctx.actor.kind === 'apiKey' ? ctx.actor.keyId : 'session', key, keyHash: keyHashOf(key) };
  const claim = await claimKey(owner, fingerprintOf(call.path, await call.getRawInput()));
  if (claim.kind === 'stored') {
    ctx.responseHeaders[REPLAYED_HEADER] = 'true';
    return replay<R>(unseal(owner, claim.response));
  }
  const result = await next();
  // The write has happened: its answer goes out even if it cannot be recorded; the claim then lapses after IDEMPOTENCY_LOCK_MS.
  await settle(owner, claim.claimId, result).catch((err: unknown) => ctx.log.error({ err, procedure: call.path }, 'idempotency record not settled'));
  return result;
}

/** Drops records whose retention has ended; run by the maintenance job. */
export async function purgeExpiredIdempotencyKeys(now = new Date()): Promise<number> {
  const db = await getDb();
  const deleted = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now)).returning({ userId: idempotencyKeys.userId });
  return deleted.length;
}

interface KeyOwner {
  userId: string;
  credential: string;
  key: string;
  keyHash: string;
}

type Claim = { kind: 'claimed'; claimId: string } | { kind: 'stored'; response: string };

interface StoredRefusal {
  code: ErrorCode;
  message: string;
  fields?: FieldErrors;
  headers?: Record<string, string>;
  docsUrl?: string;
}

type StoredOutcome = { data: unknown } | { error: StoredRefusal };

/**
 * One statement claims the key: a new row, or an existing one that has expired or whose holder died
 * (a stale claim of the same request). Anything else is answered from the row that is there.
 */
async function claimKey(owner: KeyOwner, fingerprint: string, now = new Date()): Promise<Claim> {
  const db = await getDb();
  const claimId = randomUUID();
  const claim = {
    fingerprint,
    state: 'running' as const,
    claimId,
    lockedAt: now,
    response: null,
    expiresAt: new Date(now.getTime() + getConfig().IDEMPOTENCY_TTL_HOURS * 3_600_000),
  };
  const [claimed] = await db
    .insert(idempotencyKeys)
    .values({ userId: owner.userId, credential: owner.credential, keyHash: owner.keyHash, ...claim })
    .onConflictDoUpdate({
      target: [idempotencyKeys.userId, idempotencyKeys.credential, idempotencyKeys.keyHash],
      set: claim,
      setWhere: or(
        lte(idempotencyKeys.expiresAt, now),
        and(
          eq(idempotencyKeys.state, 'running'),
          lte(idempotencyKeys.lockedAt, new Date(now.getTime() - IDEMPOTENCY_LOCK_MS)),
          eq(idempotencyKeys.fingerprint, fingerprint),
        ),
      ),
    })
    .returning({ claimId: idempotencyKeys.claimId });
  if (claimed) return { kind: 'claimed', claimId };

  const [held] = await db.select({ fingerprint: idempotencyKeys.fingerprint, response: idempotencyKeys.response }).from(idempotencyKeys).where(ownedBy(owner));
  if (held && held.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; send a new key for a new request');
  }
  // Still running, or released a moment ago by a request that failed: either way, the next retry decides.
  if (!held?.response) {
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry once it has finished');
  }
  return { kind: 'stored', response: held.response };
}

async function settle(owner: KeyOwner, claimId: string, result: ProcedureResult): Promise<void> {
  const db = await getDb();
  const ours = and(ownedBy(owner), eq(idempotencyKeys.claimId, claimId));
  const outcome = outcomeToKeep(result);
  if (outcome === null) await db.delete(idempotencyKeys).where(ours);
  else
    await db
      .update(idempotencyKeys)
      .set({ state: 'completed', response: seal(owner, JSON.stringify(outcome)) })
      .where(ours);
}

/** The data, or a 4xx refusal; null for failures a retry may not meet again (5xx, rate limits). */
function outcomeToKeep(result: ProcedureResult): StoredOutcome | null {
  if (result.ok) return { data: result.data };
  const app = toAppError(result.error);
  if (app.status >= 500 || app.code === 'RATE_LIMITED') return null;
  return { error: { code: app.code, message: app.message, fields: app.fields, headers: app.headers, docsUrl: app.docsUrl } };
}

function replay<R extends ProcedureResult>(response: string): R {
  const outcome = JSON.parse(response) as StoredOutcome;
  if ('error' in outcome) {
    const { code, message, ...options } = outcome.error;
    throw new AppError(code, message, options);
  }
  // A middleware cannot answer without the procedure through tRPC's API; its caller reads only `ok` and `data`.
  return { ok: true, data: outcome.data } as R;
}

function ownedBy(owner: KeyOwner) {
  return and(eq(idempotencyKeys.userId, owner.userId), eq(idempotencyKeys.credential, owner.credential), eq(idempotencyKeys.keyHash, owner.keyHash));
}

/*
 * What the table holds is keyed with AUTH_SECRET (the secret every instance shares), each use under
 * its own label: inputs carry passwords and card numbers, whose plain hashes could be guessed, and
 * answers carry secrets shown once, which only the client holding the Idempotency-Key can unseal.
 */

const keyed = (label: string, text: string) => createHmac('sha256', getConfig().AUTH_SECRET).update(`${label}\n${text}`).digest();

function keyHashOf(key: string): string {
  return keyed('idempotency-key', key).toString('hex');
}

/** The procedure and a keyed hash of its input with object keys sorted, so the same request always hashes the same. */
function fingerprintOf(path: string, rawInput: unknown): string {
  const canonical = JSON.stringify(rawInput ?? null, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return `${path}:${keyed('idempotency-request', canonical).toString('hex')}`;
}

const sealingKey = (owner: KeyOwner) => keyed('idempotency-response', `${owner.userId}\n${owner.credential}\n${owner.key}`);

/** AES-256-GCM: `iv.tag.ciphertext`, base64url. */
function seal(owner: KeyOwner, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(owner), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
}

function unseal(owner: KeyOwner, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(owner), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8');
}

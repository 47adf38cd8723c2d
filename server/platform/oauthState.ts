import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt } from 'drizzle-orm';
import { getDb } from '../../db';
import { oauthStates } from '../../db/schema';
import { getConfig } from './config';
import { AppError } from './errors';

/**
 * The `state` of an OAuth or app-install round trip: `<random>.<signature>`, signed with the app's
 * secret, recorded with the project, the user and where to return, valid for a few minutes and
 * consumed once. A forged, expired, reused or foreign state is refused the same way, so a callback
 * tells an attacker nothing about which check failed.
 */

export const OAUTH_STATE_TTL_MS = 10 * 60_000;

export interface OAuthStateGrant {
  purpose: string;
  projectId: string;
  userId: string;
  /** A relative panel path (see `safeReturnPath`). */
  returnTo: string;
  /** What else the round trip must carry to its end (an installation whose access is to be proved). */
  payload?: Record<string, string>;
}

export interface ConsumedOAuthState extends OAuthStateGrant {
  issuedAt: Date;
}

const sign = (random: string) => createHmac('sha256', getConfig().AUTH_SECRET).update(`oauth-state\n${random}`).digest('base64url');
const idOf = (random: string) => createHash('sha256').update(random).digest('hex');

export async function issueOAuthState(grant: OAuthStateGrant, now = new Date()): Promise<string> {
  const random = randomBytes(24).toString('base64url');
  const db = await getDb();
  await db.insert(oauthStates).values({ id: idOf(random), ...grant, expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS), createdAt: now });
  return `${random}.${sign(random)}`;
}

/** The grant a state was issued for (for one of `purposes`), consumed by this call; 400 LINK_EXPIRED for anything else. */
export async function consumeOAuthState(state: string, purposes: string | readonly string[], now = new Date()): Promise<ConsumedOAuthState> {
  const refused = new AppError('LINK_EXPIRED', 'This authorisation link is invalid, expired or already used; start connecting again');
  const [random, signature] = state.split('.');
  if (!random || !signature || state.split('.').length !== 2) throw refused;
  const expected = Buffer.from(sign(random));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw refused;
  const db = await getDb();
  const [row] = await db
    .update(oauthStates)
    .set({ usedAt: now })
    .where(
      and(
        eq(oauthStates.id, idOf(random)),
        inArray(oauthStates.purpose, typeof purposes === 'string' ? [purposes] : [...purposes]),
        isNull(oauthStates.usedAt),
        gt(oauthStates.expiresAt, now),
      ),
    )
    .returning();
  if (!row) throw refused;
  return {
    purpose: row.purpose,
    projectId: row.projectId,
    userId: row.userId,
    returnTo: row.returnTo,
    ...(row.payload ? { payload: row.payload } : {}),
    issuedAt: row.createdAt,
  };
}

/**
 * The project of the user's most recently ended round trip (one of `purposes`) that returned to
 * `returnTo`, while its state is still on record (until the maintenance job purges it). For a
 * return path that names no project: the page there finds out which project the user came from.
 */
export async function lastEndedRoundTripProject(userId: string, purposes: readonly string[], returnTo: string, now = new Date()): Promise<string | null> {
  const db = await getDb();
  const [row] = await db
    .select({ projectId: oauthStates.projectId })
    .from(oauthStates)
    .where(
      and(
        eq(oauthStates.userId, userId),
        inArray(oauthStates.purpose, [...purposes]),
        eq(oauthStates.returnTo, returnTo),
        isNotNull(oauthStates.usedAt),
        gt(oauthStates.usedAt, new Date(now.getTime() - OAUTH_STATE_TTL_MS)),
      ),
    )
    .orderBy(desc(oauthStates.usedAt))
    .limit(1);
  return row?.projectId ?? null;
}

/** States past their expiry are useless; the maintenance job removes them. */
export async function purgeExpiredOAuthStates(now = new Date()): Promise<number> {
  const db = await getDb();
  const removed = await db.delete(oauthStates).where(lt(oauthStates.expiresAt, now)).returning({ id: oauthStates.id });
  return removed.length;
}

/**
 * A path on this app to send the browser back to: relative, starting with one `/`, no scheme, no
 * host, no backslash (browsers read `/\evil.com` as `//evil.com`), no control characters. Anything
 * else falls back to `fallback`.
 */
export function safeReturnPath(candidate: string | undefined, fallback: string): string {
  if (!candidate) return fallback;
  if (!candidate.startsWith('/') || candidate.startsWith('//') || candidate.includes('\\')) return fallback;
  if (/\p{Cc}/u.test(candidate) || candidate.length > 512) return fallback;
  try {
    const url = new URL(candidate, 'http://return.invalid');
    if (url.origin !== 'http://return.invalid') return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}

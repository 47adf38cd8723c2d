import { and, eq, sql } from 'drizzle-orm';
import { decode } from 'next-auth/jwt';
import { getDb, type Db } from '../../../db';
import { apiKeys, memberships, users } from '../../../db/schema';
import { getConfig } from '../config';
import type { ProjectRole } from './roles';
import { readCookie, sessionCookieName } from './sessionCookie';
import { looksLikeApiKey, sha256Hex } from './tokens';

export type Actor =
  | { kind: 'anonymous' }
  /** Credentials were presented but are not valid (unknown, revoked or expired key, stale session). */
  | { kind: 'invalid'; reason: string }
  | { kind: 'session'; userId: string }
  | {
      kind: 'apiKey';
      userId: string;
      keyId: string;
      /** The key's visible first characters, so records can name the key without holding it. */
      keyPrefix: string;
      projectId: string;
      scopes: string[];
      /** The creator's current role in the key's project; null once they have left it. */
      role: ProjectRole | null;
    };

export interface CredentialHeaders {
  authorization?: string | null;
  apiKey?: string | null;
  cookie?: string | null;
}

const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolves whatever credential a request carries into one Actor; procedures never read headers. */
export async function resolveActor(headers: CredentialHeaders, now = new Date()): Promise<Actor> {
  const bearer = headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  const key = bearer ?? headers.apiKey?.trim();
  if (key) return resolveApiKey(key, now);
  if (headers.authorization) return { kind: 'invalid', reason: 'Unsupported Authorization scheme; use Bearer <API key>' };
  const token = readCookie(headers.cookie, sessionCookieName());
  if (token) return resolveSession(token);
  return { kind: 'anonymous' };
}

async function resolveApiKey(key: string, now: Date): Promise<Actor> {
  const invalid = (reason: string): Actor => ({ kind: 'invalid', reason });
  if (!looksLikeApiKey(key)) return invalid('Invalid API key');
  const db = await getDb();
  const [row] = await apiKeyLookup(db).execute({ hash: sha256Hex(key) });
  if (!row) return invalid('Invalid API key');
  if (row.revokedAt) return invalid('This API key has been revoked');
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return invalid('This API key has expired');
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return {
    kind: 'apiKey',
    userId: row.userId,
    keyId: row.id,
    keyPrefix: row.prefix,
    projectId: row.projectId,
    scopes: row.scopes,
    role: row.role,
  };
}

async function resolveSession(token: string): Promise<Actor> {
  const payload = await decode({ token, secret: getConfig().AUTH_SECRET }).catch(() => null);
  const userId = typeof payload?.sub === 'string' ? payload.sub : undefined;
  const version = typeof payload?.ver === 'number' ? payload.ver : undefined;
  if (!userId || version === undefined) return { kind: 'invalid', reason: 'Session is not valid; sign in again' };
  const db = await getDb();
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.sessionVersion, version)))
    .limit(1);
  if (!row) return { kind: 'invalid', reason: 'Session has ended; sign in again' };
  return { kind: 'session', userId };
}

// Prepared once per database handle: the key lookup runs on every API-key request.
const preparedLookups = new WeakMap<Db, ReturnType<typeof buildApiKeyLookup>>();

function apiKeyLookup(db: Db) {
  let prepared = preparedLookups.get(db);
  if (!prepared) {
    prepared = buildApiKeyLookup(db);
    preparedLookups.set(db, prepared);
  }
  return prepared;
}

const LOOKUP_FIELDS = {
  id: apiKeys.id,
  prefix: apiKeys.prefix,
  projectId: apiKeys.projectId,
  userId: apiKeys.createdByUserId,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  lastUsedAt: apiKeys.lastUsedAt,
  role: memberships.role,
};
const creatorMembership = and(eq(memberships.projectId, apiKeys.projectId), eq(memberships.userId, apiKeys.createdByUserId));

function buildApiKeyLookup(db: Db) {
  return db
    .select(LOOKUP_FIELDS)
    .from(apiKeys)
    .leftJoin(memberships, creatorMembership)
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .limit(1)
    .prepare('api_key_by_hash');
}

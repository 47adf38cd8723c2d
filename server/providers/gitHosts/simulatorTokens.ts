import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { gitSimTokens } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError } from '../../platform/errors';
import type { GitHost } from './types';

/**
 * The OAuth side of the simulated hosts: authorization codes, access and refresh tokens, grouped
 * by the grant they came from. Only SHA-256 hashes of them are stored, as a real host keeps them.
 */

/** OAuth codes of every modelled host live ten minutes and serve once. */
export const CODE_LIFETIME_MS = 10 * 60_000;

export interface TokenLifetime {
  /** Null: the access token does not expire. */
  accessMs: number | null;
  /** Whether a refresh token comes with the access token. */
  refreshable: boolean;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[];
}

export interface TokenHolder {
  account: string;
  scopes: string[];
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const scopeList = (scopes: string) => scopes.split(' ').filter(Boolean);

const refusedCode = () =>
  new AppError(
    'GIT_CREDENTIAL_INVALID',
    'The git host refused the authorization code: it is unknown, expired, already used or was issued for another redirect URI',
  );
const refusedToken = () => new AppError('GIT_CREDENTIAL_INVALID', 'The git host refused the access token: it is unknown, expired or revoked');
const refusedRefresh = () =>
  new AppError('GIT_CREDENTIAL_INVALID', 'The git host refused the refresh token: it is unknown, already used or its grant was revoked');

/** A code for `account`, bound to the redirect URI the consent page returns to. */
export async function issueCode(host: GitHost, input: { account: string; scopes: readonly string[]; redirectUri: string }): Promise<string> {
  const code = randomBytes(20).toString('hex');
  const db = await getDb();
  await db.insert(gitSimTokens).values({
    tokenHash: hashOf(code),
    host,
    kind: 'code',
    account: input.account,
    scopes: input.scopes.join(' '),
    grantId: newId('gsgrant'),
    redirectUri: input.redirectUri,
    expiresAt: new Date(Date.now() + CODE_LIFETIME_MS),
  });
  return code;
}

/** Trades a code for tokens. The code is spent in the same statement that finds it, so two racing exchanges cannot both win. */
export async function exchangeCode(host: GitHost, code: string, redirectUri: string, lifetime: TokenLifetime): Promise<IssuedTokens> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const now = new Date();
    const [spent] = await tx
      .update(gitSimTokens)
      .set({ revokedAt: now })
      .where(
        and(
          eq(gitSimTokens.tokenHash, hashOf(code)),
          eq(gitSimTokens.host, host),
          eq(gitSimTokens.kind, 'code'),
          eq(gitSimTokens.redirectUri, redirectUri),
          isNull(gitSimTokens.revokedAt),
          gt(gitSimTokens.expiresAt, now),
        ),
      )
      .returning();
    if (!spent?.grantId) throw refusedCode();
    return issueTokens(tx, host, { account: spent.account, scopes: scopeList(spent.scopes), grantId: spent.grantId }, lifetime, now);
  });
}

/** New tokens for the refresh token's grant: the refresh token and the grant's earlier access tokens stop working. */
export async function refreshTokens(host: GitHost, refreshToken: string, lifetime: TokenLifetime): Promise<IssuedTokens> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const now = new Date();
    const [used] = await tx
      .update(gitSimTokens)
      .set({ revokedAt: now })
      .where(
        and(eq(gitSimTokens.tokenHash, hashOf(refreshToken)), eq(gitSimTokens.host, host), eq(gitSimTokens.kind, 'refresh'), isNull(gitSimTokens.revokedAt)),
      )
      .returning();
    if (!used?.grantId) throw refusedRefresh();
    await tx
      .update(gitSimTokens)
      .set({ revokedAt: now })
      .where(and(eq(gitSimTokens.grantId, used.grantId), eq(gitSimTokens.kind, 'access'), isNull(gitSimTokens.revokedAt)));
    return issueTokens(tx, host, { account: used.account, scopes: scopeList(used.scopes), grantId: used.grantId }, lifetime, now);
  });
}

async function issueTokens(
  tx: DbOrTx,
  host: GitHost,
  grant: { account: string; scopes: string[]; grantId: string },
  lifetime: TokenLifetime,
  now: Date,
): Promise<IssuedTokens> {
  const accessToken = `sat_${randomBytes(32).toString('base64url')}`;
  const refreshToken = lifetime.refreshable ? `srt_${randomBytes(32).toString('base64url')}` : null;
  const expiresAt = lifetime.accessMs === null ? null : new Date(now.getTime() + lifetime.accessMs);
  const common = { host, account: grant.account, scopes: grant.scopes.join(' '), grantId: grant.grantId, createdAt: now };
  await tx
    .insert(gitSimTokens)
    .values([
      { ...common, tokenHash: hashOf(accessToken), kind: 'access' as const, expiresAt },
      ...(refreshToken ? [{ ...common, tokenHash: hashOf(refreshToken), kind: 'refresh' as const, expiresAt: null }] : []),
    ]);
  return { accessToken, refreshToken, expiresAt, scopes: grant.scopes };
}

/** Whose access token this is; GIT_CREDENTIAL_INVALID for one unknown, expired or revoked. */
export async function tokenHolder(host: GitHost, accessToken: string): Promise<TokenHolder> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(gitSimTokens)
    .where(and(eq(gitSimTokens.tokenHash, hashOf(accessToken)), eq(gitSimTokens.host, host), eq(gitSimTokens.kind, 'access')));
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) throw refusedToken();
  return { account: row.account, scopes: scopeList(row.scopes) };
}

/** Ends the grant an access token belongs to, all its tokens with it; a token already unknown or ended is no error. */
export async function revokeGrant(host: GitHost, accessToken: string): Promise<void> {
  const db = await getDb();
  const [row] = await db
    .select({ grantId: gitSimTokens.grantId })
    .from(gitSimTokens)
    .where(and(eq(gitSimTokens.tokenHash, hashOf(accessToken)), eq(gitSimTokens.host, host), eq(gitSimTokens.kind, 'access')));
  if (!row?.grantId) return;
  await db
    .update(gitSimTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(gitSimTokens.grantId, row.grantId), isNull(gitSimTokens.revokedAt)));
}

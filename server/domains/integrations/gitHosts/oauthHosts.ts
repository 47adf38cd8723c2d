import { and, eq } from 'drizzle-orm';
import { getDb } from '../../../../db';
import { gitOAuthConnections, gitRepositoryWebhooks } from '../../../../db/schema';
import { newId } from '../../../../db/schema/ids';
import { getConfig } from '../../../platform/config';
import { open } from '../../../platform/encryption/envelope';
import { AppError } from '../../../platform/errors';
import { emit } from '../../../platform/events';
import { getLogger } from '../../../platform/logger';
import { consumeOAuthState, issueOAuthState, safeReturnPath } from '../../../platform/oauthState';
import { getOAuthGitHost, type OAuthGitHost } from '../../../providers/gitHosts';
import { appRepositories } from '../../apps';
import { ended, withMarker, type RoundTripEnd } from '../returnPaths';
import { integrationPagePath } from '../service';
import { copyRepositoriesOfApps, oauthConnectionRow, projectAccessToken, sealedTokens } from './access';

/**
 * Git hosts 2 and 3: one OAuth grant per project, its tokens sealed to the connection row. The
 * callback finishes the round trip the connect redirect began, then copies the repositories the
 * project's apps use into the deployment organisation and hooks them again.
 */

export interface OAuthHostStatus {
  connected: boolean;
  accountLogin: string | null;
  scopes: string[];
  connectedAt: string | null;
}

/** The audit log names actions by router: `gitHost2.disconnect`, so `gitHost2.connect`. */
const OAUTH_AUDIT_ACTION: Record<OAuthGitHost, string> = { 'git-host-2': 'gitHost2', 'git-host-3': 'gitHost3' };

export const oauthCallbackPath = (host: OAuthGitHost) => `/integrations/${host}/callback`;

/** The host's consent page for a fresh state bound to the project and user. */
export async function startOAuthHostConnect(host: OAuthGitHost, projectId: string, userId: string, redirect: string | undefined): Promise<string> {
  const returnTo = safeReturnPath(redirect, integrationPagePath(projectId));
  const state = await issueOAuthState({ purpose: host, projectId, userId, returnTo });
  return getOAuthGitHost(host).authorizeUrl(state, oauthCallbackUrl(host));
}

/**
 * The host's OAuth return. The state is checked and consumed first (400 LINK_EXPIRED otherwise);
 * a refusal at the host returns to the panel with `<host>=denied`, a failed exchange with `error`.
 */
export async function completeOAuthHostCallback(host: OAuthGitHost, query: URLSearchParams): Promise<RoundTripEnd> {
  const grant = await consumeOAuthState(query.get('state') ?? '', host);
  const code = query.get('code');
  if (query.get('error') || !code) return ended(withMarker(grant.returnTo, host, 'denied'));
  const provider = getOAuthGitHost(host);
  let stored: { accountLogin: string };
  try {
    const tokens = await provider.exchangeCode(code, oauthCallbackUrl(host));
    const account = await provider.currentAccount(tokens.accessToken);
    stored = await storeGrant(host, grant.projectId, grant.userId, account.login, tokens);
  } catch (err) {
    if (err instanceof AppError && (err.code === 'GIT_CREDENTIAL_INVALID' || err.code === 'UPSTREAM_ERROR'))
      return ended(withMarker(grant.returnTo, host, 'error'));
    throw err;
  }
  await copyRepositoriesOfApps(grant.projectId, host, await appRepositories(grant.projectId, host));
  getLogger().info({ projectId: grant.projectId, host, account: stored.accountLogin }, 'git host connected');
  return ended(withMarker(grant.returnTo, host, 'connected'), {
    projectId: grant.projectId,
    userId: grant.userId,
    action: `${OAUTH_AUDIT_ACTION[host]}.connect`,
  });
}

export async function oauthHostStatus(projectId: string, host: OAuthGitHost): Promise<OAuthHostStatus> {
  const row = await oauthConnectionRow(projectId, host);
  if (!row) return { connected: false, accountLogin: null, scopes: [], connectedAt: null };
  return { connected: true, accountLogin: row.accountLogin, scopes: row.scopes.split(' ').filter(Boolean), connectedAt: row.connectedAt.toISOString() };
}

/**
 * Removes the webhooks the project registered on the host's repositories, then the grant. A host
 * failing to remove a hook stops the disconnection (502, nothing deleted) so no hook is left
 * behind; a hook or grant the host already forgot is no obstacle.
 */
export async function disconnectOAuthHost(projectId: string, host: OAuthGitHost, userId: string): Promise<OAuthHostStatus> {
  const row = await oauthConnectionRow(projectId, host);
  if (!row) return oauthHostStatus(projectId, host);
  const db = await getDb();
  const provider = getOAuthGitHost(host);
  const hooks = await db
    .select()
    .from(gitRepositoryWebhooks)
    .where(and(eq(gitRepositoryWebhooks.projectId, projectId), eq(gitRepositoryWebhooks.host, host)));
  let accessToken: string | null = null;
  try {
    accessToken = await projectAccessToken(projectId, host);
  } catch (err) {
    // A grant revoked at the host took its webhooks with it there; only our rows are left.
    if (!(err instanceof AppError && err.code === 'GIT_CREDENTIAL_INVALID')) throw err;
  }
  for (const hook of hooks) {
    if (accessToken) await removeHook(() => provider.deleteWebhook(accessToken, hook.repository, hook.upstreamHookId));
    await db.delete(gitRepositoryWebhooks).where(eq(gitRepositoryWebhooks.id, hook.id));
  }
  if (accessToken) await removeHook(() => provider.revoke(accessToken));
  await db.transaction(async (tx) => {
    await tx.delete(gitOAuthConnections).where(eq(gitOAuthConnections.id, row.id));
    await emit(tx, projectId, 'git_host.disconnected', { host, by: userId });
  });
  return oauthHostStatus(projectId, host);
}

async function removeHook(remove: () => Promise<void>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'GIT_CREDENTIAL_INVALID')) return;
    throw err;
  }
}

async function storeGrant(
  host: OAuthGitHost,
  projectId: string,
  userId: string,
  accountLogin: string,
  tokens: Parameters<typeof sealedTokens>[1],
): Promise<{ accountLogin: string }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    // A new row id on every connection: the tokens are sealed to it, and a replaced grant's are gone with it.
    await tx.delete(gitOAuthConnections).where(and(eq(gitOAuthConnections.projectId, projectId), eq(gitOAuthConnections.host, host)));
    const id = newId('goc');
    await tx
      .insert(gitOAuthConnections)
      .values({ id, projectId, host, accountLogin, connectedBy: userId, connectedAt: new Date(), ...sealedTokens(id, tokens) });
    await emit(tx, projectId, 'git_host.connected', { host, account: accountLogin, by: userId });
    return { accountLogin };
  });
}

export function oauthCallbackUrl(host: OAuthGitHost): string {
  return `${getConfig().APP_URL}/v1${oauthCallbackPath(host)}`;
}

/** The sealed secret of a repository webhook, for checking a delivery. */
export async function repositoryWebhook(hookId: string): Promise<{ projectId: string; host: OAuthGitHost; repository: string; secret: string } | null> {
  const db = await getDb();
  const [row] = await db.select().from(gitRepositoryWebhooks).where(eq(gitRepositoryWebhooks.id, hookId));
  if (!row) return null;
  return { projectId: row.projectId, host: row.host, repository: row.repository, secret: open(row.sealedSecret, row.id) };
}

import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { getDb } from '../../../../db';
import { gitHost1Installations, gitHost1Links, gitOAuthConnections, gitRepositoryWebhooks } from '../../../../db/schema';
import { newId } from '../../../../db/schema/ids';
import { getConfig } from '../../../platform/config';
import { open, seal } from '../../../platform/encryption/envelope';
import { AppError } from '../../../platform/errors';
import { getLogger } from '../../../platform/logger';
import type { SourceReader } from '../../../providers/builds/types';
import {
  getGitHost1,
  getOAuthGitHost,
  type GitCommit,
  type GitContentEntry,
  type GitHost,
  type GitRepository,
  type GitTokenSet,
  type OAuthGitHost,
  type RepositoryReader,
} from '../../../providers/gitHosts';

/**
 * How the platform reaches a project's repositories: through the host-1 installations the project
 * links (the one on the repository's owner), or the project's OAuth grant on host 2 or 3, whose
 * access token is refreshed here shortly before it expires.
 */

/** A repository of a git host the project is connected to, read with the project's credential. */
export interface ProjectRepository {
  host: GitHost;
  fullName: string;
  repository: GitRepository;
  listContents(path: string, ref?: string): Promise<GitContentEntry[]>;
  readFile(path: string, ref?: string): Promise<string | null>;
  headCommit(branch: string): Promise<GitCommit>;
}

/** A refresh this close to the expiry still leaves the token usable for the calls that follow. */
const REFRESH_MARGIN_MS = 2 * 60_000;

const notConnected = (host: GitHost) =>
  new AppError('GIT_HOST_NOT_CONNECTED', `This project is not connected to ${host}; connect it on the Integrations page first`);

/** The installations the project links, by account login (lower case). */
export async function linkedInstallations(projectId: string): Promise<(typeof gitHost1Installations.$inferSelect)[]> {
  const db = await getDb();
  const rows = await db
    .select({ installation: gitHost1Installations })
    .from(gitHost1Links)
    .innerJoin(gitHost1Installations, eq(gitHost1Installations.installationId, gitHost1Links.installationId))
    .where(eq(gitHost1Links.projectId, projectId))
    .orderBy(gitHost1Installations.accountLogin);
  return rows.map((r) => r.installation);
}

/** The linked installation on `owner`'s account: GIT_HOST_NOT_CONNECTED without any link, NOT_FOUND for another owner. */
export async function installationForOwner(projectId: string, owner: string): Promise<string> {
  const installations = await linkedInstallations(projectId);
  if (installations.length === 0) throw notConnected('git-host-1');
  const match = installations.find((i) => i.accountLogin.toLowerCase() === owner.toLowerCase());
  if (!match) throw new AppError('NOT_FOUND', `No installation linked to this project reaches the account ${owner}`);
  return match.installationId;
}

export type OAuthConnectionRow = typeof gitOAuthConnections.$inferSelect;

export async function oauthConnectionRow(projectId: string, host: OAuthGitHost): Promise<OAuthConnectionRow | null> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(gitOAuthConnections)
    .where(and(eq(gitOAuthConnections.projectId, projectId), eq(gitOAuthConnections.host, host)));
  return row ?? null;
}

/**
 * The project's access token on host 2 or 3, refreshed when it is about to expire. The refresh runs
 * with the row locked: hosts rotate refresh tokens, so two processes refreshing at once would
 * leave one of them holding a dead one.
 */
export async function projectAccessToken(projectId: string, host: OAuthGitHost, now = new Date()): Promise<string> {
  const row = await oauthConnectionRow(projectId, host);
  if (!row) throw notConnected(host);
  if (!needsRefresh(row, now)) return open(row.sealedAccessToken, row.id);
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [locked] = await tx.select().from(gitOAuthConnections).where(eq(gitOAuthConnections.id, row.id)).for('update');
    if (!locked) throw notConnected(host);
    if (!needsRefresh(locked, now)) return open(locked.sealedAccessToken, locked.id);
    const tokens = await getOAuthGitHost(host).refresh(open(locked.sealedRefreshToken!, locked.id));
    await tx.update(gitOAuthConnections).set(sealedTokens(locked.id, tokens)).where(eq(gitOAuthConnections.id, locked.id));
    return tokens.accessToken;
  });
}

function needsRefresh(row: OAuthConnectionRow, now: Date): boolean {
  return Boolean(row.sealedRefreshToken && row.accessTokenExpiresAt && row.accessTokenExpiresAt.getTime() - REFRESH_MARGIN_MS <= now.getTime());
}

/** The token columns of a connection row for `tokens`, sealed to the row. */
export function sealedTokens(rowId: string, tokens: GitTokenSet) {
  return {
    sealedAccessToken: seal(tokens.accessToken, rowId),
    sealedRefreshToken: tokens.refreshToken ? seal(tokens.refreshToken, rowId) : null,
    accessTokenExpiresAt: tokens.expiresAt ? new Date(tokens.expiresAt) : null,
    scopes: tokens.scopes.join(' '),
  };
}

/** A reader of `host` bound to the project's credential for `fullName`. */
async function boundReader(projectId: string, host: GitHost, fullName: string): Promise<BoundReader> {
  if (host === 'git-host-1') {
    const credential = { installationId: await installationForOwner(projectId, ownerOf(fullName)) };
    return bind(getGitHost1(), credential);
  }
  return bind(getOAuthGitHost(host), await projectAccessToken(projectId, host));
}

type BoundReader = {
  [K in keyof RepositoryReader<unknown>]: RepositoryReader<unknown>[K] extends (c: unknown, ...rest: infer A) => infer R ? (...rest: A) => R : never;
};

function bind<C>(reader: RepositoryReader<C>, credential: C): BoundReader {
  return {
    listRepositories: () => reader.listRepositories(credential),
    getRepository: (fullName) => reader.getRepository(credential, fullName),
    listContents: (fullName, path, ref) => reader.listContents(credential, fullName, path, ref),
    readFile: (fullName, path, ref) => reader.readFile(credential, fullName, path, ref),
    listBranches: (fullName, page) => reader.listBranches(credential, fullName, page),
    headCommit: (fullName, branch) => reader.headCommit(credential, fullName, branch),
  };
}

/** The project's reader of one host, for every repository it reaches. */
export async function projectReader(projectId: string, host: GitHost, fullName: string): Promise<BoundReader> {
  return boundReader(projectId, host, fullName);
}

/** GIT_HOST_NOT_CONNECTED when the project has no connection reaching the repository's host or owner; NOT_FOUND when the repository is not reachable. */
export async function openProjectRepository(projectId: string, host: GitHost, fullName: string): Promise<ProjectRepository> {
  const reader = await boundReader(projectId, host, fullName);
  const repository = await reader.getRepository(fullName);
  const name = repository.fullName;
  return {
    host,
    fullName: name,
    repository,
    listContents: (path, ref) => reader.listContents(name, path, ref),
    readFile: (path, ref) => reader.readFile(name, path, ref),
    headCommit: (branch) => reader.headCommit(name, branch),
  };
}

/** The owner part of a host-1 full name (`owner/repo`). */
export function ownerOf(fullName: string): string {
  return fullName.split('/')[0] ?? '';
}

/** Where host 2 or 3 delivers a hook's push events: the hook's id names the repository's secret. */
export function webhookUrl(host: OAuthGitHost, hookId: string): string {
  return `${getConfig().APP_URL}/v1/integrations/${host}/webhook?hook=${encodeURIComponent(hookId)}`;
}

/** Hosts 2/3: registers the repository's push webhook for the project once (no-op when there is one, and for host 1). */
export async function watchRepository(projectId: string, host: GitHost, fullName: string): Promise<void> {
  if (host === 'git-host-1') return;
  const db = await getDb();
  const existing = await webhookRow(projectId, host, fullName);
  if (existing) return;
  const accessToken = await projectAccessToken(projectId, host);
  const id = newId('ghk');
  const secret = randomBytes(32).toString('hex');
  const provider = getOAuthGitHost(host);
  const { hookId } = await provider.createWebhook(accessToken, fullName, { url: webhookUrl(host, id), secret });
  const inserted = await db
    .insert(gitRepositoryWebhooks)
    .values({ id, projectId, host, repository: fullName, upstreamHookId: hookId, sealedSecret: seal(secret, id) })
    .onConflictDoNothing()
    .returning({ id: gitRepositoryWebhooks.id });
  // Another request registered the repository first: its hook stays, this one goes.
  if (inserted.length === 0) await provider.deleteWebhook(accessToken, fullName, hookId);
}

/** Removes the project's webhook of that repository (when no live app of the project uses it any more). */
export async function unwatchRepository(projectId: string, host: GitHost, fullName: string): Promise<void> {
  if (host === 'git-host-1') return;
  const row = await webhookRow(projectId, host, fullName);
  if (!row) return;
  const connection = await oauthConnectionRow(projectId, host);
  if (connection) await getOAuthGitHost(host).deleteWebhook(await projectAccessToken(projectId, host), row.repository, row.upstreamHookId);
  const db = await getDb();
  await db.delete(gitRepositoryWebhooks).where(eq(gitRepositoryWebhooks.id, row.id));
}

async function webhookRow(projectId: string, host: OAuthGitHost, fullName: string) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(gitRepositoryWebhooks)
    .where(
      and(
        eq(gitRepositoryWebhooks.projectId, projectId),
        eq(gitRepositoryWebhooks.host, host),
        sql`lower(${gitRepositoryWebhooks.repository}) = lower(${fullName})`,
      ),
    );
  return row ?? null;
}

/**
 * What a build reads. Hosts 2 and 3 build from the copy in the platform's deployment
 * organisation, brought up to date first with the project's token and read with the platform's
 * own credential there; host 1 builds from the repository itself.
 */
export async function deploymentSource(
  projectId: string,
  host: GitHost,
  fullName: string,
  commitSha: string,
): Promise<{ source: SourceReader; sourceCopy: string | null }> {
  if (host === 'git-host-1') {
    const reader = await boundReader(projectId, host, fullName);
    return {
      sourceCopy: null,
      source: {
        label: `${host}:${fullName}@${commitSha}`,
        listContents: (path) => reader.listContents(fullName, path, commitSha),
        readFile: (path) => reader.readFile(fullName, path, commitSha),
      },
    };
  }
  const provider = getOAuthGitHost(host);
  const { fullName: copy } = await provider.copyToDeploymentOrganisation(await projectAccessToken(projectId, host), fullName);
  return {
    sourceCopy: copy,
    source: {
      label: `${host}:${copy}@${commitSha}`,
      listContents: (path) => provider.deploymentCopies.listContents(copy, path, commitSha),
      readFile: (path) => provider.deploymentCopies.readFile(copy, path, commitSha),
    },
  };
}

/** Copies the repositories the project's apps use into the deployment organisation, after a (re)connection. */
export async function copyRepositoriesOfApps(projectId: string, host: OAuthGitHost, repositories: readonly string[]): Promise<void> {
  const accessToken = await projectAccessToken(projectId, host);
  for (const repository of repositories) {
    try {
      await getOAuthGitHost(host).copyToDeploymentOrganisation(accessToken, repository);
      await watchRepository(projectId, host, repository);
    } catch (err) {
      // The next deployment copies again; a connection is not refused over one repository.
      getLogger().warn({ err, host, projectId, repository }, 'copying a repository into the deployment organisation failed');
    }
  }
}

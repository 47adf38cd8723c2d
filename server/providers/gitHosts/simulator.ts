import { randomInt, randomUUID } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../db';
import { gitSimCopies, gitSimHooks } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { seal } from '../../platform/encryption/envelope';
import { AppError, notFound } from '../../platform/errors';
import { SEED_PACKAGES, SIMULATED_USER, findSeedPackage, findSeedRepository, namespacesOfUser, seedRepositoriesOf, type SeedRepository } from './seed';
import { findLiveInstallation, installationAccount, liveInstallationsOn, markUninstalled } from './simulatorInstallations';
import { branchHead, branchPage, describeRepository, listDirectory, readTextFile, sourceView, type RepositoryView } from './simulatorRepositories';
import { exchangeCode, refreshTokens, revokeGrant, tokenHolder, type IssuedTokens, type TokenLifetime } from './simulatorTokens';
import type {
  DeploymentCopyReader,
  GitAccount,
  GitBranchPage,
  GitCommit,
  GitContentEntry,
  GitHost,
  GitHost1Provider,
  GitInstallation,
  GitPackage,
  GitPackageTag,
  GitRepository,
  GitTokenSet,
  InstallationCredential,
  OAuthGitHost,
  OAuthGitHostProvider,
} from './types';

export { installSimulatedApp, setSimulatedInstallationSuspended } from './simulatorInstallations';

/** Where the simulated hosts' own pages live (install, consent, repositories): the panel's development pages. */
export function simulatedHostPageUrl(host: GitHost, page: 'install' | 'authorize', query: Record<string, string>): string {
  return `${getConfig().APP_URL}/dev/git-hosts/${host}/${page}?${new URLSearchParams(query).toString()}`;
}

/** The client id the simulated hosts know the platform by. */
export const SIMULATED_CLIENT_ID = 'cloudpanel-simulator';

/** Where host 1's simulated container images are said to be pulled from; nothing serves it. */
export const SIMULATED_PACKAGES_REGISTRY = 'packages.git-host-1.test';

/** Host 1's user tokens (the legacy callback) live eight hours, as the real host's expiring user tokens do. */
const HOST_1_USER_TOKEN: TokenLifetime = { accessMs: 8 * 3_600_000, refreshable: false };
/** Hosts 2 and 3 hand out two-hour access tokens with a refresh token. */
const OAUTH_HOST_TOKEN: TokenLifetime = { accessMs: 2 * 3_600_000, refreshable: true };

/**
 * Git host 1, simulated: a GitHub-App style host whose accounts and repositories are the seed's
 * and whose installations, user tokens and pushes are kept in the database. An installation reads
 * only its own account's repositories and packages, and only while it is installed and not
 * suspended. Installations are made on the host's install page (or by `installSimulatedApp`).
 */
export class GitHost1Simulator implements GitHost1Provider {
  readonly host = 'git-host-1' as const;
  readonly kind = 'simulator' as const;
  readonly description = 'Simulated git host 1: seeded demo accounts and repositories; installations, tokens and pushes are kept in this panel’s database';

  installUrl(state: string): string {
    return simulatedHostPageUrl(this.host, 'install', { state });
  }

  authorizeUrl(state: string, redirectUri: string): string {
    return simulatedHostPageUrl(this.host, 'authorize', { client_id: SIMULATED_CLIENT_ID, redirect_uri: redirectUri, state });
  }

  async exchangeUserCode(code: string, redirectUri: string): Promise<{ accessToken: string }> {
    const { accessToken } = await exchangeCode(this.host, code, redirectUri, HOST_1_USER_TOKEN);
    return { accessToken };
  }

  async listUserInstallations(userAccessToken: string): Promise<GitInstallation[]> {
    const { account } = await tokenHolder(this.host, userAccessToken);
    return liveInstallationsOn(namespacesOfUser(this.host, account));
  }

  getInstallation(installationId: string): Promise<GitInstallation | null> {
    return findLiveInstallation(installationId);
  }

  async uninstall(installationId: string): Promise<void> {
    await markUninstalled(installationId);
  }

  async listRepositories(credential: InstallationCredential): Promise<GitRepository[]> {
    const account = await installationAccount(credential.installationId);
    const seeds = seedRepositoriesOf(this.host)
      .filter((seed) => sameName(seed.owner, account.path))
      .sort((a, b) => a.fullName.localeCompare(b.fullName));
    return Promise.all(seeds.map((seed) => describeRepository(sourceView(seed))));
  }

  async getRepository(credential: InstallationCredential, fullName: string): Promise<GitRepository> {
    return describeRepository(await this.view(credential, fullName));
  }

  async listContents(credential: InstallationCredential, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]> {
    return listDirectory(await this.view(credential, fullName), path, ref);
  }

  async readFile(credential: InstallationCredential, fullName: string, path: string, ref?: string): Promise<string | null> {
    return readTextFile(await this.view(credential, fullName), path, ref);
  }

  async listBranches(credential: InstallationCredential, fullName: string, page: number): Promise<GitBranchPage> {
    return branchPage(await this.view(credential, fullName), page);
  }

  async headCommit(credential: InstallationCredential, fullName: string, branch: string): Promise<GitCommit> {
    return branchHead(await this.view(credential, fullName), branch);
  }

  async listPackages(credential: InstallationCredential): Promise<GitPackage[]> {
    const account = await installationAccount(credential.installationId);
    return SEED_PACKAGES.filter((pkg) => sameName(pkg.owner, account.path)).map((pkg) => ({
      owner: pkg.owner,
      name: pkg.name,
      visibility: pkg.visibility,
      image: `${SIMULATED_PACKAGES_REGISTRY}/${pkg.owner}/${pkg.name}`.toLowerCase(),
      updatedAt: pkg.versions[0]?.createdAt ?? new Date(0).toISOString(),
    }));
  }

  async listPackageTags(credential: InstallationCredential, owner: string, packageName: string): Promise<GitPackageTag[]> {
    const account = await installationAccount(credential.installationId);
    const pkg = sameName(owner, account.path) ? findSeedPackage(owner, packageName) : undefined;
    if (!pkg) throw notFound(`Package ${owner}/${packageName}`);
    return pkg.versions.flatMap((version) => version.tags.map((tag) => ({ tag, digest: version.digest, updatedAt: version.createdAt })));
  }

  /** The repository as the installation sees it; another account's answers as one that does not exist. */
  private async view(credential: InstallationCredential, fullName: string): Promise<RepositoryView> {
    const account = await installationAccount(credential.installationId);
    const seed = findSeedRepository(this.host, fullName);
    if (!seed || !sameName(seed.owner, account.path)) throw notFound(`Repository ${fullName}`);
    return sourceView(seed);
  }
}

interface OAuthHostModel {
  /** What the consent page grants when the authorize URL names no scope (host 2 fixes them on the consumer). */
  grantedScopes: readonly string[];
  /** Any of these lets a token read repositories. */
  readScopes: readonly string[];
  /** Any of these lets a token manage hooks. */
  writeScopes: readonly string[];
  /** Any of these lets a token read its own account. */
  accountScopes: readonly string[];
  /** The most push webhooks the host keeps on one repository. */
  maxHooksPerRepository: number;
  /** The deployment organisation's name in the copy: a workspace slug or a group path. */
  deployOrganisation(): string;
  /** The copy's name inside the deployment organisation: one path segment. */
  copyName(source: SeedRepository): string;
  newHookId(): string;
}

const OAUTH_HOSTS: Record<OAuthGitHost, OAuthHostModel> = {
  'git-host-2': {
    grantedScopes: ['account', 'repository', 'webhook'],
    readScopes: ['repository'],
    writeScopes: ['webhook'],
    accountScopes: ['account'],
    maxHooksPerRepository: 50,
    deployOrganisation: () => getConfig().GIT_HOST_2_DEPLOY_WORKSPACE,
    // A repository slug holds no slash: the workspace joins the slug with a hyphen.
    copyName: (source) => `${source.owner}-${source.name}`,
    newHookId: () => `{${randomUUID()}}`,
  },
  'git-host-3': {
    grantedScopes: ['api', 'read_repository'],
    readScopes: ['api', 'read_api', 'read_repository'],
    writeScopes: ['api'],
    accountScopes: ['api', 'read_api', 'read_user'],
    maxHooksPerRepository: 100,
    deployOrganisation: () => getConfig().GIT_HOST_3_DEPLOY_GROUP,
    // Nested groups flatten into one project path, each level joined with a hyphen.
    copyName: (source) => source.fullName.split('/').join('-'),
    newHookId: () => String(randomInt(10_000_000, 100_000_000)),
  },
};

/** The scopes a host lets an authorize URL ask for. */
export const REQUESTABLE_SCOPES: Record<OAuthGitHost, readonly string[]> = {
  'git-host-2': OAUTH_HOSTS['git-host-2'].grantedScopes,
  'git-host-3': ['api', 'read_api', 'read_user', 'read_repository', 'write_repository'],
};

/** The scopes the consent page grants when none are asked for. */
export function defaultScopes(host: OAuthGitHost): readonly string[] {
  return OAUTH_HOSTS[host].grantedScopes;
}

const hookSchema = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  secret: z.string().min(1).max(255),
});

/**
 * Git hosts 2 (Bitbucket style: workspaces) and 3 (GitLab style: nested groups), simulated. The
 * user behind a token reaches the repositories of the namespaces they belong to; codes serve once
 * within ten minutes, access tokens live two hours, a refresh rotates both. A token that reads a
 * repository may copy it into the deployment organisation; the copy reads like its source as of
 * its last sync, and only with the platform's credential there (`deploymentCopies`): the
 * customer's token does not reach that organisation.
 */
export class OAuthGitHostSimulator implements OAuthGitHostProvider {
  readonly kind = 'simulator' as const;
  readonly description: string;
  private readonly model: OAuthHostModel;

  readonly deploymentCopies: DeploymentCopyReader = {
    listContents: async (copy, path, ref) => listDirectory(await this.copyView(copy), path, ref),
    readFile: async (copy, path, ref) => readTextFile(await this.copyView(copy), path, ref),
  };

  constructor(readonly host: OAuthGitHost) {
    this.model = OAUTH_HOSTS[host];
    this.description =
      host === 'git-host-2'
        ? 'Simulated git host 2: seeded demo workspaces and repositories; grants, webhooks, pushes and copies are kept in this panel’s database'
        : 'Simulated git host 3: seeded demo groups and projects; grants, webhooks, pushes and copies are kept in this panel’s database';
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const query: Record<string, string> = { client_id: SIMULATED_CLIENT_ID, redirect_uri: redirectUri, response_type: 'code', state };
    if (this.host === 'git-host-3') query.scope = 'api read_repository';
    return simulatedHostPageUrl(this.host, 'authorize', query);
  }

  async exchangeCode(code: string, redirectUri: string): Promise<GitTokenSet> {
    return tokenSet(await exchangeCode(this.host, code, redirectUri, OAUTH_HOST_TOKEN));
  }

  async refresh(refreshToken: string): Promise<GitTokenSet> {
    return tokenSet(await refreshTokens(this.host, refreshToken, OAUTH_HOST_TOKEN));
  }

  async currentAccount(accessToken: string): Promise<GitAccount> {
    const account = await this.holder(accessToken, this.model.accountScopes);
    return { login: account, displayName: account === SIMULATED_USER.login ? SIMULATED_USER.name : null };
  }

  revoke(accessToken: string): Promise<void> {
    return revokeGrant(this.host, accessToken);
  }

  async listRepositories(accessToken: string): Promise<GitRepository[]> {
    const account = await this.holder(accessToken, this.model.readScopes);
    const repositories = await Promise.all(this.reachableSeeds(account).map((seed) => describeRepository(sourceView(seed))));
    return repositories.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.fullName.localeCompare(b.fullName));
  }

  async getRepository(accessToken: string, fullName: string): Promise<GitRepository> {
    return describeRepository(await this.view(accessToken, fullName));
  }

  async listContents(accessToken: string, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]> {
    return listDirectory(await this.view(accessToken, fullName), path, ref);
  }

  async readFile(accessToken: string, fullName: string, path: string, ref?: string): Promise<string | null> {
    return readTextFile(await this.view(accessToken, fullName), path, ref);
  }

  async listBranches(accessToken: string, fullName: string, page: number): Promise<GitBranchPage> {
    return branchPage(await this.view(accessToken, fullName), page);
  }

  async headCommit(accessToken: string, fullName: string, branch: string): Promise<GitCommit> {
    return branchHead(await this.view(accessToken, fullName), branch);
  }

  async createWebhook(accessToken: string, fullName: string, hook: { url: string; secret: string }): Promise<{ hookId: string }> {
    const seed = await this.administered(accessToken, fullName);
    const parsed = hookSchema.safeParse(hook);
    if (!parsed.success)
      throw new AppError('UPSTREAM_ERROR', `Git host ${this.hostNumber()} refused the webhook: its URL must be http(s) and its secret 1 to 255 characters`);
    const db = await getDb();
    return db.transaction(async (tx) => {
      // Hooks of one repository are added one at a time, so the limit holds under concurrent requests.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`git-sim-hooks:${this.host}:${seed.fullName}`}, 0))`);
      const [{ held } = { held: 0 }] = await tx
        .select({ held: count() })
        .from(gitSimHooks)
        .where(and(eq(gitSimHooks.host, this.host), eq(gitSimHooks.repository, seed.fullName)));
      if (held >= this.model.maxHooksPerRepository) {
        throw new AppError(
          'UPSTREAM_ERROR',
          `Git host ${this.hostNumber()} refused the webhook: ${seed.fullName} already has ${held} webhooks, the most it allows`,
        );
      }
      const hookId = this.model.newHookId();
      await tx
        .insert(gitSimHooks)
        .values({ id: hookId, host: this.host, repository: seed.fullName, url: parsed.data.url, sealedSecret: seal(parsed.data.secret, hookId) });
      return { hookId };
    });
  }

  async deleteWebhook(accessToken: string, fullName: string, hookId: string): Promise<void> {
    const seed = await this.administered(accessToken, fullName);
    const db = await getDb();
    await db.delete(gitSimHooks).where(and(eq(gitSimHooks.id, hookId), eq(gitSimHooks.host, this.host), eq(gitSimHooks.repository, seed.fullName)));
  }

  async copyToDeploymentOrganisation(accessToken: string, fullName: string): Promise<{ fullName: string }> {
    const seed = (await this.view(accessToken, fullName)).seed;
    const copy = `${this.model.deployOrganisation()}/${this.model.copyName(seed)}`;
    const db = await getDb();
    const [synced] = await db
      .insert(gitSimCopies)
      .values({ copy, host: this.host, source: seed.fullName, syncedAt: new Date() })
      .onConflictDoUpdate({
        target: gitSimCopies.copy,
        set: { syncedAt: new Date() },
        setWhere: sql`${gitSimCopies.source} = ${seed.fullName} and ${gitSimCopies.host} = ${this.host}`,
      })
      .returning();
    if (!synced)
      throw new AppError(
        'UPSTREAM_ERROR',
        `Git host ${this.hostNumber()} could not copy ${seed.fullName}: the deployment organisation already holds another repository named ${copy}`,
      );
    return { fullName: synced.copy };
  }

  /** The login behind a live token holding one of `scopes`; GIT_CREDENTIAL_INVALID otherwise. */
  private async holder(accessToken: string, scopes: readonly string[]): Promise<string> {
    const holder = await tokenHolder(this.host, accessToken);
    if (!holder.scopes.some((scope) => scopes.includes(scope))) {
      throw new AppError(
        'GIT_CREDENTIAL_INVALID',
        `Git host ${this.hostNumber()} refused the token for this operation: it lacks the ${scopes.join(' or ')} scope`,
      );
    }
    return holder.account;
  }

  private reachableSeeds(account: string): SeedRepository[] {
    const namespaces = namespacesOfUser(this.host, account);
    return seedRepositoriesOf(this.host).filter((seed) => namespaces.some((namespace) => sameName(namespace.path, seed.owner)));
  }

  private reachableSeed(account: string, fullName: string): SeedRepository | undefined {
    const seed = findSeedRepository(this.host, fullName);
    return seed && this.reachableSeeds(account).includes(seed) ? seed : undefined;
  }

  /** A repository the token reaches; another's, or a deployment copy, answers as one that does not exist. */
  private async view(accessToken: string, fullName: string): Promise<RepositoryView> {
    const account = await this.holder(accessToken, this.model.readScopes);
    const seed = this.reachableSeed(account, fullName);
    if (!seed) throw notFound(`Repository ${fullName}`);
    return sourceView(seed);
  }

  /** A deployment copy as its last sync left it, as the platform reads it. */
  private async copyView(fullName: string): Promise<RepositoryView> {
    const db = await getDb();
    const [copy] = await db
      .select()
      .from(gitSimCopies)
      .where(and(eq(gitSimCopies.host, this.host), sql`lower(${gitSimCopies.copy}) = lower(${fullName})`));
    const source = copy ? findSeedRepository(this.host, copy.source) : undefined;
    if (!copy || !source) throw notFound(`Deployment copy ${fullName}`);
    return { seed: source, fullName: copy.copy, owner: copy.copy.slice(0, copy.copy.lastIndexOf('/')), syncedAt: copy.syncedAt };
  }

  /** A repository of a namespace the token's user belongs to, for hooks. */
  private async administered(accessToken: string, fullName: string): Promise<SeedRepository> {
    const account = await this.holder(accessToken, this.model.writeScopes);
    const seed = this.reachableSeed(account, fullName);
    if (!seed) throw notFound(`Repository ${fullName}`);
    return seed;
  }

  private hostNumber(): string {
    return this.host.slice(-1);
  }
}

function tokenSet(tokens: IssuedTokens): GitTokenSet {
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null, scopes: tokens.scopes };
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

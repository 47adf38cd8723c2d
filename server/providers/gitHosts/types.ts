import type { GitHost, OAuthGitHost } from '../../../db/schema/gitIntegrations';

/**
 * The git hosts a project connects (SPEC's `git-host-1`, `git-host-2`, `git-host-3`). Host 1 works
 * with installations of the platform's app on an account (GitHub-App style); hosts 2 and 3 with a
 * per-project OAuth grant (Bitbucket and GitLab style). The providers keep no customer credential:
 * every call is given the installation or the access token it acts with. Hosts 2 and 3 hold only the
 * platform's own credential for its deployment organisation.
 *
 * Errors: AppError('NOT_FOUND') for a repository, path, ref, installation or package the credential
 * does not reach; AppError('GIT_CREDENTIAL_INVALID') when the host refuses the credential (revoked,
 * expired, uninstalled); AppError('UPSTREAM_ERROR') when the host fails, times out or answers
 * something unreadable. Messages never contain a token.
 */

export type { GitHost, OAuthGitHost };

export interface GitRepository {
  /** The host's full name, used in paths: `owner/repo`, `workspace/repo`, `group/subgroup/project`. */
  fullName: string;
  name: string;
  /** The owner login, workspace slug or namespace full path. */
  owner: string;
  private: boolean;
  defaultBranch: string;
  description: string | null;
  /** ISO 8601, UTC: the last push or change. */
  updatedAt: string;
  webUrl: string;
}

export interface GitBranch {
  name: string;
  commitSha: string;
}

export interface GitBranchPage {
  branches: GitBranch[];
  page: number;
  /** The next page's number, or null on the last page. */
  nextPage: number | null;
}

/** SPEC's page size for branch listings. */
export const BRANCHES_PER_PAGE = 100;

export interface GitContentEntry {
  name: string;
  /** From the repository root, without a leading slash. */
  path: string;
  type: 'dir' | 'file' | 'symlink' | 'submodule';
  /** Bytes, for files; null for the rest. */
  size: number | null;
}

export interface GitCommit {
  sha: string;
  message: string;
  author: string;
}

/** What every host reads from a repository. `ref` is a branch, tag or commit; absent means the default branch. */
export interface RepositoryReader<TCredential> {
  listRepositories(credential: TCredential): Promise<GitRepository[]>;
  getRepository(credential: TCredential, fullName: string): Promise<GitRepository>;
  /** The entries of a directory (`''` is the root), in the host's order. NOT_FOUND for a path that is not a directory. */
  listContents(credential: TCredential, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]>;
  /** A file's text (UTF-8), or null when there is no file at the path. */
  readFile(credential: TCredential, fullName: string, path: string, ref?: string): Promise<string | null>;
  /** `page` counts from 1; BRANCHES_PER_PAGE a page. */
  listBranches(credential: TCredential, fullName: string, page: number): Promise<GitBranchPage>;
  /** The commit a branch points at. */
  headCommit(credential: TCredential, fullName: string, branch: string): Promise<GitCommit>;
}

/** Host 1 acts as an installation of the platform's app. */
export interface InstallationCredential {
  installationId: string;
}

export interface GitInstallation {
  installationId: string;
  accountLogin: string;
  accountType: 'User' | 'Organization';
  /** ISO 8601 */
  createdAt: string;
  suspended: boolean;
}

export interface GitPackage {
  /** The account that owns it. */
  owner: string;
  name: string;
  visibility: 'public' | 'private' | 'internal';
  /** Where it is pulled from, without a tag: `<registry host>/<owner>/<name>`. */
  image: string;
  updatedAt: string;
}

export interface GitPackageTag {
  tag: string;
  digest: string;
  updatedAt: string;
}

export interface GitHost1Provider extends RepositoryReader<InstallationCredential> {
  readonly host: 'git-host-1';
  readonly kind: 'simulator' | 'github';
  readonly description: string;
  /** The host's page where a user installs the app on an account; the host returns to the setup URL with `state`. */
  installUrl(state: string): string;
  /** The host's OAuth consent page (the legacy callback round trip), proving which installations a user can reach. */
  authorizeUrl(state: string, redirectUri: string): string;
  /** Trades the legacy callback's code for a user token. GIT_CREDENTIAL_INVALID for a refused code. */
  exchangeUserCode(code: string, redirectUri: string): Promise<{ accessToken: string }>;
  /** The app's installations the user behind the token can reach. */
  listUserInstallations(userAccessToken: string): Promise<GitInstallation[]>;
  /** The installation as the host knows it; null when it was uninstalled or never existed. */
  getInstallation(installationId: string): Promise<GitInstallation | null>;
  /** Removes the app from the account; an installation already gone succeeds. */
  uninstall(installationId: string): Promise<void>;
  /** The container images of the installation's account. */
  listPackages(credential: InstallationCredential): Promise<GitPackage[]>;
  listPackageTags(credential: InstallationCredential, owner: string, packageName: string): Promise<GitPackageTag[]>;
}

export interface GitTokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** ISO 8601; null when the token does not expire. */
  expiresAt: string | null;
  scopes: string[];
}

export interface GitAccount {
  login: string;
  displayName: string | null;
}

/**
 * Reads the copies in the platform's deployment organisation with the platform's own credential
 * there: the customer's token does not reach that organisation. NOT_FOUND for a name outside it.
 */
export interface DeploymentCopyReader {
  listContents(copy: string, path: string, ref?: string): Promise<GitContentEntry[]>;
  readFile(copy: string, path: string, ref?: string): Promise<string | null>;
}

export interface OAuthGitHostProvider extends RepositoryReader<string> {
  readonly host: OAuthGitHost;
  readonly kind: 'simulator' | 'bitbucket' | 'gitlab';
  readonly description: string;
  /** The consent page; host 3 asks for API and read_repository access. */
  authorizeUrl(state: string, redirectUri: string): string;
  /** GIT_CREDENTIAL_INVALID for a refused or reused code. */
  exchangeCode(code: string, redirectUri: string): Promise<GitTokenSet>;
  /** GIT_CREDENTIAL_INVALID when the refresh token is refused (the grant was revoked). */
  refresh(refreshToken: string): Promise<GitTokenSet>;
  currentAccount(accessToken: string): Promise<GitAccount>;
  /** Withdraws the grant where the host allows it; a grant already gone succeeds. */
  revoke(accessToken: string): Promise<void>;
  /** Registers a push webhook on the repository, signed (host 2) or carrying a token (host 3) with `secret`. */
  createWebhook(accessToken: string, fullName: string, hook: { url: string; secret: string }): Promise<{ hookId: string }>;
  /** A hook already gone succeeds. */
  deleteWebhook(accessToken: string, fullName: string, hookId: string): Promise<void>;
  /**
   * Copies the repository into the platform's private deployment organisation (or brings an
   * earlier copy up to date), so builds never read the customer's repository with their token.
   * The token only reads the source; the copy is made and written with the platform's credential.
   * Answers the copy's full name.
   */
  copyToDeploymentOrganisation(accessToken: string, fullName: string): Promise<{ fullName: string }>;
  readonly deploymentCopies: DeploymentCopyReader;
}

/** A push to a branch, as the webhook routes hand it to the apps domain. */
export interface PushEvent {
  host: GitHost;
  repository: string;
  branch: string;
  commitSha: string;
  commitMessage: string;
  deliveryId: string;
}

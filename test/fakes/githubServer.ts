import { createHash, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { createHttpFake, FakeHttpError, type FakeRequest, type FakeResponse, type Fault, type RecordedRequest } from './httpFake';

/**
 * A loopback stand-in for GitHub's REST API (and the web host's OAuth token endpoint) as a GitHub
 * App sees it: app JWTs verified against the app's public key with GitHub's claim rules,
 * installation access tokens that expire and can be revoked, installations on user and
 * organisation accounts (suspended, removed), repositories with commits, branches and trees
 * (files, symlinks, submodules), OAuth codes traded once for user tokens, container packages with
 * tagged versions, page/per_page pagination with `Link` headers, the per-installation rate limit,
 * and errors as `{ message, documentation_url, status }`. State lives in memory, per fake.
 */

type Json = Record<string, unknown>;

export type FakeRoute =
  | 'GET /app/installations/:id'
  | 'DELETE /app/installations/:id'
  | 'POST /app/installations/:id/access_tokens'
  | 'GET /installation/repositories'
  | 'GET /repos/:owner/:repo'
  | 'GET /repos/:owner/:repo/contents'
  /** Any path below the root, however deep. */
  | 'GET /repos/:owner/:repo/contents/:path'
  | 'GET /repos/:owner/:repo/branches'
  /** Any ref, slashes included. */
  | 'GET /repos/:owner/:repo/commits/:ref'
  | 'POST /login/oauth/access_token'
  | 'GET /user/installations'
  | 'GET /orgs/:org/packages'
  | 'GET /users/:user/packages'
  | 'GET /orgs/:org/packages/container/:name/versions'
  | 'GET /users/:user/packages/container/:name/versions';

export interface FakeAccount {
  id: number;
  login: string;
  type: 'User' | 'Organization';
}

export interface FakeInstallation {
  id: number;
  account: FakeAccount;
  /** `all` reaches every repository of the account; `selected` the ones listed. */
  repositorySelection: 'all' | 'selected';
  selected: Set<string>;
  createdAt: string;
  suspendedAt: string | null;
  rateLimitRemaining: number;
}

export type FakeNode = { kind: 'file'; content: Buffer } | { kind: 'symlink'; target: string } | { kind: 'submodule'; url: string; sha: string };

export interface FakeCommit {
  sha: string;
  message: string;
  authorName: string;
  authorLogin: string | null;
  date: string;
  parent: string | null;
  /** Every file, symlink and submodule by its path from the root; directories are implied. */
  tree: Map<string, FakeNode>;
}

export interface FakeRepository {
  id: number;
  owner: FakeAccount;
  name: string;
  fullName: string;
  private: boolean;
  description: string | null;
  defaultBranch: string;
  createdAt: string;
  updatedAt: string;
  pushedAt: string | null;
  branches: Map<string, string>;
  commits: Map<string, FakeCommit>;
}

export interface FakePackageVersion {
  id: number;
  digest: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface FakePackage {
  id: number;
  owner: FakeAccount;
  name: string;
  visibility: 'public' | 'private' | 'internal';
  createdAt: string;
  updatedAt: string;
  versions: FakePackageVersion[];
}

export interface FakeSettings {
  /** How far GitHub's clock runs ahead of this process's (negative: behind); JWT claims are judged by it. */
  clockOffsetMs: number;
  /** Installation access tokens live an hour on GitHub. */
  tokenLifetimeMs: number;
  /** Files larger than this come without inline content unless asked for raw (GitHub: 1 MB). */
  maxInlineFileBytes: number;
  /** Requests an installation may make in the window (GitHub: 5,000 an hour at least). */
  rateLimit: number;
}

export interface FakeAppCredentials {
  appId: string;
  appSlug: string;
  clientId: string;
  clientSecret: string;
  /** PKCS#1 PEM, as GitHub's "Generate a private key" downloads it. */
  privateKey: string;
}

export interface CommitChanges {
  files?: Record<string, string | Buffer>;
  symlinks?: Record<string, string>;
  submodules?: Record<string, string>;
  remove?: string[];
  message?: string;
  author?: { name: string; login?: string | null };
}

export interface FakeGitHub {
  /** Where the REST API answers, like `https://api.github.com`. */
  apiUrl: string;
  /** Where the web pages and the OAuth token endpoint answer, like `https://github.com`. */
  webUrl: string;
  app: FakeAppCredentials;
  requests: RecordedRequest<Buffer>[];
  /** Live: a change applies from the next request on. */
  settings: FakeSettings;
  addAccount(login: string, type?: FakeAccount['type']): FakeAccount;
  /** Installs the app on the account; `repositories` makes it a selected-repositories installation. */
  installApp(login: string, options?: { repositories?: string[]; createdAt?: string }): string;
  installation(id: string): FakeInstallation | undefined;
  suspend(installationId: string): void;
  /** The account's owner removes the app on GitHub; its tokens stop working. */
  removeInstallation(installationId: string): void;
  revokeInstallationTokens(installationId: string): void;
  setRateLimitRemaining(installationId: string, remaining: number): void;
  /** A repository with a first commit (a README) on its default branch. */
  addRepository(
    ownerLogin: string,
    name: string,
    options?: { private?: boolean; description?: string | null; defaultBranch?: string; createdAt?: string; updatedAt?: string; pushedAt?: string | null },
  ): FakeRepository;
  /** Commits on a branch (made from the default branch's head when new); answers the new commit's SHA. */
  commit(fullName: string, branch: string, changes: CommitChanges): string;
  /** Branches at the default branch's head. */
  addBranches(fullName: string, names: string[]): void;
  /** A user who can sign in through the app's OAuth and reach the installations granted. */
  addUser(login: string, options?: { installations?: string[] }): FakeAccount;
  /** A code the OAuth token endpoint trades once, within ten minutes, for a user token. */
  issueCode(login: string, redirectUri?: string): string;
  addPackage(
    ownerLogin: string,
    name: string,
    options?: { visibility?: FakePackage['visibility']; updatedAt?: string; versions?: Array<{ tags: string[]; updatedAt?: string }> },
  ): FakePackage;
  fail(route: FakeRoute, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

export interface FakeGitHubOptions {
  settings?: Partial<FakeSettings>;
}

const API_VERSIONS = new Set(['2022-11-28', '2026-03-10']);
const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 30;
/** Routes are registered per depth of a path or ref; deeper ones are unknown here. */
const MAX_PATH_DEPTH = 12;
const CODE_LIFETIME_MS = 10 * 60 * 1000;
const RATE_WINDOW_MS = 60 * 60 * 1000;
const PACKAGE_TYPES = new Set(['npm', 'maven', 'rubygems', 'docker', 'nuget', 'container']);

const DOCS = 'https://docs.github.com/rest';
const STATUS_MESSAGES: Record<number, string> = {
  400: 'Problems parsing JSON',
  401: 'Bad credentials',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Not Found',
  422: 'Validation Failed',
  429: 'Too Many Requests',
  500: 'Server Error',
  502: 'Server Error',
  503: 'Service Unavailable',
};

const errorJson = (status: number, message: string, documentationUrl = DOCS): Json => ({
  message,
  documentation_url: documentationUrl,
  status: String(status),
});
const refuse = (status: number, message: string, documentationUrl?: string, headers?: Record<string, string>) =>
  new FakeHttpError(status, errorJson(status, message, documentationUrl), headers);
const notFound = (documentationUrl?: string) => refuse(404, 'Not Found', documentationUrl);

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const settings: FakeSettings = { clockOffsetMs: 0, tokenLifetimeMs: 60 * 60 * 1000, maxInlineFileBytes: 1024 * 1024, rateLimit: 5000, ...options.settings };
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const app: FakeAppCredentials = {
    appId: String(100_000 + randomNumber(800_000)),
    appSlug: `panel-app-${hex(3)}`,
    clientId: `Iv23li${hex(7)}`,
    clientSecret: hex(20),
    privateKey: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
  const accounts = new Map<string, FakeAccount>();
  const installations = new Map<number, FakeInstallation>();
  const installationTokens = new Map<string, { installationId: number; expiresAtMs: number }>();
  const repositories = new Map<string, FakeRepository>();
  const users = new Map<string, { account: FakeAccount; installations: Set<number> }>();
  const userTokens = new Map<string, string>();
  const codes = new Map<string, { login: string; redirectUri: string | undefined; expiresAtMs: number }>();
  const packages = new Map<string, FakePackage[]>();
  let nextId = 1_000_000 + randomNumber(1_000_000);
  const newId = () => (nextId += 1);

  const http = createHttpFake({
    name: 'GitHub',
    parseBody: 'raw',
    errorBody: ({ status, message, reason }) => errorJson(status, reason === 'malformed' ? message : (STATUS_MESSAGES[status] ?? message)),
    responseHeaders: (request) => {
      const held = installationTokens.get(bearer(request) ?? '');
      const installation = held && installations.get(held.installationId);
      return installation ? rateHeaders(installation) : {};
    },
  });

  /** GitHub's clock, which the tests may set apart from this process's. */
  const githubNow = () => Date.now() + settings.clockOffsetMs;
  const timestamp = (ms = githubNow()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

  function rateHeaders(installation: FakeInstallation): Record<string, string> {
    return {
      'x-ratelimit-limit': String(settings.rateLimit),
      'x-ratelimit-remaining': String(Math.max(0, installation.rateLimitRemaining)),
      'x-ratelimit-used': String(settings.rateLimit - Math.max(0, installation.rateLimitRemaining)),
      'x-ratelimit-reset': String(Math.floor((githubNow() + RATE_WINDOW_MS) / 1000)),
      'x-ratelimit-resource': 'core',
    };
  }

  // ---- Authentication ----------------------------------------------------------------------

  /** What every API request must carry, before its credentials are looked at. */
  function checkClient(request: FakeRequest<Buffer>): void {
    if (!request.headers['user-agent']) {
      throw new FakeHttpError(
        403,
        'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).',
        { 'content-type': 'text/plain; charset=utf-8' },
      );
    }
    const version = request.headers['x-github-api-version'];
    if (typeof version === 'string' && !API_VERSIONS.has(version)) {
      throw refuse(400, `Invalid API version provided: ${version}. Supported versions are: ${[...API_VERSIONS].join(', ')}.`);
    }
  }

  /** The app, proved by a JWT signed with its key whose claims hold on GitHub's clock. */
  function requireAppJwt(request: FakeRequest<Buffer>): void {
    checkClient(request);
    const jwt = bearer(request);
    const parts = jwt?.split('.') ?? [];
    const [headerPart, payloadPart, signaturePart] = parts;
    if (parts.length !== 3 || !headerPart || !payloadPart || !signaturePart) throw refuse(401, 'A JSON web token could not be decoded');
    const header = decodeJwtPart(headerPart);
    const payload = decodeJwtPart(payloadPart);
    if (!header || !payload || header.alg !== 'RS256') throw refuse(401, 'A JSON web token could not be decoded');
    if (String(payload.iss) !== app.appId && payload.iss !== app.clientId) throw refuse(401, "'Issuer' claim ('iss') must be an Integer");
    if (!verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), keys.publicKey, Buffer.from(signaturePart, 'base64url'))) {
      throw refuse(401, 'A JSON web token could not be decoded');
    }
    const now = Math.floor(githubNow() / 1000);
    const { iat, exp } = payload;
    if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > now) {
      throw refuse(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
    }
    if (typeof exp !== 'number' || exp <= now) {
      throw refuse(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
    }
    if (exp > now + 600) throw refuse(401, "'Expiration time' claim ('exp') is too far in the future");
  }

  /** The installation whose live access token the request carries, counted against its rate limit. */
  function requireInstallation(request: FakeRequest<Buffer>): FakeInstallation {
    checkClient(request);
    const held = installationTokens.get(bearer(request) ?? '');
    const installation = held && installations.get(held.installationId);
    if (!held || !installation || held.expiresAtMs <= githubNow()) throw refuse(401, 'Bad credentials');
    if (installation.rateLimitRemaining <= 0) {
      throw refuse(
        403,
        `API rate limit exceeded for installation ID ${installation.id}.`,
        `${DOCS}/overview/rate-limits-for-the-rest-api`,
        rateHeaders(installation),
      );
    }
    installation.rateLimitRemaining -= 1;
    return installation;
  }

  function requireUser(request: FakeRequest<Buffer>): { account: FakeAccount; installations: Set<number> } {
    checkClient(request);
    const login = userTokens.get(bearer(request) ?? '');
    const user = login === undefined ? undefined : users.get(login.toLowerCase());
    if (!user) throw refuse(401, 'Bad credentials');
    return user;
  }

  // ---- Lookups -----------------------------------------------------------------------------

  function requireAccount(login: string): FakeAccount {
    const account = accounts.get(login.toLowerCase());
    if (!account) throw new Error(`GitHub fake has no account ${login}`);
    return account;
  }

  function requireRepository(fullName: string): FakeRepository {
    const repository = repositories.get(fullName.toLowerCase());
    if (!repository) throw new Error(`GitHub fake has no repository ${fullName}`);
    return repository;
  }

  function requireInstallationId(id: string): FakeInstallation {
    const installation = installations.get(Number(id));
    if (!installation) throw new Error(`GitHub fake has no installation ${id}`);
    return installation;
  }

  function reaches(installation: FakeInstallation, repository: FakeRepository): boolean {
    if (repository.owner.id !== installation.account.id) return false;
    return installation.repositorySelection === 'all' || installation.selected.has(repository.fullName.toLowerCase());
  }

  function reachable(installation: FakeInstallation): FakeRepository[] {
    return [...repositories.values()].filter((repository) => reaches(installation, repository));
  }

  /** A repository the installation reaches; GitHub hides the others behind the same 404. */
  function repositoryFor(installation: FakeInstallation, owner: string, name: string): FakeRepository {
    const repository = repositories.get(`${owner}/${name}`.toLowerCase());
    if (!repository || !reaches(installation, repository)) throw notFound(`${DOCS}/repos/repos#get-a-repository`);
    return repository;
  }

  function headOf(repository: FakeRepository, branch: string): FakeCommit {
    const sha = repository.branches.get(branch);
    const commit = sha === undefined ? undefined : repository.commits.get(sha);
    if (!commit) throw new Error(`GitHub fake has no branch ${branch} in ${repository.fullName}`);
    return commit;
  }

  /** A branch name, or a commit SHA of seven characters or more. */
  function resolveRef(repository: FakeRepository, ref: string): FakeCommit | undefined {
    const branchHead = repository.branches.get(ref);
    if (branchHead !== undefined) return repository.commits.get(branchHead);
    if (!/^[0-9a-f]{7,40}$/.test(ref)) return undefined;
    const matches = [...repository.commits.values()].filter((commit) => commit.sha.startsWith(ref));
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** Packages of an owner that the installation may read: all of its own account's, only public ones elsewhere. */
  function packagesVisible(installation: FakeInstallation, owner: FakeAccount): FakePackage[] {
    const all = packages.get(owner.login.toLowerCase()) ?? [];
    return owner.id === installation.account.id ? all : all.filter((item) => item.visibility === 'public');
  }

  function ownerForPackages(kind: 'orgs' | 'users', login: string): FakeAccount {
    const account = accounts.get(login.toLowerCase());
    if (!account || (kind === 'orgs' && account.type !== 'Organization')) throw notFound(`${DOCS}/packages/packages`);
    return account;
  }

  // ---- Wire format -------------------------------------------------------------------------

  /** One page of a listing and its `Link` header (absolute, on this server, as GitHub's are). */
  function paged<T>(url: URL, all: T[]): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(positiveInt(url.searchParams.get('per_page'), DEFAULT_PER_PAGE), MAX_PER_PAGE);
    const page = positiveInt(url.searchParams.get('page'), 1);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const at = (target: number) => {
      const link = new URL(url);
      link.searchParams.set('per_page', String(perPage));
      link.searchParams.set('page', String(target));
      return link.toString();
    };
    const links: string[] = [];
    if (page > 1) links.push(`<${at(page - 1)}>; rel="prev"`);
    if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
    if (page > 1) links.push(`<${at(1)}>; rel="first"`);
    return { items: all.slice((page - 1) * perPage, page * perPage), headers: links.length > 0 ? { link: links.join(', ') } : {} };
  }

  function accountJson(account: FakeAccount, origin: string): Json {
    return {
      login: account.login,
      id: account.id,
      node_id: nodeId('U', account.id),
      avatar_url: `${origin}/avatars/u/${account.id}`,
      url: `${origin}/users/${account.login}`,
      html_url: `${origin}/${account.login}`,
      type: account.type,
      site_admin: false,
    };
  }

  function installationJson(installation: FakeInstallation, origin: string): Json {
    return {
      id: installation.id,
      client_id: app.clientId,
      account: accountJson(installation.account, origin),
      repository_selection: installation.repositorySelection,
      access_tokens_url: `${origin}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${origin}/installation/repositories`,
      html_url: `${origin}/${installation.account.type === 'Organization' ? `organizations/${installation.account.login}/` : ''}settings/installations/${installation.id}`,
      app_id: Number(app.appId),
      app_slug: app.appSlug,
      target_id: installation.account.id,
      target_type: installation.account.type,
      permissions: { contents: 'read', metadata: 'read', packages: 'read' },
      events: ['push'],
      created_at: installation.createdAt,
      updated_at: installation.createdAt,
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: installation.suspendedAt ? accountJson(installation.account, origin) : null,
      suspended_at: installation.suspendedAt,
    };
  }

  function repositoryJson(repository: FakeRepository, origin: string): Json {
    return {
      id: repository.id,
      node_id: nodeId('R', repository.id),
      name: repository.name,
      full_name: repository.fullName,
      private: repository.private,
      owner: accountJson(repository.owner, origin),
      html_url: `${origin}/${repository.fullName}`,
      description: repository.description,
      fork: false,
      url: `${origin}/repos/${repository.fullName}`,
      created_at: repository.createdAt,
      updated_at: repository.updatedAt,
      pushed_at: repository.pushedAt,
      default_branch: repository.defaultBranch,
      visibility: repository.private ? 'private' : 'public',
      archived: false,
      disabled: false,
    };
  }

  function contentLinks(repository: FakeRepository, path: string, commit: FakeCommit, gitKind: 'blobs' | 'trees', sha: string, origin: string): Json {
    const self = `${origin}/repos/${repository.fullName}/contents/${encodePath(path)}?ref=${commit.sha}`;
    const git = `${origin}/repos/${repository.fullName}/git/${gitKind}/${sha}`;
    const html = `${origin}/${repository.fullName}/${gitKind === 'blobs' ? 'blob' : 'tree'}/${commit.sha}/${encodePath(path)}`;
    return { url: self, git_url: git, html_url: html, _links: { self, git, html } };
  }

  function fileJson(repository: FakeRepository, commit: FakeCommit, path: string, content: Buffer, origin: string, withContent: boolean): Json {
    const sha = gitBlobSha(content);
    const inline = content.length <= settings.maxInlineFileBytes;
    return {
      type: 'file',
      name: baseName(path),
      path,
      sha,
      size: content.length,
      ...contentLinks(repository, path, commit, 'blobs', sha, origin),
      download_url: `${origin}/raw/${repository.fullName}/${commit.sha}/${encodePath(path)}`,
      ...(withContent && { encoding: inline ? 'base64' : 'none', content: inline ? wrapBase64(content) : '' }),
    };
  }

  /** A directory's entries as GitHub lists them: submodules show as `file`, without a download URL. */
  function entryJson(repository: FakeRepository, commit: FakeCommit, path: string, node: FakeNode | 'dir', origin: string): Json {
    if (node === 'dir') {
      const sha = sha1(`tree ${commit.sha} ${path}`);
      return { type: 'dir', name: baseName(path), path, sha, size: 0, ...contentLinks(repository, path, commit, 'trees', sha, origin), download_url: null };
    }
    if (node.kind === 'file') return fileJson(repository, commit, path, node.content, origin, false);
    if (node.kind === 'symlink') {
      const sha = gitBlobSha(Buffer.from(node.target));
      return {
        type: 'symlink',
        name: baseName(path),
        path,
        sha,
        size: node.target.length,
        ...contentLinks(repository, path, commit, 'blobs', sha, origin),
        download_url: null,
      };
    }
    return {
      type: 'file',
      name: baseName(path),
      path,
      sha: node.sha,
      size: 0,
      url: `${origin}/repos/${repository.fullName}/contents/${encodePath(path)}`,
      git_url: null,
      html_url: null,
      download_url: null,
    };
  }

  function commitJson(repository: FakeRepository, commit: FakeCommit, origin: string): Json {
    const person = { name: commit.authorName, email: `${commit.authorLogin ?? 'someone'}@users.noreply.example`, date: commit.date };
    const login = commit.authorLogin === null ? undefined : accounts.get(commit.authorLogin.toLowerCase());
    return {
      sha: commit.sha,
      node_id: nodeId('C', parseInt(commit.sha.slice(0, 8), 16)),
      commit: {
        author: person,
        committer: person,
        message: commit.message,
        tree: { sha: sha1(`tree ${commit.sha}`), url: `${origin}/repos/${repository.fullName}/git/trees/${commit.sha}` },
        url: `${origin}/repos/${repository.fullName}/git/commits/${commit.sha}`,
        comment_count: 0,
      },
      url: `${origin}/repos/${repository.fullName}/commits/${commit.sha}`,
      html_url: `${origin}/${repository.fullName}/commit/${commit.sha}`,
      author: login ? accountJson(login, origin) : null,
      committer: login ? accountJson(login, origin) : null,
      parents: commit.parent ? [{ sha: commit.parent, url: `${origin}/repos/${repository.fullName}/commits/${commit.parent}` }] : [],
      files: [],
    };
  }

  function packageJson(item: FakePackage, origin: string): Json {
    const ownerPath = item.owner.type === 'Organization' ? `orgs/${item.owner.login}` : `users/${item.owner.login}`;
    return {
      id: item.id,
      name: item.name,
      package_type: 'container',
      owner: accountJson(item.owner, origin),
      version_count: item.versions.length,
      visibility: item.visibility,
      url: `${origin}/${ownerPath}/packages/container/${encodeURIComponent(item.name)}`,
      created_at: item.createdAt,
      updated_at: item.updatedAt,
      html_url: `${origin}/${item.owner.type === 'Organization' ? 'orgs/' : ''}${item.owner.login}/packages/container/package/${encodeURIComponent(item.name)}`,
    };
  }

  function versionJson(item: FakePackage, version: FakePackageVersion, origin: string): Json {
    return {
      id: version.id,
      name: version.digest,
      url: `${origin}/packages/container/${encodeURIComponent(item.name)}/versions/${version.id}`,
      package_html_url: `${origin}/${item.owner.login}/packages/container/package/${encodeURIComponent(item.name)}`,
      created_at: version.createdAt,
      updated_at: version.updatedAt,
      html_url: `${origin}/${item.owner.login}/packages/container/${encodeURIComponent(item.name)}/${version.id}`,
      metadata: { package_type: 'container', container: { tags: version.tags } },
    };
  }

  // ---- Trees -------------------------------------------------------------------------------

  /** The entries directly inside `dir` ('' is the root), or undefined when nothing lies below it. */
  function listDirectory(tree: Map<string, FakeNode>, dir: string): Array<[string, FakeNode | 'dir']> | undefined {
    const prefix = dir === '' ? '' : `${dir}/`;
    const entries = new Map<string, FakeNode | 'dir'>();
    for (const [path, node] of tree) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash === -1) entries.set(path, node);
      else entries.set(prefix + rest.slice(0, slash), 'dir');
    }
    if (entries.size === 0 && dir !== '') return undefined;
    return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  function contents(request: FakeRequest<Buffer>, path: string): FakeResponse {
    const installation = requireInstallation(request);
    const [owner, name] = repoSegments(request.path);
    const repository = repositoryFor(installation, owner, name);
    const ref = request.url.searchParams.get('ref') || repository.defaultBranch;
    const commit = resolveRef(repository, ref);
    if (!commit) throw refuse(404, `No commit found for the ref ${ref}`, `${DOCS}/repos/contents#get-repository-content`);
    const origin = request.url.origin;
    const wantsRaw = /application\/vnd\.github(\.v3)?\.raw/.test(String(request.headers.accept ?? ''));
    const node = path === '' ? undefined : commit.tree.get(path);
    if (node?.kind === 'symlink') {
      const targetPath = joinPath(parentOf(path), node.target);
      const target = targetPath === undefined ? undefined : commit.tree.get(targetPath);
      if (target?.kind === 'file' && targetPath !== undefined) return fileResponse(repository, commit, targetPath, target.content, origin, wantsRaw);
      const sha = gitBlobSha(Buffer.from(node.target));
      return {
        body: {
          type: 'symlink',
          target: node.target,
          name: baseName(path),
          path,
          sha,
          size: node.target.length,
          ...contentLinks(repository, path, commit, 'blobs', sha, origin),
          download_url: null,
        },
      };
    }
    if (node?.kind === 'file') return fileResponse(repository, commit, path, node.content, origin, wantsRaw);
    if (node?.kind === 'submodule') {
      return {
        body: {
          type: 'submodule',
          submodule_git_url: node.url,
          name: baseName(path),
          path,
          sha: node.sha,
          size: 0,
          url: `${origin}/repos/${repository.fullName}/contents/${encodePath(path)}`,
          git_url: null,
          html_url: null,
          download_url: null,
        },
      };
    }
    const entries = listDirectory(commit.tree, path);
    if (!entries) throw notFound(`${DOCS}/repos/contents#get-repository-content`);
    return { body: entries.map(([entryPath, entry]) => entryJson(repository, commit, entryPath, entry, origin)) };
  }

  function fileResponse(repository: FakeRepository, commit: FakeCommit, path: string, content: Buffer, origin: string, raw: boolean): FakeResponse {
    if (raw) return { body: content, headers: { 'content-type': 'application/vnd.github.raw; charset=utf-8' } };
    return { body: fileJson(repository, commit, path, content, origin, true) };
  }

  function commitOn(repository: FakeRepository, branch: string, changes: CommitChanges): string {
    const base = repository.branches.get(branch) ?? repository.branches.get(repository.defaultBranch) ?? null;
    const tree = new Map(base === null ? [] : repository.commits.get(base)?.tree);
    for (const path of changes.remove ?? []) tree.delete(normalise(path));
    for (const [path, content] of Object.entries(changes.files ?? {})) tree.set(normalise(path), { kind: 'file', content: Buffer.from(content) });
    for (const [path, target] of Object.entries(changes.symlinks ?? {})) tree.set(normalise(path), { kind: 'symlink', target });
    for (const [path, url] of Object.entries(changes.submodules ?? {})) tree.set(normalise(path), { kind: 'submodule', url, sha: sha1(`submodule ${url}`) });
    const date = timestamp();
    const message = changes.message ?? 'Update files';
    const sha = sha1(`commit ${repository.fullName} ${base ?? ''} ${message} ${hex(8)}`);
    repository.commits.set(sha, {
      sha,
      message,
      authorName: changes.author?.name ?? 'Octo Cat',
      authorLogin: changes.author?.login === undefined ? null : changes.author.login,
      date,
      parent: base,
      tree,
    });
    repository.branches.set(branch, sha);
    repository.pushedAt = date;
    return sha;
  }

  // ---- Routes ------------------------------------------------------------------------------

  http.route('GET /app/installations/:id', (request) => {
    requireAppJwt(request);
    const installation = installations.get(Number(request.params.id));
    if (!installation) throw notFound(`${DOCS}/apps/apps#get-an-installation-for-the-authenticated-app`);
    return { body: installationJson(installation, request.url.origin) };
  });

  http.route('DELETE /app/installations/:id', (request) => {
    requireAppJwt(request);
    const installation = installations.get(Number(request.params.id));
    if (!installation) throw notFound(`${DOCS}/apps/apps#delete-an-installation-for-the-authenticated-app`);
    forget(installation.id);
    return { status: 204 };
  });

  http.route('POST /app/installations/:id/access_tokens', (request) => {
    requireAppJwt(request);
    const installation = installations.get(Number(request.params.id));
    if (!installation) throw notFound(`${DOCS}/apps/apps#create-an-installation-access-token-for-an-app`);
    if (installation.suspendedAt) throw refuse(403, 'This installation has been suspended', `${DOCS}/apps/apps#create-an-installation-access-token-for-an-app`);
    const token = `ghs_${randomBytes(27).toString('base64url').slice(0, 36)}`;
    const expiresAtMs = githubNow() + settings.tokenLifetimeMs;
    installationTokens.set(token, { installationId: installation.id, expiresAtMs });
    return {
      status: 201,
      body: {
        token,
        expires_at: timestamp(expiresAtMs),
        permissions: { contents: 'read', metadata: 'read', packages: 'read' },
        repository_selection: installation.repositorySelection,
      },
    };
  });

  http.route('GET /installation/repositories', (request) => {
    const installation = requireInstallation(request);
    const all = reachable(installation);
    const { items, headers } = paged(request.url, all);
    return {
      headers,
      body: {
        total_count: all.length,
        repository_selection: installation.repositorySelection,
        repositories: items.map((repository) => repositoryJson(repository, request.url.origin)),
      },
    };
  });

  http.route('GET /repos/:owner/:repo', (request) => {
    const installation = requireInstallation(request);
    return { body: repositoryJson(repositoryFor(installation, request.params.owner, request.params.repo), request.url.origin) };
  });

  http.route('GET /repos/:owner/:repo/contents', (request) => contents(request, ''));
  for (let depth = 1; depth <= MAX_PATH_DEPTH; depth += 1) {
    http.route(`GET /repos/:owner/:repo/contents/${segmentPattern(depth)}`, (request) => contents(request, tailAfter(request.path, 4).join('/')));
  }

  http.route('GET /repos/:owner/:repo/branches', (request) => {
    const installation = requireInstallation(request);
    const repository = repositoryFor(installation, request.params.owner, request.params.repo);
    const names = [...repository.branches.keys()].sort();
    const { items, headers } = paged(request.url, names);
    return {
      headers,
      body: items.map((name) => {
        const sha = repository.branches.get(name)!;
        return { name, commit: { sha, url: `${request.url.origin}/repos/${repository.fullName}/commits/${sha}` }, protected: false };
      }),
    };
  });

  for (let depth = 1; depth <= MAX_PATH_DEPTH; depth += 1) {
    http.route(`GET /repos/:owner/:repo/commits/${segmentPattern(depth)}`, (request) => {
      const installation = requireInstallation(request);
      const [owner, name] = repoSegments(request.path);
      const repository = repositoryFor(installation, owner, name);
      const ref = tailAfter(request.path, 4).join('/');
      const commit = resolveRef(repository, ref);
      if (!commit) throw refuse(422, `No commit found for SHA: ${ref}`, `${DOCS}/commits/commits#get-a-commit`);
      return { body: commitJson(repository, commit, request.url.origin) };
    });
  }

  http.route('POST /login/oauth/access_token', (request) => {
    const fields = oauthFields(request);
    const answer = (body: Record<string, string | number>): FakeResponse =>
      String(request.headers.accept ?? '').includes('application/json')
        ? { body }
        : {
            body: new URLSearchParams(Object.entries(body).map(([key, value]) => [key, String(value)])).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
          };
    const oauthError = (error: string, description: string) =>
      answer({
        error,
        error_description: description,
        error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replace(/_/g, '-')}`,
      });
    if (fields.client_id !== app.clientId || fields.client_secret !== app.clientSecret) {
      return oauthError('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    }
    const grant = codes.get(fields.code ?? '');
    if (!grant || grant.expiresAtMs <= githubNow()) return oauthError('bad_verification_code', 'The code passed is incorrect or expired.');
    if (grant.redirectUri !== undefined && fields.redirect_uri !== undefined && fields.redirect_uri !== grant.redirectUri) {
      return oauthError('redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    }
    codes.delete(fields.code ?? '');
    const token = `ghu_${randomBytes(27).toString('base64url').slice(0, 36)}`;
    userTokens.set(token, grant.login);
    return answer({
      access_token: token,
      expires_in: 28_800,
      refresh_token: `ghr_${randomBytes(57).toString('base64url').slice(0, 76)}`,
      refresh_token_expires_in: 15_811_200,
      token_type: 'bearer',
      scope: '',
    });
  });

  http.route('GET /user/installations', (request) => {
    const user = requireUser(request);
    const all = [...installations.values()].filter((installation) => installation.account.id === user.account.id || user.installations.has(installation.id));
    const { items, headers } = paged(request.url, all);
    return { headers, body: { total_count: all.length, installations: items.map((installation) => installationJson(installation, request.url.origin)) } };
  });

  for (const kind of ['orgs', 'users'] as const) {
    http.route(`GET /${kind}/:owner/packages`, (request) => {
      const installation = requireInstallation(request);
      const owner = ownerForPackages(kind, segmentAt(request.path, 2));
      const type = request.url.searchParams.get('package_type') ?? '';
      if (!PACKAGE_TYPES.has(type)) throw refuse(400, `Invalid package_type: ${type || '(missing)'}`, `${DOCS}/packages/packages`);
      const all = type === 'container' ? packagesVisible(installation, owner) : [];
      const { items, headers } = paged(request.url, all);
      // GitHub leaves the `Link` header out of the organisation listing even when more pages follow
      // (community discussion #128552); the user listing has it.
      return { headers: kind === 'orgs' ? {} : headers, body: items.map((item) => packageJson(item, request.url.origin)) };
    });
    http.route(`GET /${kind}/:owner/packages/container/:name/versions`, (request) => {
      const installation = requireInstallation(request);
      const owner = ownerForPackages(kind, segmentAt(request.path, 2));
      const name = segmentAt(request.path, 5);
      const item = packagesVisible(installation, owner).find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
      if (!item) throw refuse(404, 'Package not found.', `${DOCS}/packages/packages`);
      const newestFirst = [...item.versions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id - a.id);
      const { items, headers } = paged(request.url, newestFirst);
      return { headers, body: items.map((version) => versionJson(item, version, request.url.origin)) };
    });
  }

  function forget(installationId: number): void {
    installations.delete(installationId);
    for (const [token, held] of installationTokens) if (held.installationId === installationId) installationTokens.delete(token);
  }

  const { url } = await http.listen();

  return {
    apiUrl: url,
    webUrl: url,
    app,
    requests: http.requests,
    settings,
    addAccount(login, type = 'User') {
      const existing = accounts.get(login.toLowerCase());
      if (existing) return existing;
      const account: FakeAccount = { id: newId(), login, type };
      accounts.set(login.toLowerCase(), account);
      return account;
    },
    installApp(login, installOptions = {}) {
      const account = requireAccount(login);
      const installation: FakeInstallation = {
        id: newId(),
        account,
        repositorySelection: installOptions.repositories ? 'selected' : 'all',
        selected: new Set((installOptions.repositories ?? []).map((name) => `${account.login}/${name}`.toLowerCase())),
        createdAt: installOptions.createdAt ?? timestamp(),
        suspendedAt: null,
        rateLimitRemaining: settings.rateLimit,
      };
      installations.set(installation.id, installation);
      return String(installation.id);
    },
    installation: (id) => installations.get(Number(id)),
    suspend(installationId) {
      const installation = requireInstallationId(installationId);
      installation.suspendedAt = timestamp();
      for (const [token, held] of installationTokens) if (held.installationId === installation.id) installationTokens.delete(token);
    },
    removeInstallation: (installationId) => forget(requireInstallationId(installationId).id),
    revokeInstallationTokens(installationId) {
      const id = requireInstallationId(installationId).id;
      for (const [token, held] of installationTokens) if (held.installationId === id) installationTokens.delete(token);
    },
    setRateLimitRemaining(installationId, remaining) {
      requireInstallationId(installationId).rateLimitRemaining = remaining;
    },
    addRepository(ownerLogin, name, repoOptions = {}) {
      const owner = requireAccount(ownerLogin);
      const fullName = `${owner.login}/${name}`;
      const createdAt = repoOptions.createdAt ?? timestamp();
      const repository: FakeRepository = {
        id: newId(),
        owner,
        name,
        fullName,
        private: repoOptions.private ?? true,
        description: repoOptions.description ?? null,
        defaultBranch: repoOptions.defaultBranch ?? 'main',
        createdAt,
        updatedAt: repoOptions.updatedAt ?? createdAt,
        pushedAt: null,
        branches: new Map(),
        commits: new Map(),
      };
      repositories.set(fullName.toLowerCase(), repository);
      commitOn(repository, repository.defaultBranch, { files: { 'README.md': `# ${name}\n` }, message: 'Initial commit' });
      repository.pushedAt = repoOptions.pushedAt === undefined ? repository.pushedAt : repoOptions.pushedAt;
      return repository;
    },
    commit: (fullName, branch, changes) => commitOn(requireRepository(fullName), branch, changes),
    addBranches(fullName, names) {
      const repository = requireRepository(fullName);
      const head = headOf(repository, repository.defaultBranch).sha;
      for (const name of names) repository.branches.set(name, head);
    },
    addUser(login, userOptions = {}) {
      const account = accounts.get(login.toLowerCase()) ?? { id: newId(), login, type: 'User' as const };
      accounts.set(login.toLowerCase(), account);
      users.set(login.toLowerCase(), { account, installations: new Set((userOptions.installations ?? []).map(Number)) });
      return account;
    },
    issueCode(login, redirectUri) {
      if (!users.has(login.toLowerCase())) throw new Error(`GitHub fake has no user ${login}`);
      const code = hex(10);
      codes.set(code, { login, redirectUri, expiresAtMs: githubNow() + CODE_LIFETIME_MS });
      return code;
    },
    addPackage(ownerLogin, name, packageOptions = {}) {
      const owner = requireAccount(ownerLogin);
      const updatedAt = packageOptions.updatedAt ?? timestamp();
      const item: FakePackage = {
        id: newId(),
        owner,
        name,
        visibility: packageOptions.visibility ?? 'private',
        createdAt: updatedAt,
        updatedAt,
        versions: (packageOptions.versions ?? []).map((version) => ({
          id: newId(),
          digest: `sha256:${createHash('sha256').update(randomBytes(16)).digest('hex')}`,
          tags: version.tags,
          createdAt: version.updatedAt ?? updatedAt,
          updatedAt: version.updatedAt ?? updatedAt,
        })),
      };
      const list = packages.get(owner.login.toLowerCase()) ?? [];
      list.push(item);
      packages.set(owner.login.toLowerCase(), list);
      return item;
    },
    fail(route, fault) {
      const matches = routeMatcher(route);
      http.fail({ ...fault, when: (request) => matches(request) && (fault.when?.(request) ?? true) });
    },
    close: () => http.close(),
  };
}

/** The OAuth endpoint takes its parameters as a form, as JSON, or in the query string. */
function oauthFields(request: FakeRequest<Buffer>): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = Object.fromEntries(request.url.searchParams);
  const type = String(request.headers['content-type'] ?? '');
  const text = request.body.toString('utf8');
  if (type.includes('application/json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === 'object' && parsed !== null) {
        for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') fields[key] = value;
      }
    } catch {
      throw refuse(400, 'Problems parsing JSON');
    }
  } else {
    for (const [key, value] of new URLSearchParams(text)) fields[key] = value;
  }
  return fields;
}

/** A fault on a route of the union applies to every route registered for it (each depth of a path). */
function routeMatcher(route: FakeRoute): (request: RecordedRequest<Buffer>) => boolean {
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  const source = route
    .slice(space + 1)
    .split('/')
    .map((segment) => (segment === ':path' || segment === ':ref' ? '.+' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return (request) => request.method === method && pattern.test(request.path);
}

/** `:s0/:s1/…`, one parameter per segment of a path or ref this deep. */
function segmentPattern(depth: number): string {
  return Array.from({ length: depth }, (_, i) => `:s${i}`).join('/');
}

/** The path's segment at `index` (the leading empty segment is 0), decoded. */
function segmentAt(path: string, index: number): string {
  return decodeURIComponent(path.split('/')[index] ?? '');
}

/** `owner` and `repo` of a `/repos/{owner}/{repo}/…` path, decoded. */
function repoSegments(path: string): [string, string] {
  return [segmentAt(path, 2), segmentAt(path, 3)];
}

/** The decoded segments after the first `skip` ones (the leading empty segment counts). */
function tailAfter(path: string, skip: number): string[] {
  return path
    .split('/')
    .slice(skip + 1)
    .map((segment) => decodeURIComponent(segment));
}

function bearer(request: RecordedRequest<unknown>): string | undefined {
  const match = /^(?:Bearer|token)\s+(.+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function decodeJwtPart(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** GitHub breaks inline base64 into lines of 60 characters, each ending in a newline. */
function wrapBase64(content: Buffer): string {
  const encoded = content.toString('base64');
  return encoded === '' ? '' : `${encoded.match(/.{1,60}/g)!.join('\n')}\n`;
}

function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function normalise(path: string): string {
  return path.split('/').filter(Boolean).join('/');
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** A symlink's target resolved from its directory; undefined when it climbs out of the repository. */
function joinPath(dir: string, target: string): string | undefined {
  const parts = target.startsWith('/') ? [] : dir.split('/').filter(Boolean);
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(segment);
    }
  }
  return parts.join('/');
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function nodeId(kind: string, id: number): string {
  return Buffer.from(`0${kind}${id}`).toString('base64');
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function randomNumber(below: number): number {
  return randomBytes(4).readUInt32BE() % below;
}

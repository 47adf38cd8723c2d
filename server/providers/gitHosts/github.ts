import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AppError, invalidField } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { isSuccess, parseJson, redact, UpstreamHttp, UpstreamRefusal } from '../upstreamHttp';
import { appJwt, InstallationTokenCache, loadAppPrivateKey, type InstallationToken } from './githubAuth';
import {
  BRANCHES_PER_PAGE,
  type GitBranchPage,
  type GitCommit,
  type GitContentEntry,
  type GitHost1Provider,
  type GitInstallation,
  type GitPackage,
  type GitPackageTag,
  type GitRepository,
  type InstallationCredential,
} from './types';

export interface GitHubAppOptions {
  /** `https://api.github.com`, or `https://<host>/api/v3` on GitHub Enterprise Server; a loopback fake in tests. */
  apiUrl: string;
  /** `https://github.com`: the installation and consent pages, and the OAuth token endpoint. */
  webUrl: string;
  appId: string;
  appSlug: string;
  /** The app's private key, PEM. */
  privateKey: string;
  clientId: string;
  clientSecret: string;
  /** The container registry that serves the accounts' packages, like `ghcr.io`. */
  packagesRegistry: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs?: number;
}

const API_VERSION = '2022-11-28';
const JSON_MEDIA_TYPE = 'application/vnd.github+json';
/** Files over a megabyte come without inline content; GitHub serves them only in this media type. */
const RAW_MEDIA_TYPE = 'application/vnd.github.raw+json';
/** GitHub's largest page: the fewer pages a listing takes, the less of the installation's rate limit it spends. */
const PER_PAGE = 100;

const timestamp = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());

const errorSchema = z.looseObject({ message: z.string().optional() });
const accountSchema = z.looseObject({ login: z.string().min(1), type: z.string() });
const installationSchema = z.looseObject({
  id: z.number().int(),
  account: accountSchema,
  created_at: timestamp,
  suspended_at: z.string().nullish(),
});
type Installation = z.output<typeof installationSchema>;
const accessTokenSchema = z.looseObject({ token: z.string().min(1), expires_at: timestamp });
const repositorySchema = z.looseObject({
  name: z.string(),
  full_name: z.string(),
  owner: z.looseObject({ login: z.string() }),
  private: z.boolean(),
  default_branch: z.string(),
  description: z.string().nullable(),
  updated_at: timestamp,
  pushed_at: timestamp.nullish(),
  html_url: z.string(),
});
type Repository = z.output<typeof repositorySchema>;
const repositoryPageSchema = z.looseObject({ total_count: z.number().int().nonnegative(), repositories: z.array(z.unknown()) });
const installationPageSchema = z.looseObject({ total_count: z.number().int().nonnegative(), installations: z.array(z.unknown()) });
const contentEntrySchema = z.looseObject({
  type: z.enum(['file', 'dir', 'symlink', 'submodule']),
  name: z.string(),
  path: z.string(),
  size: z.number().int().nonnegative(),
  download_url: z.string().nullable(),
});
type ContentEntry = z.output<typeof contentEntrySchema>;
const contentObjectSchema = z.looseObject({ type: z.string(), encoding: z.string().optional(), content: z.string().optional() });
const branchSchema = z.looseObject({ name: z.string(), commit: z.looseObject({ sha: z.string() }) });
const commitSchema = z.looseObject({
  sha: z.string(),
  commit: z.looseObject({ message: z.string(), author: z.looseObject({ name: z.string() }).nullable() }),
  author: z.looseObject({ login: z.string() }).nullable(),
});
const packageSchema = z.looseObject({
  name: z.string(),
  visibility: z.enum(['public', 'private', 'internal']),
  updated_at: timestamp,
  owner: z.looseObject({ login: z.string() }).nullish(),
});
const packageVersionSchema = z.looseObject({
  name: z.string(),
  updated_at: timestamp,
  metadata: z.looseObject({ container: z.looseObject({ tags: z.array(z.string()) }).optional() }).optional(),
});
const oauthAnswerSchema = z.looseObject({ access_token: z.string().min(1).optional(), error: z.string().optional() });

type Auth = { kind: 'app' } | { kind: 'installation'; installationId: string } | { kind: 'user'; token: string } | { kind: 'none' };

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  /** A path below the API's base, or an absolute URL (a next page the API linked, the web host). */
  target: string | URL;
  auth: Auth;
  /** Names the work in messages: "listing repositories". */
  operation: string;
  query?: Record<string, string>;
  body?: unknown;
  accept?: string;
  /** Statuses handed back to the caller instead of thrown (a rate-limited answer never is). */
  tolerate?: readonly number[];
  /** What a 404 means here, for the NOT_FOUND message; without it a 404 is the upstream's failure. */
  subject?: string;
  /** Sent values other than the credential that must not reach a message or a log (an OAuth code). */
  secrets?: string[];
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

interface Listing<S extends z.ZodType> {
  call: Call;
  item: S;
  /** The page's items, and the listing's total where GitHub gives one. */
  page: (json: unknown) => { items: unknown; total?: number };
  /** Keeps asking for the next page while pages come full: GitHub leaves `Link` out of some listings (packages). */
  pagesWithoutLink?: boolean;
}

/**
 * The production adapter of git host 1, on GitHub's REST API as the platform's GitHub App. Calls
 * about an installation's repositories and packages carry an installation access token, minted
 * with the app's JWT and kept until shortly before it expires; one GitHub refuses is replaced once.
 * Every answer is checked against the shape used, so an upstream that changes fails one request
 * with UPSTREAM_ERROR. No token, JWT, secret or code reaches a message, a cause or a log line.
 */
export class GitHubAppProvider implements GitHost1Provider {
  readonly host = 'git-host-1' as const;
  readonly kind = 'github' as const;
  readonly description: string;
  readonly #http: UpstreamHttp;
  readonly #web: string;
  readonly #appId: string;
  readonly #appSlug: string;
  // True private fields: a logged or serialised provider must never carry the key or the secret.
  readonly #privateKey: KeyObject;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #registry: string;
  readonly #tokens: InstallationTokenCache;

  constructor(options: GitHubAppOptions) {
    this.#http = new UpstreamHttp({
      label: 'The git host',
      logLabel: 'Git host',
      logFields: { provider: 'github' },
      apiUrl: options.apiUrl,
      timeoutMs: options.timeoutMs ?? 30_000,
    });
    this.#web = options.webUrl.replace(/\/+$/, '');
    this.#appId = options.appId;
    this.#appSlug = options.appSlug;
    this.#privateKey = loadAppPrivateKey(options.privateKey);
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#registry = options.packagesRegistry.replace(/\/+$/, '');
    this.#tokens = new InstallationTokenCache((installationId) => this.mintToken(installationId));
    this.description = `GitHub (REST API ${API_VERSION}, ${new URL(options.apiUrl).host}) through the app “${options.appSlug}”, installed on each account`;
  }

  installUrl(state: string): string {
    return `${this.#web}/apps/${encodeURIComponent(this.#appSlug)}/installations/new?${new URLSearchParams({ state })}`;
  }

  authorizeUrl(state: string, redirectUri: string): string {
    return `${this.#web}/login/oauth/authorize?${new URLSearchParams({ client_id: this.#clientId, redirect_uri: redirectUri, state })}`;
  }

  async exchangeUserCode(code: string, redirectUri: string): Promise<{ accessToken: string }> {
    const operation = 'trading the authorization code';
    const reply = await this.request({
      method: 'POST',
      target: new URL(`${this.#web}/login/oauth/access_token`),
      auth: { kind: 'none' },
      operation,
      accept: 'application/json',
      body: { client_id: this.#clientId, client_secret: this.#clientSecret, code, redirect_uri: redirectUri },
      secrets: [code],
    });
    // GitHub answers a refused code with 200 and an `error` field.
    const answer = this.#http.parse(oauthAnswerSchema, reply.json, operation);
    if (answer.access_token !== undefined) return { accessToken: answer.access_token };
    const error = answer.error ?? 'no access token';
    getLogger().info({ provider: 'github', operation, error }, 'Git host refused an OAuth authorization code');
    if (error === 'incorrect_client_credentials') {
      throw new AppError('UPSTREAM_ERROR', `The git host refused the platform's OAuth client credentials while ${operation}`);
    }
    throw new AppError('GIT_CREDENTIAL_INVALID', 'The git host refused the authorization: the code is wrong, expired or already used; start again');
  }

  async listUserInstallations(userAccessToken: string): Promise<GitInstallation[]> {
    const installations = await this.listAll({
      call: { method: 'GET', target: '/user/installations', auth: { kind: 'user', token: userAccessToken }, operation: 'listing the user’s installations' },
      item: installationSchema,
      page: (json) => {
        const page = this.#http.parse(installationPageSchema, json, 'listing the user’s installations');
        return { items: page.installations, total: page.total_count };
      },
    });
    return installations.map(toInstallation);
  }

  async getInstallation(installationId: string): Promise<GitInstallation | null> {
    const installation = await this.findInstallation(installationId);
    return installation && toInstallation(installation);
  }

  async uninstall(installationId: string): Promise<void> {
    await this.request({
      method: 'DELETE',
      target: `/app/installations/${segment(installationId, 'Installation')}`,
      auth: { kind: 'app' },
      operation: 'removing the installation',
      tolerate: [404],
    });
    this.#tokens.drop(installationId);
  }

  async listRepositories(credential: InstallationCredential): Promise<GitRepository[]> {
    const operation = 'listing repositories';
    const repositories = await this.listAll({
      call: { method: 'GET', target: '/installation/repositories', auth: installationAuth(credential), operation },
      item: repositorySchema,
      page: (json) => {
        const page = this.#http.parse(repositoryPageSchema, json, operation);
        return { items: page.repositories, total: page.total_count };
      },
    });
    return repositories.map(toRepository);
  }

  async getRepository(credential: InstallationCredential, fullName: string): Promise<GitRepository> {
    const operation = 'reading the repository';
    const reply = await this.request({ method: 'GET', target: repoPath(fullName), auth: installationAuth(credential), operation, subject: 'Repository' });
    return toRepository(this.#http.parse(repositorySchema, reply.json, operation));
  }

  async listContents(credential: InstallationCredential, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]> {
    const operation = 'listing the directory';
    const reply = await this.request({ ...contentsCall(credential, fullName, path, ref, operation), tolerate: [404] });
    if (reply.status === 404) throw missingContent(reply, 'Directory');
    // A file, symlink or submodule answers with one object: the path is not a directory.
    if (!Array.isArray(reply.json)) throw new AppError('NOT_FOUND', 'Directory not found: the path is not a directory');
    return this.#http.parse(z.array(contentEntrySchema), reply.json, operation).map(toContentEntry);
  }

  async readFile(credential: InstallationCredential, fullName: string, path: string, ref?: string): Promise<string | null> {
    const operation = 'reading a file';
    const call = { ...contentsCall(credential, fullName, path, ref, operation), tolerate: [404] };
    const reply = await this.request(call);
    if (reply.status === 404) {
      if (isMissingRef(reply)) throw missingContent(reply, 'File');
      return null;
    }
    if (Array.isArray(reply.json)) return null;
    const content = this.#http.parse(contentObjectSchema, reply.json, operation);
    if (content.type !== 'file') return null;
    if (content.encoding === 'base64' && content.content !== undefined) return Buffer.from(content.content, 'base64').toString('utf8');
    const raw = await this.request({ ...call, accept: RAW_MEDIA_TYPE });
    return raw.status === 404 ? null : raw.text;
  }

  async listBranches(credential: InstallationCredential, fullName: string, page: number): Promise<GitBranchPage> {
    if (!Number.isInteger(page) || page < 1) throw invalidField('page', 'must be a whole number from 1');
    const operation = 'listing branches';
    const reply = await this.request({
      method: 'GET',
      target: `${repoPath(fullName)}/branches`,
      auth: installationAuth(credential),
      operation,
      query: { per_page: String(BRANCHES_PER_PAGE), page: String(page) },
      subject: 'Repository',
    });
    const branches = this.#http.parse(z.array(branchSchema), reply.json, operation);
    const next = nextLink(reply.headers);
    return {
      branches: branches.map((branch) => ({ name: branch.name, commitSha: branch.commit.sha })),
      page,
      nextPage: next === undefined || branches.length === 0 ? null : this.pageOf(next, page, operation),
    };
  }

  async headCommit(credential: InstallationCredential, fullName: string, branch: string): Promise<GitCommit> {
    const operation = 'reading the branch’s head commit';
    const reply = await this.request({
      method: 'GET',
      target: `${repoPath(fullName)}/commits/${encodePath(branch, 'Branch')}`,
      auth: installationAuth(credential),
      operation,
      subject: 'Repository or branch',
      // GitHub answers 422 "No commit found for SHA: …" for a ref it cannot resolve.
      tolerate: [422],
    });
    if (reply.status === 422) throw new AppError('NOT_FOUND', 'Branch not found');
    const commit = this.#http.parse(commitSchema, reply.json, operation);
    return { sha: commit.sha, message: commit.commit.message, author: commit.author?.login ?? commit.commit.author?.name ?? '' };
  }

  async listPackages(credential: InstallationCredential): Promise<GitPackage[]> {
    const operation = 'listing container packages';
    const account = await this.installationAccount(credential.installationId, operation);
    const packages = await this.listAll({
      call: {
        method: 'GET',
        target: `${packagesRoot(account)}/packages`,
        auth: installationAuth(credential),
        operation,
        query: { package_type: 'container' },
        subject: 'Account',
      },
      item: packageSchema,
      page: (json) => ({ items: json }),
      pagesWithoutLink: true,
    });
    return packages.map((item) => {
      const owner = item.owner?.login ?? account.login;
      return {
        owner,
        name: item.name,
        visibility: item.visibility,
        image: `${this.#registry}/${owner}/${item.name}`.toLowerCase(),
        updatedAt: item.updated_at,
      };
    });
  }

  async listPackageTags(credential: InstallationCredential, owner: string, packageName: string): Promise<GitPackageTag[]> {
    const operation = 'listing the package’s tags';
    const account = await this.installationAccount(credential.installationId, operation);
    // An installation reaches the packages of its own account only.
    if (owner.toLowerCase() !== account.login.toLowerCase()) throw new AppError('NOT_FOUND', 'Package not found');
    const versions = await this.listAll({
      call: {
        method: 'GET',
        target: `${packagesRoot(account)}/packages/container/${segment(packageName, 'Package')}/versions`,
        auth: installationAuth(credential),
        operation,
        subject: 'Package',
      },
      item: packageVersionSchema,
      page: (json) => ({ items: json }),
    });
    return versions.flatMap((version) =>
      (version.metadata?.container?.tags ?? []).map((tag) => ({ tag, digest: version.name, updatedAt: version.updated_at })),
    );
  }

  /** The installation as the app reads it; null when GitHub no longer has it. */
  private async findInstallation(installationId: string): Promise<Installation | null> {
    const operation = 'reading the installation';
    const reply = await this.request({
      method: 'GET',
      target: `/app/installations/${segment(installationId, 'Installation')}`,
      auth: { kind: 'app' },
      operation,
      tolerate: [404],
    });
    return reply.status === 404 ? null : this.#http.parse(installationSchema, reply.json, operation);
  }

  private async installationAccount(installationId: string, operation: string): Promise<Installation['account']> {
    const installation = await this.findInstallation(installationId);
    if (!installation) throw installationGone(operation);
    return installation.account;
  }

  private async mintToken(installationId: string): Promise<InstallationToken> {
    const operation = 'obtaining an installation access token';
    const reply = await this.request({
      method: 'POST',
      target: `/app/installations/${segment(installationId, 'Installation')}/access_tokens`,
      auth: { kind: 'app' },
      operation,
      // 404: the app was uninstalled; 403: the installation is suspended.
      tolerate: [403, 404],
    });
    if (reply.status === 403 || reply.status === 404) throw installationGone(operation);
    const minted = this.#http.parse(accessTokenSchema, reply.json, operation);
    return { token: minted.token, expiresAtMs: Date.parse(minted.expires_at) };
  }

  /** Walks the listing by its `Link: rel="next"` until the last page, the total, or an empty page. */
  private async listAll<S extends z.ZodType>(listing: Listing<S>): Promise<z.output<S>[]> {
    const { operation } = listing.call;
    const items: z.output<S>[] = [];
    const visited = new Set<string>();
    let call: Call = { ...listing.call, query: { ...listing.call.query, per_page: String(PER_PAGE) } };
    for (let page = 1; ; page += 1) {
      const reply = await this.request(call);
      const { items: raw, total } = listing.page(reply.json);
      const batch = this.#http.parse(z.array(listing.item), raw, operation);
      items.push(...batch);
      if (batch.length === 0 || (total !== undefined && items.length >= total)) return items;
      const link = nextLink(reply.headers);
      if (link !== undefined) {
        const next = this.#http.onApi(link, operation);
        if (visited.has(next.href)) throw this.#http.unexpected(operation, new Error(`The next-page link of ${next.pathname} repeats a page`));
        visited.add(next.href);
        call = { ...listing.call, target: next, query: undefined };
      } else if (listing.pagesWithoutLink && batch.length >= PER_PAGE) {
        call = { ...listing.call, query: { ...listing.call.query, per_page: String(PER_PAGE), page: String(page + 1) } };
      } else {
        return items;
      }
    }
  }

  private pageOf(link: string, current: number, operation: string): number {
    const next = Number(this.#http.onApi(link, operation).searchParams.get('page'));
    if (!Number.isInteger(next) || next <= current) throw this.#http.unexpected(operation, new Error(`Unusable next-page link (page ${current})`));
    return next;
  }

  /** Sends a call with its credential; an installation token GitHub refuses is replaced once. */
  private async request(call: Call): Promise<Reply> {
    const { auth } = call;
    if (auth.kind !== 'installation') {
      const credential = auth.kind === 'app' ? appJwt(this.#appId, this.#privateKey) : auth.kind === 'user' ? auth.token : undefined;
      return this.settle(call, await this.send(call, credential), credential);
    }
    const token = await this.#tokens.get(auth.installationId);
    const reply = await this.send(call, token);
    if (reply.status !== 401) return this.settle(call, reply, token);
    // Revoked on GitHub (or lapsed early): a fresh token decides whether the installation still works.
    this.#tokens.drop(auth.installationId, token);
    const fresh = await this.#tokens.get(auth.installationId);
    const retried = await this.send(call, fresh);
    if (retried.status === 401) this.#tokens.drop(auth.installationId, fresh);
    return this.settle(call, retried, fresh);
  }

  private async send(call: Call, credential: string | undefined): Promise<Reply> {
    const reply = await this.#http.send({
      method: call.method,
      url: this.#http.url(call.target, call.query),
      operation: call.operation,
      authorization: credential === undefined ? undefined : `Bearer ${credential}`,
      headers: {
        accept: call.accept ?? JSON_MEDIA_TYPE,
        'x-github-api-version': API_VERSION,
        // GitHub refuses requests without a User-Agent and asks apps to name themselves in it.
        'user-agent': this.#appSlug,
      },
      body: call.body === undefined ? undefined : { json: call.body },
      secrets: [...(credential === undefined ? [] : [credential]), this.#clientSecret, ...(call.secrets ?? [])],
    });
    return { ...reply, json: parseJson(reply.text) };
  }

  /** The reply when it succeeded or the caller takes its status; otherwise the failure it stands for. */
  private settle(call: Call, reply: Reply, credential: string | undefined): Reply {
    const path = typeof call.target === 'string' ? call.target : call.target.pathname;
    const secrets = [credential, this.#clientSecret, ...(call.secrets ?? [])];
    const upstreamMessage = redact(errorSchema.safeParse(reply.json).data?.message ?? '', secrets);
    const cause = new UpstreamRefusal(reply.status, `${call.method} ${path} answered ${reply.status}${upstreamMessage ? `: ${upstreamMessage}` : ''}`);
    const limit = rateLimit(reply, upstreamMessage);
    if (limit !== undefined) {
      logFailure(call, path, reply.status, upstreamMessage, 'rate-limited');
      throw new AppError('UPSTREAM_ERROR', `The git host's API rate limit was reached while ${call.operation}; ${limit}`, { cause });
    }
    if (isSuccess(reply.status) || call.tolerate?.includes(reply.status)) return reply;

    if (reply.status === 401) {
      logFailure(call, path, reply.status, upstreamMessage, 'credential');
      if (call.auth.kind === 'app') {
        throw new AppError('UPSTREAM_ERROR', `The git host refused the platform's app credentials while ${call.operation}`, { cause });
      }
      if (call.auth.kind === 'installation') throw installationGone(call.operation, cause);
      if (call.auth.kind === 'user')
        throw new AppError('GIT_CREDENTIAL_INVALID', 'The git host refused the user’s authorization: sign in to the git host again', { cause });
    }
    if ((reply.status === 404 || (reply.status === 403 && call.auth.kind === 'installation')) && call.subject !== undefined) {
      logFailure(call, path, reply.status, upstreamMessage, 'not-found');
      throw new AppError('NOT_FOUND', `${call.subject} not found${reply.status === 403 ? ' or not accessible to the installation' : ''}`, { cause });
    }
    logFailure(call, path, reply.status, upstreamMessage, 'upstream');
    const message =
      reply.status >= 500 || reply.status < 400
        ? `The git host failed while ${call.operation}`
        : `The git host refused the request while ${call.operation}${upstreamMessage ? `: ${upstreamMessage}` : ''}`;
    throw new AppError('UPSTREAM_ERROR', message, { cause });
  }
}

function installationAuth(credential: InstallationCredential): Auth {
  return { kind: 'installation', installationId: credential.installationId };
}

function contentsCall(credential: InstallationCredential, fullName: string, path: string, ref: string | undefined, operation: string): Call {
  const encoded = encodePath(path, 'Path', true);
  return {
    method: 'GET',
    target: `${repoPath(fullName)}/contents${encoded === '' ? '' : `/${encoded}`}`,
    auth: installationAuth(credential),
    operation,
    query: ref === undefined || ref === '' ? undefined : { ref },
    subject: 'Path',
  };
}

/** `/repos/{owner}/{repo}` for a full name of exactly those two parts. */
function repoPath(fullName: string): string {
  const parts = fullName.split('/');
  if (parts.length !== 2) throw new AppError('NOT_FOUND', 'Repository not found');
  return `/repos/${parts.map((part) => segment(part, 'Repository')).join('/')}`;
}

/** Each segment encoded; `.` and `..` refused, since URL parsing would climb out of the path with them. */
function encodePath(path: string, subject: string, allowEmpty = false): string {
  const segments = path.split('/').filter((part) => part !== '');
  if (segments.length === 0 && !allowEmpty) throw new AppError('NOT_FOUND', `${subject} not found`);
  return segments.map((part) => segment(part, subject)).join('/');
}

function segment(value: string, subject: string): string {
  if (value === '' || value === '.' || value === '..') throw new AppError('NOT_FOUND', `${subject} not found`);
  return encodeURIComponent(value);
}

function packagesRoot(account: Installation['account']): string {
  return `/${account.type === 'Organization' ? 'orgs' : 'users'}/${segment(account.login, 'Account')}`;
}

function toInstallation(installation: Installation): GitInstallation {
  return {
    installationId: String(installation.id),
    accountLogin: installation.account.login,
    accountType: installation.account.type === 'Organization' ? 'Organization' : 'User',
    createdAt: installation.created_at,
    suspended: installation.suspended_at !== null && installation.suspended_at !== undefined,
  };
}

function toRepository(repository: Repository): GitRepository {
  const pushedAt = repository.pushed_at ?? null;
  return {
    fullName: repository.full_name,
    name: repository.name,
    owner: repository.owner.login,
    private: repository.private,
    defaultBranch: repository.default_branch,
    description: repository.description,
    // ISO 8601 in UTC compares as text.
    updatedAt: pushedAt !== null && pushedAt > repository.updated_at ? pushedAt : repository.updated_at,
    webUrl: repository.html_url,
  };
}

function toContentEntry(entry: ContentEntry): GitContentEntry {
  // Directory listings call a submodule a `file` (GitHub keeps that for compatibility); unlike a
  // file, it has nothing to download.
  const type = entry.type === 'file' && entry.download_url === null ? 'submodule' : entry.type;
  return { name: entry.name, path: entry.path.replace(/^\/+/, ''), type, size: type === 'file' ? entry.size : null };
}

/** A 404 from the contents endpoint: the ref, or else the path (or repository). */
function missingContent(reply: Reply, subject: 'Directory' | 'File'): AppError {
  return new AppError('NOT_FOUND', isMissingRef(reply) ? 'Ref not found' : `${subject} not found`);
}

function isMissingRef(reply: Reply): boolean {
  return errorSchema.safeParse(reply.json).data?.message?.startsWith('No commit found for the ref') ?? false;
}

function installationGone(operation: string, cause?: Error): AppError {
  return new AppError(
    'GIT_CREDENTIAL_INVALID',
    `The git host refused the installation while ${operation}: the app was uninstalled, suspended or lost access; connect the account again`,
    { cause },
  );
}

/** When a refusal is GitHub's rate limit (primary or secondary), what to tell the caller about waiting. */
function rateLimit(reply: Reply, message: string): string | undefined {
  const { status, headers } = reply;
  const exhausted = headers.get('x-ratelimit-remaining') === '0';
  const retryAfter = headers.get('retry-after');
  if (status !== 429 && !(status === 403 && (exhausted || retryAfter !== null || /rate limit/i.test(message)))) return undefined;
  if (retryAfter !== null && /^\d+$/.test(retryAfter)) return `try again in ${retryAfter} seconds`;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (exhausted && Number.isInteger(reset) && reset > 0) return `try again after ${new Date(reset * 1000).toISOString()}`;
  return 'try again in a minute';
}

/** The `rel="next"` target of a `Link` header. */
function nextLink(headers: Headers): string | undefined {
  const header = headers.get('link');
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]*)>\s*;\s*rel="?([^";]+)"?/g)) {
    if (match[2]!.split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}

/** What a failure tells the operator: the request and GitHub's message, never a credential. */
function logFailure(call: Call, path: string, status: number | null, upstreamMessage: string | undefined, outcome: string): void {
  const entry = { provider: 'github', method: call.method, path, status, upstreamMessage, outcome };
  if (outcome === 'upstream' || outcome === 'rate-limited') getLogger().warn(entry, `Git host failed while ${call.operation}`);
  else getLogger().info(entry, `Git host refused ${call.operation}`);
}

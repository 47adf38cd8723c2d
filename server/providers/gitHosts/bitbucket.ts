import { deploymentCopyName } from './deploymentCopyName';
import { asPlatform, platformRefusal } from './deploymentCredential';
import { z } from 'zod';
import { AppError, invalidField } from '../../platform/errors';
import { isSuccess, parseJson, UpstreamClient, type UpstreamCall, type UpstreamMethod } from '../upstreamHttp';
import { gitMirror, type MirrorRepository } from './gitMirror';
import {
  BRANCHES_PER_PAGE,
  type DeploymentCopyReader,
  type GitAccount,
  type GitBranchPage,
  type GitCommit,
  type GitContentEntry,
  type GitRepository,
  type GitTokenSet,
  type OAuthGitHostProvider,
} from './types';

export interface BitbucketOptions {
  /** `https://api.bitbucket.org/2.0` in production; a loopback fake in tests. */
  apiUrl: string;
  /** `https://bitbucket.org`: the consent page and the token endpoint live there, not under the API. */
  webUrl: string;
  clientId: string;
  clientSecret: string;
  /** The platform's private workspace that deployment copies are made in. */
  deployWorkspace: string;
  /** The platform's access token for that workspace: it makes, writes and reads the copies. */
  deployToken: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs: number;
  /** Brings a copy in step with its source; git over the web URL's protocol unless given. */
  mirror?: MirrorRepository;
}

const HOST = 'git-host-2';
const LABEL = 'Git host 2';
/** Bitbucket's git endpoint takes OAuth and access tokens as the password of this user. */
const TOKEN_USERNAME = 'x-token-auth';
/** Bitbucket's largest page for repositories, directory listings and refs. */
const PAGE_LENGTH = 100;

const errorBodySchema = z.looseObject({
  error: z.union([z.string(), z.looseObject({ message: z.string().optional(), fields: z.unknown().optional() })]).optional(),
  error_description: z.string().optional(),
});

const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().positive().optional(),
  scopes: z.string().optional(),
});

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date');

const repositorySchema = z.looseObject({
  full_name: z.string().regex(/^[^/]+\/[^/]+$/),
  is_private: z.boolean(),
  description: z.string().nullish(),
  updated_on: isoDate,
  mainbranch: z.looseObject({ name: z.string().min(1) }).nullish(),
  links: z.looseObject({ html: z.looseObject({ href: z.string() }) }),
});
type BitbucketRepository = z.output<typeof repositorySchema>;

const pageSchema = z.looseObject({ values: z.array(z.unknown()), next: z.string().optional() });

const sourceEntrySchema = z.looseObject({
  type: z.enum(['commit_directory', 'commit_file']),
  path: z.string().min(1),
  size: z.number().int().nonnegative().optional(),
  attributes: z.array(z.string()).optional(),
});
/** A directory as `src` lists it; a file's own bytes never look like this. */
const listingSchema = z.looseObject({ pagelen: z.number(), values: z.array(sourceEntrySchema), next: z.string().optional() });
const metaSchema = z.looseObject({ type: z.string() });

const commitSchema = z.looseObject({
  hash: z.string().min(1),
  message: z.string().default(''),
  author: z.looseObject({ raw: z.string().optional(), user: z.looseObject({ display_name: z.string().optional() }).optional() }).optional(),
});
const refSchema = z.looseObject({ name: z.string(), target: commitSchema });
const userSchema = z.looseObject({ username: z.string().optional(), nickname: z.string().optional(), display_name: z.string().nullish() });
const hookSchema = z.looseObject({ uuid: z.string().min(1) });

interface RepositoryRef {
  fullName: string;
  /** `/repositories/{workspace}/{slug}`, each segment encoded. */
  path: string;
}

/**
 * The production adapter of git host 2 on Bitbucket Cloud's API 2.0, acting with each project's
 * OAuth access token, and in the deployment workspace with the platform's own access token (the
 * customer is no member there). Every answer is checked against the shape used, so an API that changes
 * fails one request with UPSTREAM_ERROR instead of handing malformed data on. Tokens never reach
 * a message, a cause or a log line.
 */
export class BitbucketProvider implements OAuthGitHostProvider {
  readonly host = HOST;
  readonly kind = 'bitbucket' as const;
  readonly description = 'Bitbucket Cloud (API 2.0), reached with each project’s OAuth grant';
  readonly #http: UpstreamClient;
  readonly #web: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #deployWorkspace: string;
  readonly #deployToken: string;
  readonly #mirror: MirrorRepository;

  readonly deploymentCopies: DeploymentCopyReader = {
    listContents: async (copy, path, ref) => asPlatform(LABEL, this.listContents(this.#deployToken, this.copyInWorkspace(copy), path, ref)),
    readFile: async (copy, path, ref) => asPlatform(LABEL, this.readFile(this.#deployToken, this.copyInWorkspace(copy), path, ref)),
  };

  constructor(options: BitbucketOptions) {
    this.#http = new UpstreamClient({
      label: LABEL,
      logFields: { provider: 'bitbucket', host: HOST },
      apiUrl: options.apiUrl,
      timeoutMs: options.timeoutMs,
      credentialInvalidCode: 'GIT_CREDENTIAL_INVALID',
      upstreamMessage,
      refusals: {
        unauthorized: (operation) => `${LABEL} refused the connection's access token (expired or revoked) while ${operation}: connect again`,
        forbidden: (operation) => ({ code: 'NOT_FOUND', message: `The connected ${LABEL} account is not allowed to do this (${operation})` }),
      },
    });
    this.#web = options.webUrl.replace(/\/+$/, '');
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#deployWorkspace = options.deployWorkspace;
    this.#deployToken = options.deployToken;
    this.#mirror = options.mirror ?? gitMirror({ label: LABEL, protocols: [new URL(this.#web).protocol.replace(/:$/, '')] });
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL(`${this.#web}/site/oauth2/authorize`);
    url.searchParams.set('client_id', this.#clientId);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('state', state);
    url.searchParams.set('redirect_uri', redirectUri);
    return url.toString();
  }

  exchangeCode(code: string, redirectUri: string): Promise<GitTokenSet> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    return this.token(form, 'exchanging the authorization code', [code], null);
  }

  refresh(refreshToken: string): Promise<GitTokenSet> {
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
    return this.token(form, 'refreshing the access token', [refreshToken], refreshToken);
  }

  async currentAccount(accessToken: string): Promise<GitAccount> {
    const operation = 'reading the connected account';
    const user = await this.#http.json(this.call(accessToken, 'GET', '/user', operation), userSchema);
    const login = user.username ?? user.nickname;
    if (!login) throw this.#http.unexpected(operation, new Error('/user answered without a username or nickname'));
    return { login, displayName: user.display_name || null };
  }

  /** Bitbucket has no endpoint that withdraws a grant: the user removes it in their settings, and the access token lapses within two hours. */
  async revoke(_accessToken: string): Promise<void> {}

  async listRepositories(accessToken: string): Promise<GitRepository[]> {
    const operation = 'listing repositories';
    const url = this.#http.url('/repositories', { role: 'member', sort: '-updated_on', pagelen: String(PAGE_LENGTH) });
    const repositories = await this.collect(accessToken, url, operation, repositorySchema);
    return repositories.map(toRepository);
  }

  async getRepository(accessToken: string, fullName: string): Promise<GitRepository> {
    return toRepository(await this.repository(accessToken, repositoryRef(fullName)));
  }

  async listContents(accessToken: string, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]> {
    const repo = repositoryRef(fullName);
    const dir = repositoryPath(path);
    const operation = 'listing a directory';
    const revision = await this.revision(accessToken, repo, ref);
    if (revision === null) {
      if (dir === '') return [];
      throw new AppError('NOT_FOUND', `Directory ${dir} not found in ${repo.fullName}`);
    }
    const subject = dir === '' ? `Revision ${ref ?? revision} of ${repo.fullName}` : `Directory ${dir} in ${repo.fullName}`;
    const first = this.#http.url(`${repo.path}/src/${encodeURIComponent(revision)}/${dir === '' ? '' : `${encodePath(dir)}/`}`, {
      pagelen: String(PAGE_LENGTH),
    });
    const entries = await this.#http.collect(this.call(accessToken, 'GET', first, operation, subject), sourceEntrySchema, async (body) => {
      const listing = listingSchema.safeParse(body);
      // `src` answers a file's own bytes when the path names one.
      if (!listing.success) return this.refuseFile(accessToken, repo, revision, dir, operation, listing.error);
      return { items: listing.data.values, next: listing.data.next };
    });
    return entries.map(toEntry);
  }

  async readFile(accessToken: string, fullName: string, path: string, ref?: string): Promise<string | null> {
    const repo = repositoryRef(fullName);
    const file = repositoryPath(path);
    if (file === '') return null;
    const operation = 'reading a file';
    const revision = await this.revision(accessToken, repo, ref);
    if (revision === null) return null;
    const call = this.call(accessToken, 'GET', `${repo.path}/src/${encodeURIComponent(revision)}/${encodePath(file)}`, operation);
    const reply = await this.#http.send(call);
    if (reply.status === 404) {
      // The same 404 says the repository or revision is gone: only a reachable revision makes it "no such file".
      await this.commit(accessToken, repo, revision, operation);
      return null;
    }
    if (reply.status !== 200) throw this.#http.refusal(call, reply);
    return listingSchema.safeParse(parseJson(reply.text)).success ? null : reply.text;
  }

  async listBranches(accessToken: string, fullName: string, page: number): Promise<GitBranchPage> {
    if (!Number.isInteger(page) || page < 1) throw invalidField('page', 'must be a whole number from 1');
    const repo = repositoryRef(fullName);
    const operation = 'listing branches';
    const url = this.#http.url(`${repo.path}/refs/branches`, { pagelen: String(BRANCHES_PER_PAGE), page: String(page) });
    const body = await this.#http.json(this.call(accessToken, 'GET', url, operation, `Repository ${repo.fullName}`), pageSchema);
    const branches = this.#http.parse(z.array(refSchema), body.values, operation).map((branch) => ({ name: branch.name, commitSha: branch.target.hash }));
    return { branches, page, nextPage: body.next ? page + 1 : null };
  }

  async headCommit(accessToken: string, fullName: string, branch: string): Promise<GitCommit> {
    const repo = repositoryRef(fullName);
    const revision = await this.revision(accessToken, repo, branch);
    if (revision === null) throw new AppError('NOT_FOUND', `Branch ${branch} not found in ${repo.fullName}`);
    const commit = await this.commit(accessToken, repo, revision, 'reading a branch head', `Branch ${branch} of ${repo.fullName}`);
    return { sha: commit.hash, message: commit.message.trimEnd(), author: authorOf(commit) };
  }

  async createWebhook(accessToken: string, fullName: string, hook: { url: string; secret: string }): Promise<{ hookId: string }> {
    const repo = repositoryRef(fullName);
    const call: UpstreamCall = {
      ...this.call(accessToken, 'POST', `${repo.path}/hooks`, 'creating a webhook', `Repository ${repo.fullName}`),
      body: { json: { description: 'Platform deployments', url: hook.url, active: true, secret: hook.secret, events: ['repo:push'] } },
      secrets: [accessToken, hook.secret],
    };
    return { hookId: (await this.#http.json(call, hookSchema)).uuid };
  }

  async deleteWebhook(accessToken: string, fullName: string, hookId: string): Promise<void> {
    const repo = repositoryRef(fullName);
    const call = this.call(accessToken, 'DELETE', `${repo.path}/hooks/${encodeURIComponent(hookId)}`, 'deleting a webhook');
    const reply = await this.#http.send(call);
    if (reply.status === 404 || isSuccess(reply.status)) return;
    throw this.#http.refusal(call, reply);
  }

  /** The customer's token reads the source; the platform's token makes the copy and pushes to it. */
  async copyToDeploymentOrganisation(accessToken: string, fullName: string): Promise<{ fullName: string }> {
    const source = await this.repository(accessToken, repositoryRef(fullName));
    const copy = await this.deploymentCopy(deploymentCopyName(source.full_name));
    await this.#mirror(
      { url: this.cloneUrl(source.full_name), credential: { username: TOKEN_USERNAME, token: accessToken }, name: source.full_name },
      { url: this.cloneUrl(copy.full_name), credential: { username: TOKEN_USERNAME, token: this.#deployToken }, name: copy.full_name },
    );
    return { fullName: copy.full_name };
  }

  /** The private repository holding the copy: the one made earlier, or a new empty one. */
  private async deploymentCopy(name: string): Promise<BitbucketRepository> {
    const repo = repositoryRef(`${this.#deployWorkspace}/${name}`);
    const existing = await this.existingCopy(repo);
    if (existing) return existing;
    const create: UpstreamCall = {
      ...this.call(this.#deployToken, 'POST', repo.path, 'making the deployment copy'),
      body: { json: { scm: 'git', is_private: true } },
    };
    const reply = await this.#http.send(create);
    if (isSuccess(reply.status)) return privateCopy(this.#http.parse(repositorySchema, parseJson(reply.text), create.operation));
    if (reply.status === 400 && /already exists/i.test(reply.text)) {
      // Another build of the same source made it meanwhile: the name is derived from the source alone.
      const raced = await this.existingCopy(repo);
      if (raced) return raced;
    }
    throw platformRefusal(LABEL, create.operation, this.#http.refusal(create, reply));
  }

  private async existingCopy(repo: RepositoryRef): Promise<BitbucketRepository | null> {
    const call = this.call(this.#deployToken, 'GET', repo.path, 'reading the deployment copy');
    const reply = await this.#http.send(call);
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw platformRefusal(LABEL, call.operation, this.#http.refusal(call, reply));
    return privateCopy(this.#http.parse(repositorySchema, parseJson(reply.text), call.operation));
  }

  /** Where git reaches a repository: the web origin, whatever the API answers, so a token goes nowhere else. */
  private cloneUrl(fullName: string): string {
    return `${this.#web}/${encodePath(fullName)}.git`;
  }

  /** The platform's token reads nothing outside its deployment workspace. */
  private copyInWorkspace(copy: string): string {
    if (repositoryRef(copy).fullName.split('/')[0]!.toLowerCase() !== this.#deployWorkspace.toLowerCase()) {
      throw new AppError('NOT_FOUND', `Deployment copy ${copy} not found on ${LABEL}`);
    }
    return copy;
  }

  private async token(form: URLSearchParams, operation: string, secrets: string[], previousRefreshToken: string | null): Promise<GitTokenSet> {
    const call: UpstreamCall = {
      method: 'POST',
      url: new URL(`${this.#web}/site/oauth2/access_token`),
      authorization: `Basic ${Buffer.from(`${this.#clientId}:${this.#clientSecret}`).toString('base64')}`,
      operation,
      body: { form },
      secrets: [...secrets, this.#clientSecret],
    };
    const reply = await this.#http.send(call);
    if (reply.status === 400 || reply.status === 401) {
      const error = errorBodySchema.safeParse(parseJson(reply.text));
      const code = error.success && typeof error.data.error === 'string' ? error.data.error : '';
      this.#http.logFailure(call, reply.status, `oauth error ${code || 'unnamed'}`);
      if (code === 'invalid_client' || code === 'unauthorized_client') {
        throw new AppError('UPSTREAM_ERROR', `${LABEL} refused the platform's OAuth consumer while ${operation}; check its key and secret`);
      }
      throw new AppError('GIT_CREDENTIAL_INVALID', `${LABEL} refused the authorization (invalid, expired, reused or revoked): connect again`);
    }
    if (reply.status !== 200) throw this.#http.refusal(call, reply);
    const token = this.#http.parse(tokenSchema, parseJson(reply.text), operation);
    return {
      accessToken: token.access_token,
      // Bitbucket's refresh tokens outlive refreshes; an answer without one keeps the one in use.
      refreshToken: token.refresh_token ?? previousRefreshToken,
      expiresAt: token.expires_in === undefined ? null : new Date(Date.now() + token.expires_in * 1000).toISOString(),
      scopes: (token.scopes ?? '').split(/\s+/).filter(Boolean),
    };
  }

  private repository(accessToken: string, repo: RepositoryRef): Promise<BitbucketRepository> {
    return this.#http.json(this.call(accessToken, 'GET', repo.path, 'reading a repository', `Repository ${repo.fullName}`), repositorySchema);
  }

  /**
   * What `src` and `commit` take for `ref`: the main branch when absent (null for an empty
   * repository), the name itself, or for a name with a slash its commit hash. Bitbucket reads a
   * slash in that segment as a path separator, encoded or not.
   */
  private async revision(accessToken: string, repo: RepositoryRef, ref: string | undefined): Promise<string | null> {
    const name = ref || (await this.repository(accessToken, repo)).mainbranch?.name;
    if (!name) return null;
    if (!name.includes('/')) return name;
    const operation = 'resolving a branch or tag';
    const url = this.#http.url(`${repo.path}/refs`, { q: `name = "${name.replace(/["\\]/g, '\\$&')}"` });
    const body = await this.#http.json(this.call(accessToken, 'GET', url, operation, `Repository ${repo.fullName}`), pageSchema);
    const match = this.#http.parse(z.array(refSchema), body.values, operation).find((candidate) => candidate.name === name);
    if (!match) throw new AppError('NOT_FOUND', `Branch or tag ${name} not found in ${repo.fullName}`);
    return match.target.hash;
  }

  private commit(accessToken: string, repo: RepositoryRef, revision: string, operation: string, subject?: string): Promise<z.output<typeof commitSchema>> {
    const path = `${repo.path}/commit/${encodeURIComponent(revision)}`;
    return this.#http.json(this.call(accessToken, 'GET', path, operation, subject ?? `Revision ${revision} of ${repo.fullName}`), commitSchema);
  }

  /** Throws NOT_FOUND when `path` is a file; UPSTREAM_ERROR when it is a directory whose listing could not be read. */
  private async refuseFile(accessToken: string, repo: RepositoryRef, revision: string, path: string, operation: string, cause: unknown): Promise<never> {
    const url = this.#http.url(`${repo.path}/src/${encodeURIComponent(revision)}/${encodePath(path)}`, { format: 'meta' });
    const meta = await this.#http.json(this.call(accessToken, 'GET', url, operation, `Path ${path} in ${repo.fullName}`), metaSchema);
    if (meta.type === 'commit_file') throw new AppError('NOT_FOUND', `${path} in ${repo.fullName} is a file, not a directory`);
    throw this.#http.unexpected(operation, cause);
  }

  /** Every item of a listing, following `next` links. */
  private collect<S extends z.ZodType>(accessToken: string, first: URL, operation: string, item: S): Promise<z.output<S>[]> {
    return this.#http.collect(this.call(accessToken, 'GET', first, operation), item, (body) => {
      const page = this.#http.parse(pageSchema, body, operation);
      return { items: page.values, next: page.next };
    });
  }

  /** A call carrying the connection's access token, to a path below the API or a URL it linked. */
  private call(accessToken: string, method: UpstreamMethod, target: string | URL, operation: string, subject?: string): UpstreamCall {
    return { method, url: this.#http.url(target), authorization: `Bearer ${accessToken}`, operation, subject, secrets: [accessToken] };
  }
}

/** A copy anyone could read would publish the customer's code: the platform builds only from private ones. */
function privateCopy(repository: BitbucketRepository): BitbucketRepository {
  if (!repository.is_private) {
    throw new AppError('UPSTREAM_ERROR', `The deployment copy ${repository.full_name} on ${LABEL} is public; the platform builds only from private copies`);
  }
  return repository;
}

function toRepository(repository: BitbucketRepository): GitRepository {
  const [owner, name] = repository.full_name.split('/') as [string, string];
  return {
    fullName: repository.full_name,
    name,
    owner,
    private: repository.is_private,
    // An empty repository has no main branch yet; Bitbucket names the first one `main`.
    defaultBranch: repository.mainbranch?.name ?? 'main',
    description: repository.description || null,
    updatedAt: new Date(repository.updated_on).toISOString(),
    webUrl: repository.links.html.href,
  };
}

function toEntry(entry: z.output<typeof sourceEntrySchema>): GitContentEntry {
  const name = entry.path.split('/').at(-1)!;
  if (entry.type === 'commit_directory') return { name, path: entry.path, type: 'dir', size: null };
  const attributes = entry.attributes ?? [];
  if (attributes.includes('subrepository')) return { name, path: entry.path, type: 'submodule', size: null };
  if (attributes.includes('link')) return { name, path: entry.path, type: 'symlink', size: null };
  return { name, path: entry.path, type: 'file', size: entry.size ?? null };
}

function authorOf(commit: z.output<typeof commitSchema>): string {
  const raw = commit.author?.raw?.replace(/\s*<[^>]*>\s*$/, '').trim();
  return commit.author?.user?.display_name || raw || '';
}

/** `workspace/slug`, or NOT_FOUND: nothing else names a Bitbucket repository. */
function repositoryRef(fullName: string): RepositoryRef {
  const segments = fullName.split('/');
  if (segments.length !== 2 || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new AppError('NOT_FOUND', `Repository ${fullName} not found on ${LABEL}`);
  }
  return { fullName, path: `/repositories/${segments.map(encodeURIComponent).join('/')}` };
}

/**
 * A path inside the repository without leading or trailing slashes. Dot segments are refused: URL
 * parsing would resolve them and send the token to another endpoint of the API.
 */
function repositoryPath(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) throw new AppError('NOT_FOUND', `Path ${path} not found`);
  return trimmed;
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** Bitbucket's `{ type: 'error', error: { message } }`, or OAuth's `{ error, error_description }`. */
function upstreamMessage(text: string): string {
  const body = errorBodySchema.safeParse(parseJson(text));
  if (!body.success) return '';
  const { error, error_description: description } = body.data;
  return [typeof error === 'string' ? error : error?.message, description].filter(Boolean).join(': ');
}

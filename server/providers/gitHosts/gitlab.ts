import { deploymentCopyName } from './deploymentCopyName';
import { asPlatform, platformRefusal } from './deploymentCredential';
import { z } from 'zod';
import { AppError, invalidField } from '../../platform/errors';
import { isSuccess, parseJson, UpstreamClient, type UpstreamCall, type UpstreamMethod, type UpstreamReply } from '../upstreamHttp';
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

export interface GitLabOptions {
  /** The instance, `https://gitlab.com` in production; the API is below `/api/v4`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The platform's private group (full path) that deployment copies are made in. */
  deployGroup: string;
  /** The platform's access token for that group (a group access token): it makes, writes and reads the copies. */
  deployToken: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs: number;
  /** Brings a copy in step with its source; git over the instance's protocol unless given. */
  mirror?: MirrorRepository;
}

const HOST = 'git-host-3';
const LABEL = 'Git host 3';
/** SPEC: host 3 asks for API and read_repository access. */
export const GITLAB_OAUTH_SCOPES = ['api', 'read_repository'];
/** GitLab's git endpoint takes OAuth tokens as the password of this user, and access tokens with any. */
const TOKEN_USERNAME = 'oauth2';
/** GitLab's largest page. */
const PER_PAGE = 100;
/** Git mode of a symbolic link in a tree. */
const SYMLINK_MODE = '120000';

const errorBodySchema = z.looseObject({ message: z.unknown().optional(), error: z.string().optional(), error_description: z.string().optional() });

const tokenSchema = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().positive().optional(),
  scope: z.string().optional(),
});

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date');

const projectSchema = z.looseObject({
  id: z.number().int(),
  path: z.string().min(1),
  path_with_namespace: z.string().includes('/'),
  namespace: z.looseObject({ full_path: z.string().min(1) }),
  visibility: z.enum(['private', 'internal', 'public']),
  default_branch: z.string().nullish(),
  description: z.string().nullish(),
  last_activity_at: isoDate,
  web_url: z.string(),
});
type GitLabProject = z.output<typeof projectSchema>;

const treeEntrySchema = z.looseObject({ name: z.string(), path: z.string(), type: z.enum(['tree', 'blob', 'commit']), mode: z.string() });
const commitSchema = z.looseObject({ id: z.string().min(1), message: z.string().default(''), author_name: z.string().default('') });
const branchSchema = z.looseObject({ name: z.string(), commit: commitSchema });
const userSchema = z.looseObject({ username: z.string().min(1), name: z.string().nullish() });
const hookSchema = z.looseObject({ id: z.number().int() });
const groupSchema = z.looseObject({ id: z.number().int() });

interface ProjectRef {
  fullName: string;
  /** `/projects/<id>`: the full path, nested groups included, encoded once as one segment. */
  path: string;
}

/**
 * The production adapter of git host 3 on GitLab's API v4 (gitlab.com or a self-managed
 * instance), acting with each project's OAuth access token, and in the deployment group with the
 * platform's own access token (the customer is no member there). Every answer is checked against the
 * shape used, so an API that changes fails one request with UPSTREAM_ERROR instead of handing
 * malformed data on. Tokens never reach a message, a cause or a log line.
 */
export class GitLabProvider implements OAuthGitHostProvider {
  readonly host = HOST;
  readonly kind = 'gitlab' as const;
  readonly description = 'GitLab (API v4), reached with each project’s OAuth grant';
  readonly #http: UpstreamClient;
  readonly #base: string;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #deployGroup: string;
  readonly #deployToken: string;
  readonly #mirror: MirrorRepository;

  readonly deploymentCopies: DeploymentCopyReader = {
    listContents: async (copy, path, ref) => asPlatform(LABEL, this.listContents(this.#deployToken, this.copyInGroup(copy), path, ref)),
    readFile: async (copy, path, ref) => asPlatform(LABEL, this.readFile(this.#deployToken, this.copyInGroup(copy), path, ref)),
  };

  constructor(options: GitLabOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#http = new UpstreamClient({
      label: LABEL,
      logFields: { provider: 'gitlab', host: HOST },
      apiUrl: `${this.#base}/api/v4`,
      timeoutMs: options.timeoutMs,
      credentialInvalidCode: 'GIT_CREDENTIAL_INVALID',
      upstreamMessage,
      refusals: {
        unauthorized: (operation) => `${LABEL} refused the connection's access token (expired or revoked) while ${operation}: connect again`,
        // A token without the scopes asked for is a grant to renew; anything else is the account's permissions.
        forbidden: (operation, reply) =>
          /insufficient_scope/.test(reply.text)
            ? { code: 'GIT_CREDENTIAL_INVALID', message: `${LABEL}'s grant lacks the access needed for ${operation}: connect again` }
            : { code: 'NOT_FOUND', message: `The connected ${LABEL} account is not allowed to do this (${operation})` },
      },
    });
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#deployGroup = options.deployGroup.replace(/^\/+|\/+$/g, '');
    this.#deployToken = options.deployToken;
    this.#mirror = options.mirror ?? gitMirror({ label: LABEL, protocols: [new URL(this.#base).protocol.replace(/:$/, '')] });
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL(`${this.#base}/oauth/authorize`);
    url.searchParams.set('client_id', this.#clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('state', state);
    url.searchParams.set('scope', GITLAB_OAUTH_SCOPES.join(' '));
    return url.toString();
  }

  exchangeCode(code: string, redirectUri: string): Promise<GitTokenSet> {
    return this.token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, 'exchanging the authorization code', [code]);
  }

  refresh(refreshToken: string): Promise<GitTokenSet> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'refreshing the access token', [refreshToken]);
  }

  async currentAccount(accessToken: string): Promise<GitAccount> {
    const user = await this.#http.json(this.call(accessToken, 'GET', this.#http.url('/user'), 'reading the connected account'), userSchema);
    return { login: user.username, displayName: user.name || null };
  }

  /** RFC 7009: GitLab answers 200 for a token it no longer knows, so a grant already gone succeeds too. */
  async revoke(accessToken: string): Promise<void> {
    const call: UpstreamCall = {
      method: 'POST',
      url: new URL(`${this.#base}/oauth/revoke`),
      operation: 'revoking the grant',
      body: { form: new URLSearchParams({ client_id: this.#clientId, client_secret: this.#clientSecret, token: accessToken }) },
      secrets: [accessToken, this.#clientSecret],
    };
    const reply = await this.#http.send(call);
    if (reply.status === 200) return;
    if (reply.status === 400 || reply.status === 401 || reply.status === 403) throw this.clientRefused(call, reply);
    throw this.#http.refusal(call, reply);
  }

  async listRepositories(accessToken: string): Promise<GitRepository[]> {
    const url = this.#http.url('/projects', { membership: 'true', order_by: 'last_activity_at', per_page: String(PER_PAGE) });
    const projects = await this.collect(this.call(accessToken, 'GET', url, 'listing projects'), projectSchema);
    return projects.map(toRepository);
  }

  async getRepository(accessToken: string, fullName: string): Promise<GitRepository> {
    return toRepository(await this.project(accessToken, projectRef(fullName)));
  }

  async listContents(accessToken: string, fullName: string, path: string, ref?: string): Promise<GitContentEntry[]> {
    const project = projectRef(fullName);
    const dir = repositoryPath(path);
    const revision = ref || (await this.project(accessToken, project)).default_branch;
    if (!revision) {
      if (dir === '') return [];
      throw new AppError('NOT_FOUND', `Directory ${dir} not found in ${project.fullName}`);
    }
    const query: Record<string, string> = { ref: revision, per_page: String(PER_PAGE) };
    if (dir !== '') query.path = dir;
    const subject = dir === '' ? `Revision ${revision} of ${project.fullName}` : `Directory ${dir} in ${project.fullName}`;
    const url = this.#http.url(`${project.path}/repository/tree`, query);
    const entries = await this.collect(this.call(accessToken, 'GET', url, 'listing a directory', subject), treeEntrySchema);
    // Git keeps no empty directories, so an empty listing below the root names no directory (GitLab
    // releases before 16.5 answered a file's path, or a missing one, that way instead of 404).
    if (dir !== '' && entries.length === 0) throw new AppError('NOT_FOUND', `Directory ${dir} not found in ${project.fullName}`);
    return entries.map(toEntry);
  }

  async readFile(accessToken: string, fullName: string, path: string, ref?: string): Promise<string | null> {
    const project = projectRef(fullName);
    const file = repositoryPath(path);
    if (file === '') return null;
    const revision = ref || (await this.project(accessToken, project)).default_branch;
    if (!revision) return null;
    const url = this.#http.url(`${project.path}/repository/files/${encodeURIComponent(file)}/raw`, { ref: revision });
    const call = this.call(accessToken, 'GET', url, 'reading a file', `Project ${project.fullName}`);
    const reply = await this.#http.send(call);
    if (reply.status === 200) return reply.text;
    // GitLab says which thing is missing: only a missing file (or a directory's path) is "no file".
    if (reply.status === 404 && /file not found/i.test(upstreamMessage(reply.text))) return null;
    throw this.#http.refusal(call, reply);
  }

  async listBranches(accessToken: string, fullName: string, page: number): Promise<GitBranchPage> {
    if (!Number.isInteger(page) || page < 1) throw invalidField('page', 'must be a whole number from 1');
    const project = projectRef(fullName);
    const operation = 'listing branches';
    const url = this.#http.url(`${project.path}/repository/branches`, { per_page: String(BRANCHES_PER_PAGE), page: String(page) });
    const call = this.call(accessToken, 'GET', url, operation, `Project ${project.fullName}`);
    const reply = await this.#http.send(call);
    if (reply.status !== 200) throw this.#http.refusal(call, reply);
    const branches = this.#http
      .parse(z.array(branchSchema), parseJson(reply.text), operation)
      .map((branch) => ({ name: branch.name, commitSha: branch.commit.id }));
    return { branches, page, nextPage: nextPageNumber(reply.headers, page) };
  }

  async headCommit(accessToken: string, fullName: string, branch: string): Promise<GitCommit> {
    const project = projectRef(fullName);
    const url = this.#http.url(`${project.path}/repository/branches/${encodeURIComponent(branch)}`);
    const found = await this.#http.json(this.call(accessToken, 'GET', url, 'reading a branch head', `Branch ${branch} of ${project.fullName}`), branchSchema);
    return { sha: found.commit.id, message: found.commit.message.trimEnd(), author: found.commit.author_name };
  }

  async createWebhook(accessToken: string, fullName: string, hook: { url: string; secret: string }): Promise<{ hookId: string }> {
    const project = projectRef(fullName);
    const call: UpstreamCall = {
      ...this.call(accessToken, 'POST', this.#http.url(`${project.path}/hooks`), 'creating a webhook', `Project ${project.fullName}`),
      body: { json: { url: hook.url, token: hook.secret, push_events: true, enable_ssl_verification: true } },
      secrets: [accessToken, hook.secret],
    };
    return { hookId: String((await this.#http.json(call, hookSchema)).id) };
  }

  async deleteWebhook(accessToken: string, fullName: string, hookId: string): Promise<void> {
    const project = projectRef(fullName);
    const call = this.call(accessToken, 'DELETE', this.#http.url(`${project.path}/hooks/${encodeURIComponent(hookId)}`), 'deleting a webhook');
    const reply = await this.#http.send(call);
    if (reply.status === 404 || isSuccess(reply.status)) return;
    throw this.#http.refusal(call, reply);
  }

  /** The customer's token reads the source; the platform's token makes the copy and pushes to it. */
  async copyToDeploymentOrganisation(accessToken: string, fullName: string): Promise<{ fullName: string }> {
    const source = await this.project(accessToken, projectRef(fullName));
    const copy = await this.deploymentCopy(deploymentCopyName(source.path_with_namespace));
    await this.#mirror(
      { url: this.cloneUrl(source.path_with_namespace), credential: { username: TOKEN_USERNAME, token: accessToken }, name: source.path_with_namespace },
      { url: this.cloneUrl(copy.path_with_namespace), credential: { username: TOKEN_USERNAME, token: this.#deployToken }, name: copy.path_with_namespace },
    );
    return { fullName: copy.path_with_namespace };
  }

  /** The private project holding the copy: the one made earlier, or a new empty one in the deployment group. */
  private async deploymentCopy(path: string): Promise<GitLabProject> {
    const project = projectRef(`${this.#deployGroup}/${path}`);
    const existing = await this.existingCopy(project);
    if (existing) return existing;
    const create: UpstreamCall = {
      ...this.call(this.#deployToken, 'POST', this.#http.url('/projects'), 'making the deployment copy'),
      body: { json: { name: path, path, namespace_id: await this.deployGroupId(), visibility: 'private' } },
    };
    const reply = await this.#http.send(create);
    if (isSuccess(reply.status)) return privateCopy(this.#http.parse(projectSchema, parseJson(reply.text), create.operation));
    if (reply.status === 400 && /already been taken/i.test(reply.text)) {
      // Another build of the same source made it meanwhile: the path is derived from the source alone.
      const raced = await this.existingCopy(project);
      if (raced) return raced;
    }
    throw platformRefusal(LABEL, create.operation, this.#http.refusal(create, reply));
  }

  private async existingCopy(project: ProjectRef): Promise<GitLabProject | null> {
    const call = this.call(this.#deployToken, 'GET', this.#http.url(project.path), 'reading the deployment copy');
    const reply = await this.#http.send(call);
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw platformRefusal(LABEL, call.operation, this.#http.refusal(call, reply));
    return privateCopy(this.#http.parse(projectSchema, parseJson(reply.text), call.operation));
  }

  private async deployGroupId(): Promise<number> {
    const call = this.call(this.#deployToken, 'GET', this.#http.url(`/groups/${encodeURIComponent(this.#deployGroup)}`), 'finding the deployment group');
    const reply = await this.#http.send(call);
    if (reply.status !== 200) throw platformRefusal(LABEL, call.operation, this.#http.refusal(call, reply));
    return this.#http.parse(groupSchema, parseJson(reply.text), call.operation).id;
  }

  /** Where git reaches a project: the configured instance, whatever the API answers, so a token goes nowhere else. */
  private cloneUrl(fullPath: string): string {
    return `${this.#base}/${fullPath.split('/').map(encodeURIComponent).join('/')}.git`;
  }

  /** The platform's token reads nothing outside its deployment group. */
  private copyInGroup(copy: string): string {
    if (!copy.toLowerCase().startsWith(`${this.#deployGroup.toLowerCase()}/`)) throw new AppError('NOT_FOUND', `Deployment copy ${copy} not found on ${LABEL}`);
    return copy;
  }

  private async token(fields: Record<string, string>, operation: string, secrets: string[]): Promise<GitTokenSet> {
    const call: UpstreamCall = {
      method: 'POST',
      url: new URL(`${this.#base}/oauth/token`),
      operation,
      body: { form: new URLSearchParams({ ...fields, client_id: this.#clientId, client_secret: this.#clientSecret }) },
      secrets: [...secrets, this.#clientSecret],
    };
    const reply = await this.#http.send(call);
    if (reply.status === 400 || reply.status === 401) throw this.clientRefused(call, reply);
    if (reply.status !== 200) throw this.#http.refusal(call, reply);
    const token = this.#http.parse(tokenSchema, parseJson(reply.text), operation);
    return {
      accessToken: token.access_token,
      refreshToken: token.refresh_token ?? null,
      expiresAt: token.expires_in === undefined ? null : new Date(Date.now() + token.expires_in * 1000).toISOString(),
      scopes: (token.scope ?? '').split(/\s+/).filter(Boolean),
    };
  }

  /** An OAuth endpoint's refusal: the platform's client (its configuration), or the user's grant. */
  private clientRefused(call: UpstreamCall, reply: UpstreamReply): AppError {
    const body = errorBodySchema.safeParse(parseJson(reply.text));
    const code = body.success ? (body.data.error ?? '') : '';
    this.#http.logFailure(call, reply.status, `oauth error ${code || 'unnamed'}`);
    if (code === 'invalid_client' || code === 'unauthorized_client') {
      return new AppError('UPSTREAM_ERROR', `${LABEL} refused the platform's OAuth application while ${call.operation}; check its ID and secret`);
    }
    return new AppError('GIT_CREDENTIAL_INVALID', `${LABEL} refused the authorization (invalid, expired, reused or revoked): connect again`);
  }

  private project(accessToken: string, project: ProjectRef): Promise<GitLabProject> {
    return this.#http.json(this.call(accessToken, 'GET', this.#http.url(project.path), 'reading a project', `Project ${project.fullName}`), projectSchema);
  }

  /** Every item of a listing: GitLab's `X-Next-Page`, or its `Link: rel="next"` where it leaves that header out. */
  private collect<S extends z.ZodType>(first: UpstreamCall, item: S): Promise<z.output<S>[]> {
    return this.#http.collect(first, item, (body, reply, url) => ({ items: body, next: nextPageUrl(url, reply.headers) }));
  }

  private call(accessToken: string, method: UpstreamMethod, url: URL, operation: string, subject?: string): UpstreamCall {
    return { method, url, authorization: `Bearer ${accessToken}`, operation, subject, secrets: [accessToken] };
  }
}

/** A copy anyone could read would publish the customer's code: the platform builds only from private ones. */
function privateCopy(project: GitLabProject): GitLabProject {
  if (project.visibility !== 'private') {
    throw new AppError(
      'UPSTREAM_ERROR',
      `The deployment copy ${project.path_with_namespace} on ${LABEL} is ${project.visibility}; the platform builds only from private copies`,
    );
  }
  return project;
}

function toRepository(project: GitLabProject): GitRepository {
  return {
    fullName: project.path_with_namespace,
    name: project.path,
    owner: project.namespace.full_path,
    private: project.visibility !== 'public',
    // An empty project has no default branch yet; GitLab names the first one `main`.
    defaultBranch: project.default_branch ?? 'main',
    description: project.description || null,
    updatedAt: new Date(project.last_activity_at).toISOString(),
    webUrl: project.web_url,
  };
}

/** GitLab's tree carries no sizes; reading one per file would cost a request each. */
function toEntry(entry: z.output<typeof treeEntrySchema>): GitContentEntry {
  const type = entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : entry.mode === SYMLINK_MODE ? 'symlink' : 'file';
  return { name: entry.name, path: entry.path, type, size: null };
}

/** The page after `page` by `X-Next-Page` (empty on the last page), or by `Link: rel="next"` where GitLab leaves that header out. */
function nextPageNumber(headers: Headers, page: number): number | null {
  const next = headers.get('x-next-page');
  if (next === null) return /rel="next"/.test(headers.get('link') ?? '') ? page + 1 : null;
  const number = Number(next);
  return next !== '' && Number.isInteger(number) && number > page ? number : null;
}

/** The next page's URL by `X-Next-Page` (empty on the last page), or the `Link: rel="next"` target where GitLab leaves that header out. */
function nextPageUrl(current: URL, headers: Headers): string | URL | null {
  const nextPage = headers.get('x-next-page');
  if (nextPage === null) return /<([^>]+)>\s*;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1] ?? null;
  if (nextPage === '') return null;
  const next = new URL(current);
  next.searchParams.set('page', nextPage);
  return next;
}

/** `namespace/…/project`, or NOT_FOUND: nothing else names a GitLab project. */
function projectRef(fullName: string): ProjectRef {
  const segments = fullName.split('/');
  if (segments.length < 2 || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new AppError('NOT_FOUND', `Project ${fullName} not found on ${LABEL}`);
  }
  return { fullName, path: `/projects/${encodeURIComponent(fullName)}` };
}

/** A path inside the repository without leading or trailing slashes; dot segments name nothing in git. */
function repositoryPath(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) throw new AppError('NOT_FOUND', `Path ${path} not found`);
  return trimmed;
}

/** GitLab's `{ message }` (a string, or per-field lists), or OAuth's `{ error, error_description }`. */
function upstreamMessage(text: string): string {
  const body = errorBodySchema.safeParse(parseJson(text));
  if (!body.success) return '';
  const { message, error, error_description: description } = body.data;
  const said = typeof message === 'string' ? message : message === undefined ? undefined : JSON.stringify(message);
  return [said, error, description].filter(Boolean).join(': ');
}

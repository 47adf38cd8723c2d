import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createHttpFake, FakeHttpError, type FakeRequest, type Fault, type RecordedRequest, type RouteKey } from './httpFake';

/**
 * A loopback Bitbucket Cloud: the OAuth consumer flow on the web origin (`/site/oauth2/…`, client
 * credentials in Basic auth, single-use codes, expiring access tokens, refresh tokens) and the
 * API 2.0 under `/2.0` with bearer tokens, `{ type: 'error', error: { message } }` refusals and
 * `pagelen`/`page` pages linked by absolute `next` URLs. It keeps users, workspace memberships,
 * repositories with commits, branches and tags, and webhooks; a workspace member makes empty
 * repositories in it. The adapter is tested against Bitbucket's behaviour rather than canned replies.
 */

type Json = Record<string, unknown>;

export type FakeBitbucketRoute =
  | 'GET /site/oauth2/authorize'
  | 'POST /site/oauth2/access_token'
  | 'GET /2.0/user'
  | 'GET /2.0/repositories'
  | 'GET /2.0/repositories/:workspace/:slug'
  | 'POST /2.0/repositories/:workspace/:slug'
  | 'GET /2.0/repositories/:workspace/:slug/refs'
  | 'GET /2.0/repositories/:workspace/:slug/refs/branches'
  | 'GET /2.0/repositories/:workspace/:slug/commit/:revision'
  | 'POST /2.0/repositories/:workspace/:slug/hooks'
  | 'DELETE /2.0/repositories/:workspace/:slug/hooks/:uid';

/** A file's text, or a symbolic link or submodule at that path. */
export type FakeFile = string | { symlink: string } | { submodule: string };

export interface FakeCommit {
  hash: string;
  message: string;
  author: string;
  files: Map<string, FakeFile>;
}

export interface FakeRepository {
  workspace: string;
  slug: string;
  isPrivate: boolean;
  description: string;
  updatedOn: string;
  mainBranch: string | null;
  branches: Map<string, string>;
  tags: Map<string, string>;
  commits: Map<string, FakeCommit>;
  hooks: Map<string, FakeHook>;
}

export interface FakeHook {
  uuid: string;
  url: string;
  description: string;
  secret: string | null;
  events: string[];
  active: boolean;
}

export interface FakeRepositoryOptions {
  isPrivate?: boolean;
  description?: string;
  updatedOn?: string;
  /** The main branch's files; no main branch at all when null (an empty repository). */
  files?: Record<string, FakeFile> | null;
  mainBranch?: string;
}

export interface FakeBitbucket {
  /** Ends in `/2.0`, like Bitbucket's own API base. */
  apiUrl: string;
  /** The origin of the consent page and the token endpoint. */
  webUrl: string;
  oauthClient: { clientId: string; clientSecret: string };
  requests: RecordedRequest<Buffer>[];
  addUser(username: string, displayName?: string): void;
  /** Makes the workspace if needed and adds the user to it; only admins may manage webhooks. */
  addMember(workspace: string, username: string, role?: 'member' | 'admin'): void;
  addRepository(fullName: string, options?: FakeRepositoryOptions): FakeRepository;
  /** A branch on a new commit holding `files` (the main branch's files unless given). */
  addBranch(fullName: string, name: string, files?: Record<string, FakeFile>): string;
  addTag(fullName: string, name: string, hash: string): void;
  repository(fullName: string): FakeRepository | undefined;
  /** Who is signed in on the consent page. */
  signIn(username: string): void;
  /** An authorization code the token endpoint trades once for a grant of `username`. */
  issueCode(username: string, redirectUri?: string): string;
  /** A grant's access token, as if the code exchange had happened, expiring in `expiresInSeconds`. */
  issueToken(username: string, expiresInSeconds?: number): { accessToken: string; refreshToken: string };
  /** The user withdraws the consumer's access in their settings: its tokens stop working. */
  revokeGrants(username: string): void;
  fail(route: FakeBitbucketRoute, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

export interface FakeBitbucketOptions {
  /** Lifetime of issued access tokens; Bitbucket's is two hours. */
  tokenLifetimeSeconds?: number;
}

/** Bitbucket refuses a `pagelen` above 100. */
const MAX_PAGELEN = 100;
const DEFAULT_PAGELEN = 10;
/** Directory depths the `src` routes are registered for (the scaffold matches one segment per parameter). */
const MAX_SOURCE_DEPTH = 12;
const SCOPES = 'account repository repository:admin webhook';

const failure = (message: string, fields?: Json): Json => ({ type: 'error', error: { message, ...(fields && { fields }) } });
const refuse = (status: number, message: string, fields?: Json) => new FakeHttpError(status, failure(message, fields));

interface Grant {
  username: string;
  refreshToken: string;
}

export async function startFakeBitbucket(options: FakeBitbucketOptions = {}): Promise<FakeBitbucket> {
  const tokenLifetime = options.tokenLifetimeSeconds ?? 7200;
  const users = new Map<string, { username: string; displayName: string; uuid: string }>();
  const workspaces = new Map<string, Map<string, 'member' | 'admin'>>();
  const repositories = new Map<string, FakeRepository>();
  const codes = new Map<string, { username: string; redirectUri: string | null }>();
  const accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  const refreshTokens = new Map<string, Grant>();
  const oauthClient = { clientId: `consumer-${hex(8)}`, clientSecret: hex(32) };
  let signedIn: string | null = null;

  const http = createHttpFake({
    name: 'Bitbucket',
    parseBody: 'raw',
    errorBody: ({ status, message }) => failure(status === 404 ? 'Resource not found' : message),
  });

  const key = (fullName: string) => fullName.toLowerCase();

  function userOf(request: FakeRequest<Buffer>): string {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? accessTokens.get(header.slice('Bearer '.length)) : undefined;
    if (!token) throw refuse(401, 'Token is invalid, expired, or not supported for this endpoint.');
    if (token.expiresAt <= Date.now()) throw refuse(401, 'Access token expired. Use your refresh token to obtain a new access token.');
    return token.grant.username;
  }

  function roleIn(workspace: string, username: string): 'member' | 'admin' | undefined {
    return workspaces.get(workspace.toLowerCase())?.get(username);
  }

  function visibleRepository(request: FakeRequest<Buffer>, workspace: string, slug: string): { repository: FakeRepository; username: string } {
    const username = userOf(request);
    const repository = repositories.get(key(`${workspace}/${slug}`));
    if (!repository || (repository.isPrivate && !roleIn(repository.workspace, username))) {
      throw refuse(404, `Repository ${workspace}/${slug} not found`);
    }
    return { repository, username };
  }

  /** A branch, a tag or a commit hash (seven characters or more), as Bitbucket resolves a revision. */
  function commitAt(repository: FakeRepository, revision: string): FakeCommit {
    const hash = repository.branches.get(revision) ?? repository.tags.get(revision) ?? revision;
    const commit =
      repository.commits.get(hash) ?? (hash.length >= 7 ? [...repository.commits.values()].find((candidate) => candidate.hash.startsWith(hash)) : undefined);
    if (!commit) throw refuse(404, `Commit not found: ${revision}`);
    return commit;
  }

  function paged(request: FakeRequest<Buffer>, all: unknown[], defaultPagelen = DEFAULT_PAGELEN): Json {
    const pagelen = positiveInt(request.url.searchParams.get('pagelen'), defaultPagelen);
    if (pagelen > MAX_PAGELEN) throw refuse(400, `Invalid pagelen: must be at most ${MAX_PAGELEN}`);
    const page = positiveInt(request.url.searchParams.get('page'), 1);
    const values = all.slice((page - 1) * pagelen, page * pagelen);
    const body: Json = { pagelen, size: all.length, page, values };
    if (page * pagelen < all.length) {
      const next = new URL(request.url);
      next.searchParams.set('page', String(page + 1));
      body.next = next.toString();
    }
    return body;
  }

  function repositoryJson(request: FakeRequest<Buffer>, repository: FakeRepository): Json {
    const fullName = `${repository.workspace}/${repository.slug}`;
    return {
      type: 'repository',
      uuid: `{${uuidOf(fullName)}}`,
      full_name: fullName,
      name: repository.slug,
      slug: repository.slug,
      scm: 'git',
      is_private: repository.isPrivate,
      description: repository.description,
      updated_on: repository.updatedOn,
      created_on: '2023-01-01T00:00:00.000000+00:00',
      mainbranch: repository.mainBranch ? { type: 'branch', name: repository.mainBranch } : null,
      workspace: { type: 'workspace', slug: repository.workspace },
      links: { html: { href: `${request.url.origin}/${fullName}` } },
    };
  }

  function commitJson(commit: FakeCommit): Json {
    return {
      type: 'commit',
      hash: commit.hash,
      message: `${commit.message}\n`,
      date: '2024-03-01T10:00:00+00:00',
      author: { type: 'author', raw: `${commit.author} <${commit.author.toLowerCase().replace(/\s+/g, '.')}@example.com>` },
    };
  }

  function refJson(type: 'branch' | 'tag', name: string, repository: FakeRepository): Json {
    return { type, name, target: commitJson(commitAt(repository, name)) };
  }

  /** `name = "…"`, the one BBQL filter the fake understands; null without a filter. */
  function nameFilter(request: FakeRequest<Buffer>): string | null {
    const q = request.url.searchParams.get('q');
    if (q === null) return null;
    const match = /^name\s*=\s*"((?:[^"\\]|\\.)*)"$/.exec(q.trim());
    if (!match) throw refuse(400, `Invalid query: ${q}`);
    return match[1]!.replace(/\\(.)/g, '$1');
  }

  function tokenAnswer(grant: Grant): Json {
    const accessToken = randomBytes(32).toString('base64url');
    accessTokens.set(accessToken, { grant, expiresAt: Date.now() + tokenLifetime * 1000 });
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: tokenLifetime,
      refresh_token: grant.refreshToken,
      scopes: SCOPES,
      state: 'authorization_code',
    };
  }

  function newGrant(username: string): Grant {
    const grant = { username, refreshToken: randomBytes(24).toString('base64url') };
    refreshTokens.set(grant.refreshToken, grant);
    return grant;
  }

  http.route('GET /site/oauth2/authorize', ({ url }) => {
    if (url.searchParams.get('client_id') !== oauthClient.clientId || url.searchParams.get('response_type') !== 'code') {
      return { status: 400, body: { error: 'invalid_request', error_description: 'Invalid client_id or response_type' } };
    }
    const redirectUri = url.searchParams.get('redirect_uri');
    if (!signedIn || !redirectUri) return { status: 400, body: { error: 'invalid_request', error_description: 'No user signed in or no redirect_uri' } };
    const back = new URL(redirectUri);
    back.searchParams.set('code', issueCode(signedIn, redirectUri));
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    return { status: 302, headers: { location: back.toString() } };
  });

  http.route('POST /site/oauth2/access_token', ({ headers, rawBody }) => {
    const expected = `Basic ${Buffer.from(`${oauthClient.clientId}:${oauthClient.clientSecret}`).toString('base64')}`;
    if (headers.authorization !== expected) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid OAuth client credentials' } };
    const form = new URLSearchParams(rawBody.toString('utf8'));
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const code = form.get('code') ?? '';
        const issued = codes.get(code);
        // Single use: the first exchange takes the code, whatever its outcome.
        codes.delete(code);
        if (!issued || (issued.redirectUri !== null && issued.redirectUri !== form.get('redirect_uri'))) {
          return { status: 400, body: { error: 'invalid_grant', error_description: 'The specified code is not valid.' } };
        }
        return { body: tokenAnswer(newGrant(issued.username)) };
      }
      case 'refresh_token': {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!grant) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh_token' } };
        return { body: tokenAnswer(grant) };
      }
      default:
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${form.get('grant_type')}` } };
    }
  });

  http.route('GET /2.0/user', (request) => {
    const user = users.get(userOf(request))!;
    return { body: { type: 'user', username: user.username, nickname: user.username, display_name: user.displayName, uuid: `{${user.uuid}}` } };
  });

  http.route('GET /2.0/repositories', (request) => {
    const username = userOf(request);
    if (request.url.searchParams.get('role') !== 'member') throw refuse(400, 'This fake lists only role=member');
    const listed = [...repositories.values()].filter((repository) => roleIn(repository.workspace, username));
    const sort = request.url.searchParams.get('sort');
    if (sort === '-updated_on') listed.sort((a, b) => Date.parse(b.updatedOn) - Date.parse(a.updatedOn));
    else if (sort !== null) throw refuse(400, `Invalid sort field: ${sort}`);
    return {
      body: paged(
        request,
        listed.map((repository) => repositoryJson(request, repository)),
      ),
    };
  });

  http.route('GET /2.0/repositories/:workspace/:slug', (request) => {
    const { repository } = visibleRepository(request, request.params.workspace, request.params.slug);
    return { body: repositoryJson(request, repository) };
  });

  /** An empty repository; Bitbucket makes it public unless asked otherwise. */
  http.route('POST /2.0/repositories/:workspace/:slug', (request) => {
    const username = userOf(request);
    const workspace = request.params.workspace.toLowerCase();
    if (!workspaces.has(workspace)) throw refuse(404, `Workspace ${request.params.workspace} not found`);
    if (!roleIn(workspace, username)) throw refuse(403, `You do not have permission to create repositories in ${workspace}`);
    const body = jsonObject(request.rawBody);
    if (body.scm !== undefined && body.scm !== 'git') throw refuse(400, 'Invalid scm', { scm: ['Only git repositories can be made.'] });
    const slug = request.params.slug.toLowerCase();
    if (!/^[a-z0-9_.-]+$/.test(slug)) throw refuse(400, 'Invalid slug', { slug: ['Use letters, digits, dots, hyphens and underscores.'] });
    if (repositories.has(key(`${workspace}/${slug}`))) {
      const message = 'Repository with this Slug and Owner already exists.';
      throw refuse(400, message, { name: [message] });
    }
    const repository: FakeRepository = {
      workspace,
      slug,
      isPrivate: body.is_private === true,
      description: typeof body.description === 'string' ? body.description : '',
      updatedOn: bitbucketTime(new Date()),
      mainBranch: null,
      branches: new Map(),
      tags: new Map(),
      commits: new Map(),
      hooks: new Map(),
    };
    repositories.set(key(`${workspace}/${slug}`), repository);
    return { body: repositoryJson(request, repository) };
  });

  const serveSource = (request: FakeRequest<Buffer>) => {
    const [workspace, slug, , ...rest] = request.path.split('/').slice(3);
    const { repository } = visibleRepository(request, decodeURIComponent(workspace!), decodeURIComponent(slug!));
    const trailingSlash = request.path.endsWith('/');
    const segments = (trailingSlash ? rest.slice(0, -1) : rest).map((segment) => decodeURIComponent(segment));
    const [revision, ...pathSegments] = segments;
    // Bitbucket reads a slash in the revision as the start of the path, encoded or not.
    if (!revision || revision.includes('/')) throw refuse(404, `Commit not found: ${revision ?? ''}`);
    const commit = commitAt(repository, revision);
    const path = pathSegments.join('/');
    const file = commit.files.get(path);
    const children = directoryEntries(commit, path);
    if (request.url.searchParams.get('format') === 'meta') {
      if (file !== undefined) return { body: sourceEntryJson(commit, path, file) };
      if (children) return { body: { type: 'commit_directory', path, commit: { type: 'commit', hash: commit.hash } } };
      throw refuse(404, `No such file or directory: ${path}`);
    }
    if (file !== undefined) {
      const bytes = typeof file === 'string' ? file : 'symlink' in file ? file.symlink : '';
      return { body: bytes, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    }
    if (!children) throw refuse(404, `No such file or directory: ${path}`);
    return {
      body: paged(
        request,
        children.map((child) => sourceEntryJson(commit, child.path, child.file)),
      ),
    };
  };
  for (let depth = 0; depth <= MAX_SOURCE_DEPTH; depth += 1) {
    const pattern = `GET /2.0/repositories/:workspace/:slug/src/:revision${Array.from({ length: depth }, (_, i) => `/:p${i}`).join('')}` as RouteKey;
    http.route(pattern, serveSource);
    http.route(`${pattern}/` as RouteKey, serveSource);
  }

  http.route('GET /2.0/repositories/:workspace/:slug/refs', (request) => {
    const { repository } = visibleRepository(request, request.params.workspace, request.params.slug);
    const name = nameFilter(request);
    const refs = [
      ...[...repository.branches.keys()].map((branch) => refJson('branch', branch, repository)),
      ...[...repository.tags.keys()].map((tag) => refJson('tag', tag, repository)),
    ].filter((ref) => name === null || ref.name === name);
    return { body: paged(request, refs) };
  });

  http.route('GET /2.0/repositories/:workspace/:slug/refs/branches', (request) => {
    const { repository } = visibleRepository(request, request.params.workspace, request.params.slug);
    const name = nameFilter(request);
    const names = [...repository.branches.keys()].filter((branch) => name === null || branch === name).sort();
    return {
      body: paged(
        request,
        names.map((branch) => refJson('branch', branch, repository)),
      ),
    };
  });

  http.route('GET /2.0/repositories/:workspace/:slug/commit/:revision', (request) => {
    const { repository } = visibleRepository(request, request.params.workspace, request.params.slug);
    if (request.params.revision.includes('/')) throw refuse(404, `Commit not found: ${request.params.revision}`);
    return { body: commitJson(commitAt(repository, request.params.revision)) };
  });

  http.route('POST /2.0/repositories/:workspace/:slug/hooks', (request) => {
    const { repository, username } = visibleRepository(request, request.params.workspace, request.params.slug);
    if (roleIn(repository.workspace, username) !== 'admin')
      throw refuse(403, 'Access denied. You must have admin access to the repository to manage webhooks.');
    const body = jsonObject(request.rawBody);
    if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) throw refuse(400, 'Invalid URL', { url: ['Enter a valid URL.'] });
    if (!Array.isArray(body.events) || body.events.length === 0 || !body.events.every((event) => event === 'repo:push')) {
      throw refuse(400, 'Invalid events', { events: ['Select at least one known event.'] });
    }
    if (body.secret !== undefined && typeof body.secret !== 'string') throw refuse(400, 'Invalid secret', { secret: ['Must be a string.'] });
    const hook: FakeHook = {
      uuid: `{${randomUUID()}}`,
      url: body.url,
      description: typeof body.description === 'string' ? body.description : '',
      secret: body.secret ?? null,
      events: body.events as string[],
      active: body.active !== false,
    };
    repository.hooks.set(hook.uuid, hook);
    return {
      status: 201,
      body: {
        type: 'webhook_subscription',
        uuid: hook.uuid,
        url: hook.url,
        description: hook.description,
        subject_type: 'repository',
        active: hook.active,
        events: hook.events,
        secret_set: hook.secret !== null,
      },
    };
  });

  http.route('DELETE /2.0/repositories/:workspace/:slug/hooks/:uid', (request) => {
    const { repository, username } = visibleRepository(request, request.params.workspace, request.params.slug);
    if (roleIn(repository.workspace, username) !== 'admin')
      throw refuse(403, 'Access denied. You must have admin access to the repository to manage webhooks.');
    if (!repository.hooks.delete(request.params.uid)) throw refuse(404, 'Webhook subscription not found');
    return { status: 204 };
  });

  function addUser(username: string, displayName = username): void {
    users.set(username, { username, displayName, uuid: randomUUID() });
    addMember(username, username, 'admin');
  }

  function addMember(workspace: string, username: string, role: 'member' | 'admin' = 'member'): void {
    const members = workspaces.get(workspace.toLowerCase()) ?? new Map<string, 'member' | 'admin'>();
    members.set(username, role);
    workspaces.set(workspace.toLowerCase(), members);
  }

  function newCommit(repository: FakeRepository, files: Record<string, FakeFile>, message: string): string {
    const hash = createHash('sha1').update(`${repository.workspace}/${repository.slug}:${repository.commits.size}:${message}`).digest('hex');
    repository.commits.set(hash, { hash, message, author: 'Ada Lovelace', files: new Map(Object.entries(files)) });
    return hash;
  }

  function addRepository(fullName: string, repositoryOptions: FakeRepositoryOptions = {}): FakeRepository {
    const [workspace, slug] = fullName.split('/') as [string, string];
    const repository: FakeRepository = {
      workspace,
      slug,
      isPrivate: repositoryOptions.isPrivate ?? true,
      description: repositoryOptions.description ?? '',
      updatedOn: repositoryOptions.updatedOn ?? bitbucketTime(new Date()),
      mainBranch: null,
      branches: new Map(),
      tags: new Map(),
      commits: new Map(),
      hooks: new Map(),
    };
    repositories.set(key(fullName), repository);
    if (repositoryOptions.files !== null) {
      const mainBranch = repositoryOptions.mainBranch ?? 'main';
      repository.branches.set(mainBranch, newCommit(repository, repositoryOptions.files ?? { 'README.md': '# readme\n' }, 'Initial commit'));
      repository.mainBranch = mainBranch;
    }
    return repository;
  }

  function repositoryNamed(fullName: string): FakeRepository {
    const repository = repositories.get(key(fullName));
    if (!repository) throw new Error(`fake Bitbucket has no repository ${fullName}`);
    return repository;
  }

  function issueCode(username: string, redirectUri?: string): string {
    const code = hex(16);
    codes.set(code, { username, redirectUri: redirectUri ?? null });
    return code;
  }

  const { url } = await http.listen();
  return {
    apiUrl: `${url}/2.0`,
    webUrl: url,
    oauthClient,
    requests: http.requests,
    addUser,
    addMember,
    addRepository,
    addBranch(fullName, name, files) {
      const repository = repositoryNamed(fullName);
      const base = repository.mainBranch ? commitAt(repository, repository.mainBranch).files : new Map<string, FakeFile>();
      const hash = newCommit(repository, files ?? Object.fromEntries(base), `Work on ${name}`);
      repository.branches.set(name, hash);
      return hash;
    },
    addTag(fullName, name, hash) {
      repositoryNamed(fullName).tags.set(name, hash);
    },
    repository: (fullName) => repositories.get(key(fullName)),
    signIn(username) {
      signedIn = username;
    },
    issueCode,
    issueToken(username, expiresInSeconds = tokenLifetime) {
      const grant = newGrant(username);
      const accessToken = randomBytes(32).toString('base64url');
      accessTokens.set(accessToken, { grant, expiresAt: Date.now() + expiresInSeconds * 1000 });
      return { accessToken, refreshToken: grant.refreshToken };
    },
    revokeGrants(username) {
      for (const [token, entry] of accessTokens) if (entry.grant.username === username) accessTokens.delete(token);
      for (const [token, grant] of refreshTokens) if (grant.username === username) refreshTokens.delete(token);
    },
    fail: (route, fault) => http.fail({ ...fault, route }),
    close: () => http.close(),
  };
}

/** The immediate children of a directory, directories first, each group by name; null when `path` is no directory. */
function directoryEntries(commit: FakeCommit, path: string): Array<{ path: string; file: FakeFile | null }> | null {
  const prefix = path === '' ? '' : `${path}/`;
  const directories = new Set<string>();
  const files: Array<{ path: string; file: FakeFile }> = [];
  for (const [filePath, file] of commit.files) {
    if (!filePath.startsWith(prefix)) continue;
    const rest = filePath.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) files.push({ path: filePath, file });
    else directories.add(`${prefix}${rest.slice(0, slash)}`);
  }
  if (directories.size === 0 && files.length === 0) return path === '' ? [] : null;
  return [...[...directories].sort().map((dir) => ({ path: dir, file: null })), ...files.sort((a, b) => (a.path < b.path ? -1 : 1))];
}

function sourceEntryJson(commit: FakeCommit, path: string, file: FakeFile | null): Json {
  const common = { path, commit: { type: 'commit', hash: commit.hash } };
  if (file === null) return { type: 'commit_directory', ...common };
  if (typeof file === 'string') return { type: 'commit_file', ...common, size: Buffer.byteLength(file), attributes: [], mimetype: null };
  if ('symlink' in file) return { type: 'commit_file', ...common, size: Buffer.byteLength(file.symlink), attributes: ['link'], mimetype: null };
  return { type: 'commit_file', ...common, size: 0, attributes: ['subrepository'], mimetype: null };
}

/** Bitbucket's timestamps: microseconds and a numeric offset. */
function bitbucketTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

function uuidOf(text: string): string {
  const digest = createHash('sha256').update(text).digest('hex');
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
}

function jsonObject(raw: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw refuse(400, 'Malformed JSON body');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse(400, 'Malformed JSON body');
  return parsed as Json;
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

function hex(length: number): string {
  return randomBytes(length / 2).toString('hex');
}

import { createHash, randomBytes } from 'node:crypto';
import { createHttpFake, FakeHttpError, type FakeRequest, type FakeResponse, type Fault, type RecordedRequest } from './httpFake';

/**
 * A loopback GitLab: the OAuth application flow (`/oauth/authorize`, `/oauth/token` with the
 * client in the form, single-use codes, expiring access tokens, rotating refresh tokens,
 * `/oauth/revoke`) and the API v4 under `/api/v4` with bearer tokens, `{ message }` refusals
 * ("404 Project Not Found"), OAuth's `{ error, error_description }`, and offset pages announced by
 * `X-Next-Page` and `Link`. A project is addressed by its id or by its full path URL-encoded once
 * as one segment, as GitLab does; a path encoded twice finds nothing. It keeps users, groups with
 * access levels, projects with commits and branches, and hooks; a developer of a group makes empty
 * projects in it.
 */

type Json = Record<string, unknown>;

export type FakeGitLabRoute =
  | 'GET /oauth/authorize'
  | 'POST /oauth/token'
  | 'POST /oauth/revoke'
  | 'GET /api/v4/user'
  | 'GET /api/v4/groups/:id'
  | 'GET /api/v4/projects'
  | 'POST /api/v4/projects'
  | 'GET /api/v4/projects/:id'
  | 'GET /api/v4/projects/:id/repository/tree'
  | 'GET /api/v4/projects/:id/repository/files/:filePath/raw'
  | 'GET /api/v4/projects/:id/repository/branches'
  | 'GET /api/v4/projects/:id/repository/branches/:branch'
  | 'POST /api/v4/projects/:id/hooks'
  | 'DELETE /api/v4/projects/:id/hooks/:hookId';

/** A file's text, or a symbolic link or submodule at that path. */
export type FakeGitLabFile = string | { symlink: string } | { submodule: string };

export interface FakeGitLabCommit {
  id: string;
  message: string;
  authorName: string;
  files: Map<string, FakeGitLabFile>;
}

export interface FakeGitLabProject {
  id: number;
  /** The namespace's full path: `group/subgroup` or a username. */
  namespace: string;
  path: string;
  visibility: 'private' | 'internal' | 'public';
  description: string | null;
  defaultBranch: string | null;
  lastActivityAt: string;
  branches: Map<string, string>;
  commits: Map<string, FakeGitLabCommit>;
  hooks: Map<number, { id: number; url: string; token: string | null; pushEvents: boolean }>;
}

export interface FakeGitLabProjectOptions {
  visibility?: FakeGitLabProject['visibility'];
  description?: string | null;
  lastActivityAt?: string;
  /** The default branch's files; no branch at all when null (an empty project). */
  files?: Record<string, FakeGitLabFile> | null;
  defaultBranch?: string;
}

/** GitLab's access levels: developer may push and create projects in a group, maintainer may manage hooks. */
export type FakeAccessLevel = 10 | 20 | 30 | 40 | 50;

export interface FakeGitLab {
  baseUrl: string;
  oauthClient: { clientId: string; clientSecret: string };
  requests: RecordedRequest<Buffer>[];
  addUser(username: string, name?: string): void;
  /** Makes the group if needed (nested paths included) and gives the user that access level in it. */
  addMember(groupPath: string, username: string, accessLevel?: FakeAccessLevel): void;
  addProject(fullPath: string, options?: FakeGitLabProjectOptions): FakeGitLabProject;
  /** A branch on a new commit holding `files` (the default branch's files unless given). */
  addBranch(fullPath: string, name: string, files?: Record<string, FakeGitLabFile>): string;
  project(fullPath: string): FakeGitLabProject | undefined;
  /** Who is signed in on the consent page. */
  signIn(username: string): void;
  issueCode(username: string, redirectUri: string): string;
  /** A grant's tokens, as if the code exchange had happened, the access token expiring in `expiresInSeconds`. */
  issueToken(username: string, options?: { expiresInSeconds?: number; scopes?: string[] }): { accessToken: string; refreshToken: string };
  /** Whether an access token still works. */
  tokenActive(accessToken: string): boolean;
  fail(route: FakeGitLabRoute, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 20;
const TOKEN_LIFETIME_SECONDS = 7200;
const KNOWN_SCOPES = new Set(['api', 'read_api', 'read_user', 'read_repository', 'write_repository']);

const refuse = (status: number, message: string) => new FakeHttpError(status, { message });
const oauthError = (status: number, error: string, description: string): FakeResponse => ({ status, body: { error, error_description: description } });

interface Grant {
  username: string;
  scopes: string[];
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

export async function startFakeGitLab(): Promise<FakeGitLab> {
  const users = new Map<string, { id: number; username: string; name: string }>();
  const groups = new Map<string, { id: number; fullPath: string; members: Map<string, FakeAccessLevel> }>();
  const projects = new Map<number, FakeGitLabProject>();
  const codes = new Map<string, { username: string; redirectUri: string; scopes: string[] }>();
  const grantsByAccess = new Map<string, Grant>();
  const grantsByRefresh = new Map<string, Grant>();
  const oauthClient = { clientId: hex(32), clientSecret: `gloas-${hex(32)}` };
  let signedIn: string | null = null;
  let nextId = 1000;

  const http = createHttpFake({
    name: 'GitLab',
    parseBody: 'raw',
    errorBody: ({ status, message }) => ({ message: status === 404 ? '404 Not Found' : `${status} ${message}` }),
  });

  const fullPathOf = (project: FakeGitLabProject) => `${project.namespace}/${project.path}`;

  function grantOf(request: FakeRequest<Buffer>): Grant {
    const header = request.headers.authorization ?? '';
    const grant = header.startsWith('Bearer ') ? grantsByAccess.get(header.slice('Bearer '.length)) : undefined;
    if (!grant) throw refuse(401, '401 Unauthorized');
    if (grant.expiresAt <= Date.now()) {
      throw new FakeHttpError(401, { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    }
    if (!grant.scopes.includes('api'))
      throw new FakeHttpError(403, {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: 'api',
      });
    return grant;
  }

  /** The user's level in a namespace: their own, or the highest in it or any group above it. */
  function accessLevel(namespace: string, username: string): number {
    if (namespace.toLowerCase() === username.toLowerCase()) return 50;
    let best = 0;
    const segments = namespace.toLowerCase().split('/');
    for (let i = 1; i <= segments.length; i += 1) best = Math.max(best, groups.get(segments.slice(0, i).join('/'))?.members.get(username) ?? 0);
    return best;
  }

  /** `:id` is a number or a full path; the scaffold decoded the segment once, as GitLab does. */
  function findProject(id: string): FakeGitLabProject | undefined {
    if (/^\d+$/.test(id)) return projects.get(Number(id));
    return [...projects.values()].find((project) => fullPathOf(project).toLowerCase() === id.toLowerCase());
  }

  function visibleProject(request: FakeRequest<Buffer>, id: string, minimumLevel = 0): { project: FakeGitLabProject; username: string } {
    const { username } = grantOf(request);
    const project = findProject(id);
    const level = project ? accessLevel(project.namespace, username) : 0;
    if (!project || (project.visibility === 'private' && level < 10)) throw refuse(404, '404 Project Not Found');
    if (level < minimumLevel) throw refuse(403, '403 Forbidden');
    return { project, username };
  }

  function commitAt(project: FakeGitLabProject, ref: string): FakeGitLabCommit | undefined {
    const id = project.branches.get(ref) ?? ref;
    return project.commits.get(id) ?? (id.length >= 7 ? [...project.commits.values()].find((commit) => commit.id.startsWith(id)) : undefined);
  }

  /** GitLab's offset pagination: the page in the body, its position in headers and a Link header. */
  function paged(request: FakeRequest<Buffer>, all: unknown[]): FakeResponse {
    const perPage = Math.min(positiveInt(request.url.searchParams.get('per_page'), DEFAULT_PER_PAGE), MAX_PER_PAGE);
    const page = positiveInt(request.url.searchParams.get('page'), 1);
    const totalPages = Math.max(1, Math.ceil(all.length / perPage));
    const linkTo = (target: number) => {
      const url = new URL(request.url);
      url.searchParams.set('page', String(target));
      url.searchParams.set('per_page', String(perPage));
      return url.toString();
    };
    const links = [`<${linkTo(1)}>; rel="first"`, `<${linkTo(totalPages)}>; rel="last"`];
    if (page < totalPages) links.unshift(`<${linkTo(page + 1)}>; rel="next"`);
    return {
      body: all.slice((page - 1) * perPage, page * perPage),
      headers: {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < totalPages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(all.length),
        'x-total-pages': String(totalPages),
        link: links.join(', '),
      },
    };
  }

  function projectJson(request: FakeRequest<Buffer>, project: FakeGitLabProject): Json {
    const fullPath = fullPathOf(project);
    const group = groups.get(project.namespace.toLowerCase());
    return {
      id: project.id,
      description: project.description,
      name: project.path,
      name_with_namespace: fullPath.split('/').join(' / '),
      path: project.path,
      path_with_namespace: fullPath,
      created_at: '2023-01-01T00:00:00.000Z',
      default_branch: project.defaultBranch,
      visibility: project.visibility,
      web_url: `${request.url.origin}/${fullPath}`,
      last_activity_at: project.lastActivityAt,
      namespace: {
        id: group?.id ?? 1,
        name: project.namespace.split('/').at(-1),
        path: project.namespace.split('/').at(-1),
        kind: group ? 'group' : 'user',
        full_path: project.namespace,
      },
    };
  }

  function commitJson(commit: FakeGitLabCommit): Json {
    return {
      id: commit.id,
      short_id: commit.id.slice(0, 8),
      title: commit.message.split('\n')[0],
      message: `${commit.message}\n`,
      author_name: commit.authorName,
      authored_date: '2024-03-01T10:00:00.000+00:00',
    };
  }

  function branchJson(project: FakeGitLabProject, name: string): Json {
    return {
      name,
      merged: false,
      protected: name === project.defaultBranch,
      default: name === project.defaultBranch,
      commit: commitJson(commitAt(project, name)!),
    };
  }

  function tokenAnswer(grant: Grant): Json {
    return {
      access_token: grant.accessToken,
      token_type: 'Bearer',
      expires_in: Math.round((grant.expiresAt - Date.now()) / 1000),
      refresh_token: grant.refreshToken,
      scope: grant.scopes.join(' '),
      created_at: Math.floor(Date.now() / 1000),
    };
  }

  function newGrant(username: string, scopes: string[], expiresInSeconds = TOKEN_LIFETIME_SECONDS): Grant {
    const grant: Grant = { username, scopes, accessToken: hex(64), refreshToken: hex(64), expiresAt: Date.now() + expiresInSeconds * 1000 };
    grantsByAccess.set(grant.accessToken, grant);
    grantsByRefresh.set(grant.refreshToken, grant);
    return grant;
  }

  function dropGrant(grant: Grant): void {
    grantsByAccess.delete(grant.accessToken);
    grantsByRefresh.delete(grant.refreshToken);
  }

  function clientOf(fields: URLSearchParams, authorization: string | undefined): boolean {
    const [id, secret] = authorization?.startsWith('Basic ')
      ? Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8').split(':')
      : [fields.get('client_id'), fields.get('client_secret')];
    return id === oauthClient.clientId && secret === oauthClient.clientSecret;
  }

  http.route('GET /oauth/authorize', ({ url }) => {
    const redirectUri = url.searchParams.get('redirect_uri');
    if (url.searchParams.get('client_id') !== oauthClient.clientId || !redirectUri || url.searchParams.get('response_type') !== 'code') {
      return { status: 400, body: 'The client is not authorized to request an authorization code using this method.' };
    }
    const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
    const back = new URL(redirectUri);
    if (scopes.length === 0 || scopes.some((scope) => !KNOWN_SCOPES.has(scope))) {
      back.searchParams.set('error', 'invalid_scope');
    } else if (!signedIn) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = hex(64);
      codes.set(code, { username: signedIn, redirectUri, scopes });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    return { status: 302, headers: { location: back.toString() } };
  });

  http.route('POST /oauth/token', ({ rawBody, headers }) => {
    const form = new URLSearchParams(rawBody.toString('utf8'));
    if (!clientOf(form, headers.authorization)) {
      return oauthError(
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const code = form.get('code') ?? '';
        const issued = codes.get(code);
        codes.delete(code);
        if (!issued || issued.redirectUri !== form.get('redirect_uri')) {
          return oauthError(
            400,
            'invalid_grant',
            'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
          );
        }
        return { body: tokenAnswer(newGrant(issued.username, issued.scopes)) };
      }
      case 'refresh_token': {
        const previous = grantsByRefresh.get(form.get('refresh_token') ?? '');
        if (!previous) {
          return oauthError(
            400,
            'invalid_grant',
            'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
          );
        }
        // Refresh tokens rotate: the grant's earlier tokens stop working.
        dropGrant(previous);
        return { body: tokenAnswer(newGrant(previous.username, previous.scopes)) };
      }
      default:
        return oauthError(400, 'unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
    }
  });

  http.route('POST /oauth/revoke', ({ rawBody, headers }) => {
    const form = new URLSearchParams(rawBody.toString('utf8'));
    if (!clientOf(form, headers.authorization)) return oauthError(403, 'unauthorized_client', 'You are not authorized to revoke this token');
    const token = form.get('token') ?? '';
    const grant = grantsByAccess.get(token) ?? grantsByRefresh.get(token);
    if (grant) dropGrant(grant);
    return { body: {} };
  });

  http.route('GET /api/v4/user', (request) => {
    const user = users.get(grantOf(request).username)!;
    return { body: { id: user.id, username: user.username, name: user.name, state: 'active', web_url: `${request.url.origin}/${user.username}` } };
  });

  http.route('GET /api/v4/projects', (request) => {
    const { username } = grantOf(request);
    if (request.url.searchParams.get('membership') !== 'true') throw refuse(400, 'This fake lists only membership=true');
    const orderBy = request.url.searchParams.get('order_by') ?? 'created_at';
    if (orderBy !== 'last_activity_at') throw refuse(400, `This fake orders only by last_activity_at, not ${orderBy}`);
    const listed = [...projects.values()]
      .filter((project) => accessLevel(project.namespace, username) >= 10)
      .sort((a, b) => Date.parse(b.lastActivityAt) - Date.parse(a.lastActivityAt) || b.id - a.id);
    return paged(
      request,
      listed.map((project) => projectJson(request, project)),
    );
  });

  http.route('GET /api/v4/groups/:id', (request) => {
    const { username } = grantOf(request);
    const id = request.params.id;
    const group = /^\d+$/.test(id) ? [...groups.values()].find((candidate) => candidate.id === Number(id)) : groups.get(id.toLowerCase());
    if (!group || accessLevel(group.fullPath, username) < 10) throw refuse(404, '404 Group Not Found');
    return {
      body: {
        id: group.id,
        name: group.fullPath.split('/').at(-1),
        path: group.fullPath.split('/').at(-1),
        full_path: group.fullPath,
        visibility: 'private',
        web_url: `${request.url.origin}/groups/${group.fullPath}`,
      },
    };
  });

  /** An empty project in a group (by `namespace_id`) or the user's own namespace; private unless asked otherwise. */
  http.route('POST /api/v4/projects', (request) => {
    const { username } = grantOf(request);
    const body = jsonObject(request.rawBody);
    const group = body.namespace_id === undefined ? undefined : [...groups.values()].find((candidate) => candidate.id === body.namespace_id);
    if (body.namespace_id !== undefined && (!group || accessLevel(group.fullPath, username) < 10)) throw refuse(404, '404 Namespace Not Found');
    const namespace = group?.fullPath ?? username;
    if (accessLevel(namespace, username) < 30) throw refuse(403, '403 Forbidden');
    const path = typeof body.path === 'string' ? body.path : typeof body.name === 'string' ? body.name : '';
    if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/.test(path) || /\.(git|atom)$/.test(path)) {
      throw new FakeHttpError(400, { message: { path: ['can contain only letters, digits, _, - and .'] } });
    }
    if (findProject(`${namespace}/${path}`)) throw new FakeHttpError(400, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
    const visibility = body.visibility === 'internal' || body.visibility === 'public' ? body.visibility : 'private';
    const project = newProject(`${namespace}/${path}`, { visibility, files: null });
    return { status: 201, body: projectJson(request, project) };
  });

  http.route('GET /api/v4/projects/:id', (request) => ({ body: projectJson(request, visibleProject(request, request.params.id).project) }));

  http.route('GET /api/v4/projects/:id/repository/tree', (request) => {
    const { project } = visibleProject(request, request.params.id);
    const ref = request.url.searchParams.get('ref') ?? project.defaultBranch ?? '';
    const commit = commitAt(project, ref);
    if (!commit) throw refuse(404, '404 Tree Not Found');
    const path = (request.url.searchParams.get('path') ?? '').replace(/^\/+|\/+$/g, '');
    const children = treeEntries(commit, path);
    if (!children) throw refuse(404, '404 Tree Not Found');
    return paged(request, children);
  });

  http.route('GET /api/v4/projects/:id/repository/files/:filePath/raw', (request) => {
    const { project } = visibleProject(request, request.params.id);
    const ref = request.url.searchParams.get('ref');
    if (!ref) throw new FakeHttpError(400, { error: 'ref is missing' });
    const commit = commitAt(project, ref);
    if (!commit) throw refuse(404, '404 Commit Not Found');
    const file = commit.files.get(request.params.filePath);
    if (file === undefined || typeof file === 'object') throw refuse(404, '404 File Not Found');
    return { body: file, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-gitlab-size': String(Buffer.byteLength(file)) } };
  });

  http.route('GET /api/v4/projects/:id/repository/branches', (request) => {
    const { project } = visibleProject(request, request.params.id);
    return paged(
      request,
      [...project.branches.keys()].sort().map((name) => branchJson(project, name)),
    );
  });

  http.route('GET /api/v4/projects/:id/repository/branches/:branch', (request) => {
    const { project } = visibleProject(request, request.params.id);
    if (!project.branches.has(request.params.branch)) throw refuse(404, '404 Branch Not Found');
    return { body: branchJson(project, request.params.branch) };
  });

  http.route('POST /api/v4/projects/:id/hooks', (request) => {
    const { project } = visibleProject(request, request.params.id, 40);
    const body = jsonObject(request.rawBody);
    if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url))
      throw new FakeHttpError(400, { message: { url: ['is blocked: Only allowed schemes are http, https'] } });
    const hook = { id: (nextId += 1), url: body.url, token: typeof body.token === 'string' ? body.token : null, pushEvents: body.push_events !== false };
    project.hooks.set(hook.id, hook);
    return {
      status: 201,
      body: {
        id: hook.id,
        url: hook.url,
        project_id: project.id,
        push_events: hook.pushEvents,
        enable_ssl_verification: body.enable_ssl_verification !== false,
        created_at: new Date().toISOString(),
      },
    };
  });

  http.route('DELETE /api/v4/projects/:id/hooks/:hookId', (request) => {
    const { project } = visibleProject(request, request.params.id, 40);
    if (!project.hooks.delete(Number(request.params.hookId))) throw refuse(404, '404 Not found');
    return { status: 204 };
  });

  function addUser(username: string, name = username): void {
    users.set(username, { id: (nextId += 1), username, name });
  }

  function addMember(groupPath: string, username: string, level: FakeAccessLevel = 30): void {
    const segments = groupPath.split('/');
    for (let i = 1; i <= segments.length; i += 1) {
      const fullPath = segments.slice(0, i).join('/');
      if (!groups.has(fullPath.toLowerCase())) groups.set(fullPath.toLowerCase(), { id: (nextId += 1), fullPath, members: new Map() });
    }
    groups.get(groupPath.toLowerCase())!.members.set(username, level);
  }

  function newCommit(project: FakeGitLabProject, files: Record<string, FakeGitLabFile>, message: string): string {
    const id = createHash('sha1').update(`${project.id}:${project.commits.size}:${message}`).digest('hex');
    project.commits.set(id, { id, message, authorName: 'Grace Hopper', files: new Map(Object.entries(files)) });
    return id;
  }

  function newProject(fullPath: string, projectOptions: FakeGitLabProjectOptions = {}): FakeGitLabProject {
    const slash = fullPath.lastIndexOf('/');
    const project: FakeGitLabProject = {
      id: (nextId += 1),
      namespace: fullPath.slice(0, slash),
      path: fullPath.slice(slash + 1),
      visibility: projectOptions.visibility ?? 'private',
      description: projectOptions.description === undefined ? null : projectOptions.description,
      defaultBranch: null,
      lastActivityAt: projectOptions.lastActivityAt ?? new Date().toISOString(),
      branches: new Map(),
      commits: new Map(),
      hooks: new Map(),
    };
    projects.set(project.id, project);
    if (projectOptions.files !== null) {
      const branch = projectOptions.defaultBranch ?? 'main';
      project.branches.set(branch, newCommit(project, projectOptions.files ?? { 'README.md': '# readme\n' }, 'Initial commit'));
      project.defaultBranch = branch;
    }
    return project;
  }

  function projectNamed(fullPath: string): FakeGitLabProject {
    const project = findProject(fullPath);
    if (!project) throw new Error(`fake GitLab has no project ${fullPath}`);
    return project;
  }

  const { url } = await http.listen();
  return {
    baseUrl: url,
    oauthClient,
    requests: http.requests,
    addUser,
    addMember,
    addProject: newProject,
    addBranch(fullPath, name, files) {
      const project = projectNamed(fullPath);
      const base = project.defaultBranch ? commitAt(project, project.defaultBranch)!.files : new Map<string, FakeGitLabFile>();
      const id = newCommit(project, files ?? Object.fromEntries(base), `Work on ${name}`);
      project.branches.set(name, id);
      return id;
    },
    project: (fullPath) => findProject(fullPath),
    signIn(username) {
      signedIn = username;
    },
    issueCode(username, redirectUri) {
      const code = hex(64);
      codes.set(code, { username, redirectUri, scopes: ['api', 'read_repository'] });
      return code;
    },
    issueToken(username, tokenOptions = {}) {
      const grant = newGrant(username, tokenOptions.scopes ?? ['api', 'read_repository'], tokenOptions.expiresInSeconds);
      return { accessToken: grant.accessToken, refreshToken: grant.refreshToken };
    },
    tokenActive: (accessToken) => grantsByAccess.has(accessToken),
    fail: (route, fault) => http.fail({ ...fault, route }),
    close: () => http.close(),
  };
}

/** A directory's entries as GitLab's tree lists them, directories first; null when `path` is no directory. */
function treeEntries(commit: FakeGitLabCommit, path: string): Json[] | null {
  const prefix = path === '' ? '' : `${path}/`;
  const directories = new Set<string>();
  const files: Array<[string, FakeGitLabFile]> = [];
  for (const [filePath, file] of commit.files) {
    if (!filePath.startsWith(prefix)) continue;
    const rest = filePath.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) files.push([filePath, file]);
    else directories.add(`${prefix}${rest.slice(0, slash)}`);
  }
  if (directories.size === 0 && files.length === 0) return path === '' ? [] : null;
  const entry = (entryPath: string, type: string, mode: string) => ({
    id: createHash('sha1').update(entryPath).digest('hex'),
    name: entryPath.split('/').at(-1),
    type,
    path: entryPath,
    mode,
  });
  return [
    ...[...directories].sort().map((dir) => entry(dir, 'tree', '040000')),
    ...files
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([filePath, file]) =>
        typeof file === 'string'
          ? entry(filePath, 'blob', '100644')
          : 'symlink' in file
            ? entry(filePath, 'blob', '120000')
            : entry(filePath, 'commit', '160000'),
      ),
  ];
}

function jsonObject(raw: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new FakeHttpError(400, { error: 'The request body is not valid JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FakeHttpError(400, { error: 'The request body is not a JSON object' });
  return parsed as Json;
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

function hex(length: number): string {
  return randomBytes(length / 2).toString('hex');
}

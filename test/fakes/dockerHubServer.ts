import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createHttpFake, FakeHttpError, type FakeRequest, type Fault, type RecordedRequest } from './httpFake';

/**
 * A loopback Docker Hub API v2: `POST /v2/users/login` trading a username and a password or
 * personal access token for a JWT with an `exp` claim, bearer JWTs on every other call,
 * Django-REST pages (`{ count, next, previous, results }`, `page`/`page_size`, absolute `next`
 * links), `{ detail }` authentication refusals and `{ message, errinfo }` for the rest. It keeps
 * accounts, organisations with members, repositories (private ones seen only by members) and tags.
 */

type Json = Record<string, unknown>;

export type FakeDockerHubRoute =
  | 'POST /v2/users/login'
  | 'GET /v2/user/'
  | 'GET /v2/user/orgs/'
  | 'GET /v2/repositories/:namespace/'
  | 'GET /v2/namespaces/:namespace/repositories/:repository/tags';

export interface FakeHubRepository {
  namespace: string;
  name: string;
  isPrivate: boolean;
  description: string | null;
  pullCount: number;
  starCount: number;
  lastUpdated: string | null;
  tags: FakeHubTag[];
}

export interface FakeHubTag {
  name: string;
  fullSize: number;
  digest: string | null;
  lastUpdated: string | null;
}

export interface FakeDockerHub {
  apiUrl: string;
  requests: RecordedRequest<Buffer>[];
  /** An account and a personal access token for it; with `twoFactor` its password alone cannot log in. */
  addAccount(username: string, options?: { password?: string; twoFactor?: boolean }): { accessToken: string };
  /** A further access token of an account. */
  addAccessToken(username: string): string;
  revokeAccessToken(username: string, accessToken: string): void;
  addOrganisation(name: string, members: string[]): void;
  addRepository(namespace: string, name: string, options?: Partial<Omit<FakeHubRepository, 'namespace' | 'name' | 'tags'>>): FakeHubRepository;
  addTag(namespace: string, repository: string, tag: Partial<FakeHubTag> & Pick<FakeHubTag, 'name'>): void;
  /** Ends every JWT issued so far, as a password change does. */
  endSessions(): void;
  fail(route: FakeDockerHubRoute, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

export interface FakeDockerHubOptions {
  /** Lifetime of issued JWTs. */
  sessionSeconds?: number;
}

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 10;

const notFound = () => new FakeHttpError(404, { message: 'httperror 404: object not found', errinfo: {} });

interface Account {
  username: string;
  password: string | null;
  twoFactor: boolean;
  accessTokens: Set<string>;
}

export async function startFakeDockerHub(options: FakeDockerHubOptions = {}): Promise<FakeDockerHub> {
  const sessionSeconds = options.sessionSeconds ?? 600;
  const signingKey = randomBytes(32);
  const accounts = new Map<string, Account>();
  const organisations = new Map<string, Set<string>>();
  const repositories = new Map<string, FakeHubRepository>();
  const sessions = new Map<string, { username: string; expiresAt: number }>();

  const http = createHttpFake({
    name: 'Docker Hub',
    parseBody: 'raw',
    errorBody: ({ status, message }) => (status === 401 ? { detail: message } : { message, errinfo: {} }),
  });

  function sessionUser(request: FakeRequest<Buffer>): string {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ') && !header.startsWith('JWT ')) throw new FakeHttpError(401, { detail: 'Authentication credentials were not provided.' });
    const session = sessions.get(header.slice(header.indexOf(' ') + 1));
    if (!session) throw new FakeHttpError(401, { detail: 'Given token not valid for any token type' });
    if (session.expiresAt <= Date.now()) throw new FakeHttpError(401, { detail: 'Signature has expired.' });
    return session.username;
  }

  function memberOf(namespace: string, username: string): boolean {
    return namespace.toLowerCase() === username.toLowerCase() || (organisations.get(namespace.toLowerCase())?.has(username) ?? false);
  }

  /** Django REST's page: absolute `next` and `previous` links; a page past the end is 404 "Invalid page." */
  function paged(request: FakeRequest<Buffer>, all: unknown[]): Json {
    const pageSize = positiveInt(request.url.searchParams.get('page_size'), DEFAULT_PAGE_SIZE);
    if (pageSize > MAX_PAGE_SIZE) throw new FakeHttpError(400, { message: `page_size must be at most ${MAX_PAGE_SIZE}`, errinfo: {} });
    const page = positiveInt(request.url.searchParams.get('page'), 1);
    if (page > 1 && (page - 1) * pageSize >= all.length) throw new FakeHttpError(404, { detail: 'Invalid page.' });
    const link = (target: number) => {
      const url = new URL(request.url);
      url.searchParams.set('page', String(target));
      return url.toString();
    };
    return {
      count: all.length,
      next: page * pageSize < all.length ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
      results: all.slice((page - 1) * pageSize, page * pageSize),
    };
  }

  function jwtFor(username: string): string {
    const encode = (value: Json) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const expiresAt = Date.now() + sessionSeconds * 1000;
    const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: randomUUID(), username, exp: Math.floor(expiresAt / 1000), jti: randomUUID() })}`;
    const jwt = `${unsigned}.${createHmac('sha256', signingKey).update(unsigned).digest('base64url')}`;
    sessions.set(jwt, { username, expiresAt });
    return jwt;
  }

  http.route('POST /v2/users/login', ({ rawBody }) => {
    let body: Json;
    try {
      body = JSON.parse(rawBody.toString('utf8')) as Json;
    } catch {
      return { status: 400, body: { message: 'invalid JSON', errinfo: {} } };
    }
    const account = typeof body.username === 'string' ? accounts.get(body.username.toLowerCase()) : undefined;
    const password = typeof body.password === 'string' ? body.password : '';
    if (account && account.accessTokens.has(password)) return { body: { token: jwtFor(account.username) } };
    if (account && account.password !== null && account.password === password) {
      if (account.twoFactor) {
        return { status: 401, body: { detail: 'Require secondary authentication on MFA enabled account', login_2fa_token: randomBytes(16).toString('hex') } };
      }
      return { body: { token: jwtFor(account.username) } };
    }
    return { status: 401, body: { detail: 'Incorrect authentication credentials' } };
  });

  http.route('GET /v2/user/', (request) => {
    const username = sessionUser(request);
    return { body: { id: randomUUID(), username, full_name: '', location: '', company: '', date_joined: '2020-01-01T00:00:00Z', type: 'User' } };
  });

  http.route('GET /v2/user/orgs/', (request) => {
    const username = sessionUser(request);
    const names = [...organisations.entries()]
      .filter(([, members]) => members.has(username))
      .map(([name]) => name)
      .sort();
    return {
      body: paged(
        request,
        names.map((orgname) => ({ id: randomUUID(), orgname, full_name: orgname, type: 'Organization' })),
      ),
    };
  });

  http.route('GET /v2/repositories/:namespace/', (request) => {
    const username = sessionUser(request);
    const namespace = request.params.namespace.toLowerCase();
    if (!accounts.has(namespace) && !organisations.has(namespace)) throw notFound();
    const listed = [...repositories.values()]
      .filter((repository) => repository.namespace === namespace && (!repository.isPrivate || memberOf(namespace, username)))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    return {
      body: paged(
        request,
        listed.map((repository) => ({
          name: repository.name,
          namespace: repository.namespace,
          repository_type: 'image',
          status: 1,
          status_description: 'active',
          description: repository.description,
          is_private: repository.isPrivate,
          star_count: repository.starCount,
          pull_count: repository.pullCount,
          last_updated: repository.lastUpdated,
          date_registered: '2022-01-01T00:00:00.000000Z',
          affiliation: '',
          media_types: [],
          content_types: [],
          categories: [],
        })),
      ),
    };
  });

  http.route('GET /v2/namespaces/:namespace/repositories/:repository/tags', (request) => {
    const username = sessionUser(request);
    const repository = repositories.get(`${request.params.namespace.toLowerCase()}/${request.params.repository.toLowerCase()}`);
    if (!repository || (repository.isPrivate && !memberOf(repository.namespace, username))) throw notFound();
    const tags = [...repository.tags].sort((a, b) => Date.parse(b.lastUpdated ?? '0') - Date.parse(a.lastUpdated ?? '0'));
    return {
      body: paged(
        request,
        tags.map((tag) => ({
          creator: 1,
          id: Math.floor(Math.random() * 1e9),
          images: tag.digest ? [{ architecture: 'amd64', os: 'linux', digest: tag.digest, size: tag.fullSize, status: 'active' }] : [],
          last_updated: tag.lastUpdated,
          last_updater_username: repository.namespace,
          name: tag.name,
          repository: 1,
          full_size: tag.fullSize,
          v2: true,
          tag_status: 'active',
          media_type: 'application/vnd.oci.image.index.v1+json',
          ...(tag.digest && { digest: tag.digest }),
        })),
      ),
    };
  });

  function accountNamed(username: string): Account {
    const account = accounts.get(username.toLowerCase());
    if (!account) throw new Error(`fake Docker Hub has no account ${username}`);
    return account;
  }

  function addAccessToken(username: string): string {
    const token = `dckr_pat_${randomBytes(20).toString('base64url')}`;
    accountNamed(username).accessTokens.add(token);
    return token;
  }

  const { url } = await http.listen();
  return {
    apiUrl: url,
    requests: http.requests,
    addAccount(username, accountOptions = {}) {
      accounts.set(username.toLowerCase(), {
        username: username.toLowerCase(),
        password: accountOptions.password ?? null,
        twoFactor: accountOptions.twoFactor ?? false,
        accessTokens: new Set(),
      });
      return { accessToken: addAccessToken(username) };
    },
    addAccessToken,
    revokeAccessToken(username, accessToken) {
      accountNamed(username).accessTokens.delete(accessToken);
    },
    addOrganisation(name, members) {
      organisations.set(name.toLowerCase(), new Set(members.map((member) => member.toLowerCase())));
    },
    addRepository(namespace, name, repositoryOptions = {}) {
      const repository: FakeHubRepository = {
        namespace: namespace.toLowerCase(),
        name: name.toLowerCase(),
        isPrivate: false,
        description: '',
        pullCount: 0,
        starCount: 0,
        lastUpdated: null,
        ...repositoryOptions,
        tags: [],
      };
      repositories.set(`${repository.namespace}/${repository.name}`, repository);
      return repository;
    },
    addTag(namespace, repository, tag) {
      const found = repositories.get(`${namespace.toLowerCase()}/${repository.toLowerCase()}`);
      if (!found) throw new Error(`fake Docker Hub has no repository ${namespace}/${repository}`);
      found.tags.push({ fullSize: 0, digest: null, lastUpdated: null, ...tag });
    },
    endSessions() {
      sessions.clear();
    },
    fail: (route, fault) => http.fail({ ...fault, route }),
    close: () => http.close(),
  };
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

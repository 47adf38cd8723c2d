import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../platform/errors';
import { parseJson, UpstreamClient, UpstreamRefusal, type UpstreamCall } from '../upstreamHttp';
import type { ImageHubCredential, ImageHubProvider, ImageHubRepository, ImageHubTag } from './types';

export interface DockerHubOptions {
  /** `https://hub.docker.com` in production; a loopback fake in tests. */
  apiUrl: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs: number;
}

const LABEL = 'The image hub';
/** Docker Hub's largest page. */
const PAGE_SIZE = 100;
/** A session is dropped this long before its JWT expires, so no request carries one about to lapse. */
const SESSION_MARGIN_MS = 60_000;
/** How long a session whose JWT names no expiry is kept. */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;

const loginSchema = z.looseObject({ token: z.string().min(1) });
const loginRefusalSchema = z.looseObject({ detail: z.string().optional(), login_2fa_token: z.string().optional() });
const jwtClaimsSchema = z.looseObject({ exp: z.number() });
const errorBodySchema = z.looseObject({ detail: z.string().optional(), message: z.string().optional() });
const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date');

const userSchema = z.looseObject({ username: z.string().min(1) });
const organisationSchema = z.looseObject({ orgname: z.string().min(1) });
const pageSchema = z.looseObject({ next: z.string().nullish(), results: z.array(z.unknown()) });
const repositorySchema = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().min(1),
  is_private: z.boolean(),
  description: z.string().nullish(),
  pull_count: z.number().int().nonnegative(),
  star_count: z.number().int().nonnegative(),
  last_updated: isoDate.nullish(),
});
const tagSchema = z.looseObject({
  name: z.string().min(1),
  full_size: z.number().int().nonnegative().nullish(),
  digest: z.string().nullish(),
  last_updated: isoDate.nullish(),
});

interface Session {
  jwt: string;
  /** Epoch milliseconds after which the session is not used. */
  usableUntil: number;
}

/**
 * The production image hub on Docker Hub's API v2. The customer's username and access token log
 * in for a JWT that the other calls carry; the JWT is kept in memory per credential, under a
 * SHA-256 of the credential rather than the token, and for less than its lifetime. Every answer is
 * checked against the shape used. Neither the token nor a JWT reaches a message, a cause or a log line.
 */
export class DockerHubProvider implements ImageHubProvider {
  readonly kind = 'dockerhub' as const;
  readonly description = 'Docker Hub (API v2), reached with each project’s username and access token';
  readonly #http: UpstreamClient;
  readonly #sessions = new Map<string, Session>();
  readonly #loggingIn = new Map<string, Promise<Session>>();

  constructor(options: DockerHubOptions) {
    this.#http = new UpstreamClient({
      label: LABEL,
      name: 'the image hub',
      logFields: { provider: 'dockerhub' },
      // Every call is below /v2, and so must every next link be.
      apiUrl: `${options.apiUrl.replace(/\/+$/, '')}/v2`,
      timeoutMs: options.timeoutMs,
      credentialInvalidCode: 'IMAGE_HUB_CREDENTIAL_INVALID',
      upstreamMessage,
      refusals: {
        unauthorized: (operation) => `${LABEL} refused the username and access token while ${operation}`,
        forbidden: (operation) => ({ code: 'NOT_FOUND', message: `The image hub account may not do this (${operation})` }),
      },
    });
  }

  /** Always a fresh login: a cached session would vouch for a token revoked since. */
  async verify(credential: ImageHubCredential): Promise<{ username: string }> {
    const session = await this.logIn(credential);
    return { username: (await this.user(credential, session.jwt)).username };
  }

  async listRepositories(credential: ImageHubCredential): Promise<ImageHubRepository[]> {
    return this.withSession(credential, async (jwt) => {
      const namespaces = [(await this.user(credential, jwt)).username, ...(await this.organisations(credential, jwt))];
      const unique = [...new Map(namespaces.map((namespace) => [namespace.toLowerCase(), namespace])).values()];
      const listings = await Promise.all(
        unique.map((namespace) =>
          this.collect(
            this.read(credential, jwt, this.#http.url(`/repositories/${segment(namespace)}/`), 'listing repositories', `Namespace ${namespace}`),
            repositorySchema,
          ),
        ),
      );
      return listings
        .flat()
        .map((repository): ImageHubRepository => ({
          namespace: repository.namespace,
          name: repository.name,
          private: repository.is_private,
          description: repository.description || null,
          pullCount: repository.pull_count,
          starCount: repository.star_count,
          lastUpdated: repository.last_updated ? new Date(repository.last_updated).toISOString() : null,
        }))
        .sort((a, b) => newestFirst(a.lastUpdated, b.lastUpdated) || compare(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
    });
  }

  async listTags(credential: ImageHubCredential, namespace: string, repository: string): Promise<ImageHubTag[]> {
    const url = this.#http.url(`/namespaces/${segment(namespace)}/repositories/${segment(repository)}/tags`);
    return this.withSession(credential, async (jwt) => {
      const tags = await this.collect(this.read(credential, jwt, url, 'listing tags', `Repository ${namespace}/${repository}`), tagSchema);
      return tags
        .map((tag): ImageHubTag => ({
          name: tag.name,
          size: tag.full_size ?? 0,
          digest: tag.digest || null,
          lastUpdated: tag.last_updated ? new Date(tag.last_updated).toISOString() : null,
        }))
        .sort((a, b) => newestFirst(a.lastUpdated, b.lastUpdated) || compare(a.name, b.name));
    });
  }

  /**
   * Runs `work` with the credential's session. A cached session can end before its time (the
   * token revoked, the password changed), so a refusal of one is answered by one fresh login.
   */
  private async withSession<T>(credential: ImageHubCredential, work: (jwt: string) => Promise<T>): Promise<T> {
    const key = sessionKey(credential);
    const cached = this.#sessions.get(key);
    if (cached && cached.usableUntil > Date.now()) {
      try {
        return await work(cached.jwt);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'IMAGE_HUB_CREDENTIAL_INVALID')) throw err;
        this.#sessions.delete(key);
      }
    }
    return work((await this.session(credential, key)).jwt);
  }

  /** One login per credential at a time: parallel listings share it. */
  private session(credential: ImageHubCredential, key: string): Promise<Session> {
    let pending = this.#loggingIn.get(key);
    if (!pending) {
      pending = this.logIn(credential).finally(() => this.#loggingIn.delete(key));
      this.#loggingIn.set(key, pending);
    }
    return pending;
  }

  private async logIn(credential: ImageHubCredential): Promise<Session> {
    const operation = 'logging in';
    const call: UpstreamCall = {
      method: 'POST',
      url: this.#http.url('/users/login'),
      operation,
      body: { json: { username: credential.username, password: credential.accessToken } },
      secrets: [credential.accessToken],
    };
    const reply = await this.#http.send(call);
    if (reply.status === 401) {
      const refusal = loginRefusalSchema.safeParse(parseJson(reply.text));
      this.#http.logFailure(call, reply.status, 'login refused');
      throw new AppError(
        'IMAGE_HUB_CREDENTIAL_INVALID',
        refusal.success && refusal.data.login_2fa_token
          ? `${LABEL} asks this account for a second factor: connect with a personal access token instead of the password`
          : `${LABEL} refused the username and access token`,
      );
    }
    if (reply.status !== 200) throw this.#http.refusal(call, reply);
    const { token: jwt } = this.#http.parse(loginSchema, parseJson(reply.text), operation);
    const session = { jwt, usableUntil: usableUntil(jwt, Date.now()) };
    this.remember(sessionKey(credential), session);
    return session;
  }

  private remember(key: string, session: Session): void {
    const now = Date.now();
    for (const [other, kept] of this.#sessions) if (kept.usableUntil <= now) this.#sessions.delete(other);
    if (session.usableUntil > now) this.#sessions.set(key, session);
  }

  private user(credential: ImageHubCredential, jwt: string): Promise<z.output<typeof userSchema>> {
    return this.#http.json(this.read(credential, jwt, this.#http.url('/user/'), 'reading the account'), userSchema);
  }

  /**
   * The organisations the user belongs to. The hub may refuse the listing (403) to an access token
   * whose scopes do not cover it; the user's own namespace is then all it reaches.
   */
  private async organisations(credential: ImageHubCredential, jwt: string): Promise<string[]> {
    try {
      const organisations = await this.collect(this.read(credential, jwt, this.#http.url('/user/orgs/'), 'listing organisations'), organisationSchema);
      return organisations.map((organisation) => organisation.orgname);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND' && err.cause instanceof UpstreamRefusal && err.cause.status === 403) return [];
      throw err;
    }
  }

  /** Every item of a listing, following `next` links. */
  private collect<S extends z.ZodType>(first: UpstreamCall, item: S): Promise<z.output<S>[]> {
    return this.#http.collect({ ...first, url: this.#http.url(first.url, { page_size: String(PAGE_SIZE) }) }, item, (body) => {
      const page = this.#http.parse(pageSchema, body, first.operation);
      return { items: page.results, next: page.next };
    });
  }

  /** A GET carrying the session's JWT. */
  private read(credential: ImageHubCredential, jwt: string, url: URL, operation: string, subject?: string): UpstreamCall {
    return { method: 'GET', url, authorization: `Bearer ${jwt}`, operation, subject, secrets: [credential.accessToken, jwt] };
  }
}

/** The cache key of a credential: its digest, so the token itself is never held beside its session. */
function sessionKey(credential: ImageHubCredential): string {
  return createHash('sha256').update(`${credential.username}\u0000${credential.accessToken}`).digest('hex');
}

/** When a session stops being used: a margin before its JWT's `exp`, or a short while when it names none. */
function usableUntil(jwt: string, now: number): number {
  try {
    const claims = jwtClaimsSchema.safeParse(JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')));
    if (claims.success) return claims.data.exp * 1000 - SESSION_MARGIN_MS;
  } catch {
    // A token that is no readable JWT names no expiry.
  }
  return now + UNKNOWN_LIFETIME_MS;
}

/** A namespace or repository name as one path segment; empty and dot names would change the path itself. */
function segment(name: string): string {
  if (name === '' || name === '.' || name === '..') throw new AppError('NOT_FOUND', `${name || 'An empty name'} names nothing on the image hub`);
  return encodeURIComponent(name);
}

function newestFirst(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return Date.parse(b) - Date.parse(a);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Docker Hub's `{ detail }` (authentication) or `{ message }` (the rest). */
function upstreamMessage(text: string): string {
  const body = errorBodySchema.safeParse(parseJson(text));
  return body.success ? (body.data.detail ?? body.data.message ?? '') : '';
}

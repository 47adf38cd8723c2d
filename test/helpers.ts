import { randomBytes } from 'node:crypto';
import { encode } from 'next-auth/jwt';
import { expect } from 'vitest';
import { getConfig } from '../server/platform/config';
import { restApi } from '../server/app';
import type { Scope } from '../server/platform/auth/scopes';
import type { Account } from '../server/domains/accounts/schema';
import type { CreatedApiKey } from '../server/domains/apiKeys/schema';
import { verificationToken } from './mailbox';

export const ORIGIN = 'http://localhost:3000';

export interface Credentials {
  /** A panel session cookie header value. */
  cookie?: string;
  /** An API key, sent as Authorization: Bearer. */
  key?: string;
  /** An API key, sent as X-API-Key. */
  xApiKey?: string;
}

export interface ApiResult<T = unknown> {
  status: number;
  headers: Headers;
  body: { success: true; data: T } | { success: false; error: { code: string; message: string; docsUrl?: string } } | null;
  /** The data of a successful answer (throws with the error when it was not). */
  data: T;
}

/** Calls the /v1 bridge exactly as an HTTP client would, without a listening server. */
export async function api<T = unknown>(
  method: string,
  path: string,
  options: Credentials & { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined || options.rawBody !== undefined) headers['content-type'] ??= 'application/json';
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.xApiKey) headers['x-api-key'] = options.xApiKey;
  if (options.cookie) {
    headers.cookie = options.cookie;
    headers.origin ??= ORIGIN;
  }
  const res = await restApi.handleFetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    }),
  );
  const text = await res.text();
  const body = text ? (JSON.parse(text) as ApiResult<T>['body']) : null;
  return {
    status: res.status,
    headers: res.headers,
    body,
    get data(): T {
      if (!body || !body.success) throw new Error(`Expected success, got ${res.status} ${text}`);
      return body.data;
    },
  };
}

/** Asserts the failure envelope with the given status and code. */
export function expectError(result: ApiResult, status: number, code: string): void {
  expect({ status: result.status, body: result.body }).toMatchObject({ status, body: { success: false, error: { code } } });
  if (result.body && !result.body.success) expect(result.body.error.message.length).toBeGreaterThan(0);
}

export interface TestUser {
  id: string;
  email: string;
  name: string;
  password: string;
  cookie: string;
}

let counter = 0;

/**
 * Signs up through the API and returns a session cookie like the panel's sign-in would set. The
 * address is verified the way its owner would, with the link from the dev mailbox, unless
 * `verified: false` asks for an account that has not done so yet.
 */
export async function createUser(name = 'Test User', options: { verified?: boolean } = {}): Promise<TestUser> {
  counter += 1;
  const email = `user${counter}-${randomBytes(3).toString('hex')}@example.com`;
  const password = 'correct horse battery staple';
  const res = await api<{ user: Account }>('POST', '/v1/accounts', {
    body: { name, email, password },
  });
  const user = res.data.user;
  if (options.verified !== false) await verifyEmailFromMailbox(user.email);
  return { ...user, password, cookie: await sessionCookie(user.id) };
}

/** Opens the newest verification link mailed to the address, as its owner would. */
export async function verifyEmailFromMailbox(email: string): Promise<void> {
  await api('POST', '/v1/accounts/verify-email', { body: { token: await verificationToken(email) } }).then((r) => r.data);
}

export async function sessionCookie(userId: string, version = 1): Promise<string> {
  const token = await encode({ token: { sub: userId, ver: version }, secret: getConfig().AUTH_SECRET });
  return `panel.session-token=${token}`;
}

export async function createProject(user: TestUser, name = `Project ${randomBytes(3).toString('hex')}`) {
  const res = await api<{ projectId: string; projectSlug: string }>('POST', '/v1/projects/create', {
    cookie: user.cookie,
    body: { name },
  });
  return res.data;
}

export async function createApiKey(user: TestUser, projectId: string, scopes: Scope[], extra: { expiresAt?: string } = {}) {
  const res = await api<CreatedApiKey>('POST', `/v1/projects/${projectId}/api-keys`, {
    cookie: user.cookie,
    body: { name: 'test key', scopes, ...extra },
  });
  return res.data;
}

import { ApiError } from '@cloudpanel/sdk';

/** A panel session: the cookie the platform set at sign-in, for the operations SPEC keeps to sessions. */
export interface StoredSession {
  /** `name=value`, as sent back in a Cookie header. */
  cookie: string;
  email: string;
  /** When the platform lets the session end (UTC ISO 8601); null when it named no time. */
  expiresAt: string | null;
}

/** The platform's address without `/v1`: sign-in is the panel's, not the API's. */
export const rootUrlOf = (apiUrl: string) => apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

/**
 * Signs in with email and password exactly as the panel's sign-in form does (a CSRF token, then the
 * credentials endpoint), and answers the session cookie it sets. Wrong credentials are 401
 * UNAUTHORIZED; the platform's own throttling of failed sign-ins applies.
 */
export async function signIn(apiUrl: string, email: string, password: string, fetchImpl: typeof fetch = fetch): Promise<StoredSession> {
  const root = rootUrlOf(apiUrl);
  const csrf = await fetchImpl(`${root}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken?: string };
  if (!csrfToken) throw new ApiError({ status: csrf.status, code: 'UNEXPECTED_RESPONSE', message: `${root} did not offer a sign-in (no CSRF token)` });
  const res = await fetchImpl(`${root}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiePairs(csrf.headers), origin: root },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true' }),
  });
  const session = res.headers.getSetCookie().find((c) => /^(__Secure-)?panel\.session-token=/.test(c));
  if (!session) throw new ApiError({ status: 401, code: 'UNAUTHORIZED', message: 'Wrong email or password, or too many attempts: try again later' });
  return { cookie: session.split(';')[0]!, email, expiresAt: expiryOf(session) };
}

/** The cookies a response set, as a Cookie header sends them back. */
function cookiePairs(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

function expiryOf(setCookie: string): string | null {
  const expires = /;\s*expires=([^;]+)/i.exec(setCookie)?.[1];
  const at = expires ? Date.parse(expires) : NaN;
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

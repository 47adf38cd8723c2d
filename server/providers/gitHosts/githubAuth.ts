import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

/**
 * How the platform authenticates as its GitHub App: a short-lived RS256 JWT signed with the app's
 * private key, traded per installation for an installation access token that the REST calls use.
 */

/** GitHub refuses an app JWT that lives longer than ten minutes. */
const JWT_LIFETIME_SECONDS = 10 * 60;
/** GitHub's advice: date `iat` back a minute, so a GitHub clock slightly behind ours still accepts it. */
const JWT_BACKDATE_SECONDS = 60;
/** A token this close to its `expires_at` is replaced, so no call starts with one about to lapse. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

/** Parses the app's PEM key once; the error names the setting (OpenSSL's reasons never quote the key). */
export function loadAppPrivateKey(pem: string): KeyObject {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`a ${key.asymmetricKeyType ?? 'non-RSA'} key`);
    return key;
  } catch (err) {
    throw new Error('GIT_HOST_1_PRIVATE_KEY is not the PEM of an RSA private key (the .pem file GitHub issues for the app)', { cause: err });
  }
}

/** The app's JWT for the endpoints GitHub authenticates as the app itself (`/app/...`). */
export function appJwt(appId: string, privateKey: KeyObject, nowMs: number = Date.now()): string {
  const now = Math.floor(nowMs / 1000);
  const iat = now - JWT_BACKDATE_SECONDS;
  const header = base64Url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64Url(JSON.stringify({ iat, exp: iat + JWT_LIFETIME_SECONDS, iss: appId }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey);
  return `${header}.${payload}.${base64Url(signature)}`;
}

export interface InstallationToken {
  token: string;
  expiresAtMs: number;
}

/**
 * Installation access tokens, kept in memory per installation until five minutes before they
 * expire. Concurrent callers needing the same installation share one request for a new token.
 */
export class InstallationTokenCache {
  readonly #mint: (installationId: string) => Promise<InstallationToken>;
  readonly #tokens = new Map<string, InstallationToken>();
  readonly #pending = new Map<string, Promise<InstallationToken>>();
  readonly #now: () => number;

  constructor(mint: (installationId: string) => Promise<InstallationToken>, now: () => number = Date.now) {
    this.#mint = mint;
    this.#now = now;
  }

  async get(installationId: string): Promise<string> {
    const cached = this.#tokens.get(installationId);
    if (cached && cached.expiresAtMs - TOKEN_REFRESH_MARGIN_MS > this.#now()) return cached.token;
    let pending = this.#pending.get(installationId);
    if (!pending) {
      pending = this.#mint(installationId).finally(() => this.#pending.delete(installationId));
      this.#pending.set(installationId, pending);
      const minted = await pending;
      this.#tokens.set(installationId, minted);
      return minted.token;
    }
    return (await pending).token;
  }

  /**
   * Forgets a token GitHub refused. Only that token: a caller late with its refusal must not throw
   * away the fresh token another caller has fetched meanwhile. Without `token`, whatever is held.
   */
  drop(installationId: string, token?: string): void {
    const cached = this.#tokens.get(installationId);
    if (cached && (token === undefined || cached.token === token)) this.#tokens.delete(installationId);
  }
}

function base64Url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'cpk_';
/** Characters of a key kept in clear (the product prefix plus the first eight random ones). */
export const API_KEY_VISIBLE_LENGTH = API_KEY_PREFIX.length + 8;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_VISIBLE_LENGTH), hash: sha256Hex(key) };
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && value.length > API_KEY_VISIBLE_LENGTH && value.length < 200;
}

/** A single-use token (password reset): the raw value goes in the email, only its hash is stored. */
export function generateOneTimeToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

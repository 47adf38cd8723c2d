import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Opaque ids with a readable prefix telling what they name (prj_…, usr_…); 16 random base-36 characters. */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}

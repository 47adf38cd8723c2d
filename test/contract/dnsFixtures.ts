import { randomBytes } from 'node:crypto';

/** A token of the DNS simulator's accepted shape (40 characters), new each call: each test gets its own DNS account. */
export function simulatedToken(): string {
  return randomBytes(30).toString('base64url');
}

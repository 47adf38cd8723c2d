import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** PostgreSQL's own choice (`scram_iterations` defaults to 4096). */
export const SCRAM_ITERATIONS = 4096;
const SALT_BYTES = 16;

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802/7677):
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, all base64. Handed to
 * `CREATE/ALTER ROLE ... PASSWORD '<verifier>'`, which stores it as is, so the plain password
 * never reaches the server, its statement log or pg_stat_activity.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(SALT_BYTES), iterations = SCRAM_ITERATIONS): string {
  const saltedPassword = pbkdf2Sync(Buffer.from(checkedPassword(password), 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = hmac(saltedPassword, 'Client Key');
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = hmac(saltedPassword, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Tenant passwords are made by the platform (random base64url): printable ASCII, which SASLprep
 * (what PostgreSQL and libpq apply before hashing) leaves as it is. Anything else would need
 * SASLprep here to match what clients send, so it is refused rather than hashed differently.
 */
function checkedPassword(password: string): string {
  if (!/^[\x21-\x7e]+$/.test(password)) throw new Error('Tenant passwords must be printable ASCII without spaces');
  return password;
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

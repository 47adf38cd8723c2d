import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getKeyring, type Keyring } from './keyring';

/**
 * Envelope encryption with AES-256-GCM: each value gets a data key of its own, which is wrapped by
 * the current master key; the master key's id travels with the value so that master keys can
 * rotate (`rewrap`) without touching the value's own ciphertext. The value is bound to the row it
 * belongs to (`boundTo`, its id, as additional authenticated data): a ciphertext copied into
 * another row does not open.
 *
 * Stored as one text: `v1.<master key id>.<wrapped data key>.<ciphertext>`, each part base64url of
 * `iv (12) | tag (16) | encrypted bytes`.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function decrypt(key: Buffer, sealed: string, aad: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** The data key is bound to its value's row and to the master key that wraps it. */
const wrapAad = (boundTo: string, keyId: string) => `data-key:${keyId}:${boundTo}`;

interface Parts {
  keyId: string;
  wrappedKey: string;
  ciphertext: string;
}

function parse(sealed: string): Parts {
  const [version, keyId, wrappedKey, ciphertext, ...rest] = sealed.split('.');
  if (version !== VERSION || !keyId || !wrappedKey || !ciphertext || rest.length > 0) throw new Error('Not a sealed value');
  return { keyId, wrappedKey, ciphertext };
}

function masterKey(keyring: Keyring, keyId: string): Buffer {
  const found = keyring.byId.get(keyId);
  if (!found) throw new Error(`The master key ${keyId} that sealed this value is not configured`);
  return found.key;
}

export function seal(plaintext: string, boundTo: string, keyring: Keyring = getKeyring()): string {
  const dataKey = randomBytes(32);
  const { id, key } = keyring.current;
  return [VERSION, id, encrypt(key, dataKey, wrapAad(boundTo, id)), encrypt(dataKey, Buffer.from(plaintext, 'utf8'), boundTo)].join('.');
}

export function open(sealed: string, boundTo: string, keyring: Keyring = getKeyring()): string {
  const { keyId, wrappedKey, ciphertext } = parse(sealed);
  const dataKey = decrypt(masterKey(keyring, keyId), wrappedKey, wrapAad(boundTo, keyId));
  return decrypt(dataKey, ciphertext, boundTo).toString('utf8');
}

/** The id of the master key that wraps a sealed value's data key. */
export function sealedWith(sealed: string): string {
  return parse(sealed).keyId;
}

/**
 * The same value with its data key wrapped by the current master key instead; the ciphertext of the
 * value is kept as it is. Returns the input when it already is.
 */
export function rewrap(sealed: string, boundTo: string, keyring: Keyring = getKeyring()): string {
  const { keyId, wrappedKey, ciphertext } = parse(sealed);
  const { id, key } = keyring.current;
  if (keyId === id) return sealed;
  const dataKey = decrypt(masterKey(keyring, keyId), wrappedKey, wrapAad(boundTo, keyId));
  return [VERSION, id, encrypt(key, dataKey, wrapAad(boundTo, id)), ciphertext].join('.');
}

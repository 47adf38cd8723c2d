import { createHash, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { invalidField, type AppError } from '../../platform/errors';
import { SSH_KEY_TYPES, type SshKeyType } from './schema';

export const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 16_384;

export interface ParsedPublicKey {
  keyType: SshKeyType;
  bits: number;
  comment: string | null;
  /** The decoded key blob (SSH wire format), what the fingerprint is computed over. */
  blob: Buffer;
  /** `SHA256:` and the unpadded base64 of the blob's SHA-256, exactly as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** `<type> <base64>[ <comment>]` with single spaces. */
  publicKey: string;
}

export interface GeneratedKeyPair {
  publicKey: ParsedPublicKey;
  /** The private key in OpenSSH's own format (`openssh-key-v1`, unencrypted). */
  privateKey: string;
}

const ECDSA_CURVES = {
  nistp256: { jwkCurve: 'P-256', bits: 256, coordinateBytes: 32 },
  nistp384: { jwkCurve: 'P-384', bits: 384, coordinateBytes: 48 },
  nistp521: { jwkCurve: 'P-521', bits: 521, coordinateBytes: 66 },
} as const;

/**
 * Parses one OpenSSH public key line (`<type> <base64> [comment]`), decodes the blob and checks it
 * really holds a key of the named type, as OpenSSH would before trusting it. Anything else is a 422
 * whose message says what is wrong and how to get a usable key.
 */
export function parsePublicKey(input: string): ParsedPublicKey {
  const text = input.trim();
  if (!text) throw invalid('The public key is empty; paste the contents of your .pub file');
  rejectOtherFormats(text);
  if (/[\r\n]/.test(text)) throw invalid('Paste exactly one public key, on a single line');

  const [type = '', data, ...commentWords] = text.split(/[ \t]+/);
  const keyType = supportedType(type);
  if (!data) throw invalid(`The key data (base64) is missing after "${keyType}"`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) {
    throw invalid('The key data is not valid base64; copy the whole line of the .pub file without line breaks');
  }
  const blob = Buffer.from(data, 'base64');
  // Buffer.from ignores what it cannot decode; a canonical round trip proves nothing was dropped.
  if (blob.toString('base64') !== data) throw invalid('The key data is not valid base64; copy the whole line of the .pub file without line breaks');

  const bits = checkBlob(keyType, blob);
  const comment = commentWords.length ? commentWords.join(' ') : null;
  return {
    keyType,
    bits,
    comment,
    blob,
    fingerprint: fingerprintOf(blob),
    publicKey: comment ? `${keyType} ${data} ${comment}` : `${keyType} ${data}`,
  };
}

export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * A fresh ed25519 key pair. The private key is encoded in OpenSSH's `openssh-key-v1` container
 * (cipher and KDF "none"), which every OpenSSH since 6.5 reads; `comment` goes into both halves.
 */
export function generateEd25519KeyPair(comment: string): GeneratedKeyPair {
  const pair = generateKeyPairSync('ed25519');
  const publicJwk = pair.publicKey.export({ format: 'jwk' });
  const privateJwk = pair.privateKey.export({ format: 'jwk' });
  const publicBytes = Buffer.from(publicJwk.x ?? '', 'base64url');
  const seed = Buffer.from(privateJwk.d ?? '', 'base64url');
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(publicBytes)]);

  // Both check integers must match when OpenSSH decrypts; with no cipher they only have to be equal.
  const checkInt = randomBytes(4);
  const privateSection = padToBlock(
    Buffer.concat([checkInt, checkInt, sshString('ssh-ed25519'), sshString(publicBytes), sshString(Buffer.concat([seed, publicBytes])), sshString(comment)]),
    8,
  );
  const container = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(blob),
    sshString(privateSection),
  ]);
  const body = container.toString('base64').replace(/.{70}/g, '$&\n').replace(/\n$/, '');
  const privateKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const line = comment ? `ssh-ed25519 ${blob.toString('base64')} ${comment}` : `ssh-ed25519 ${blob.toString('base64')}`;
  return { publicKey: parsePublicKey(line), privateKey };
}

function invalid(message: string): AppError {
  return invalidField('publicKey', message);
}

function rejectOtherFormats(text: string): void {
  if (/^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw invalid(
      'This is a private key, which must never leave your computer. Paste the public key: the .pub file, or the output of `ssh-keygen -y -f <private key file>`',
    );
  }
  if (text.startsWith('---- BEGIN SSH2 PUBLIC KEY ----')) {
    throw invalid('This is an RFC 4716 (SSH2) public key; convert it with `ssh-keygen -i -f <file>` and paste the one-line result');
  }
  if (/^-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(text)) {
    throw invalid('This is a PEM public key; convert it with `ssh-keygen -i -m PKCS8 -f <file>` and paste the one-line result');
  }
}

function supportedType(type: string): SshKeyType {
  if ((SSH_KEY_TYPES as readonly string[]).includes(type)) return type as SshKeyType;
  const supported = SSH_KEY_TYPES.join(', ');
  if (type === 'ssh-dss') throw invalid(`DSA keys (ssh-dss) are no longer accepted by OpenSSH; generate an ed25519 key instead. Supported types: ${supported}`);
  if (type.startsWith('sk-')) throw invalid(`Security-key (FIDO) keys (${printable(type)}) are not supported. Supported types: ${supported}`);
  if (/[=,"]/.test(type))
    throw invalid(`The line starts with authorized_keys options; paste only the key, starting with its type. Supported types: ${supported}`);
  throw invalid(`Unsupported key type "${printable(type)}". Supported types: ${supported}`);
}

/** Decodes the wire-format blob for `keyType` and returns the key's size in bits. */
function checkBlob(keyType: SshKeyType, blob: Buffer): number {
  const reader = new WireReader(blob);
  const inner = reader.text();
  if (inner !== keyType) {
    throw invalid(`The line says ${keyType} but its key data holds a "${printable(inner)}" key; the type and the data must come from the same key`);
  }
  let bits: number;
  if (keyType === 'ssh-ed25519') {
    const key = reader.bytes();
    if (key.length !== 32) throw invalid(`An ed25519 key is 32 bytes; this one has ${key.length}`);
    bits = 256;
  } else if (keyType === 'ssh-rsa') {
    bits = checkRsa(reader.mpint(), reader.mpint());
  } else {
    bits = checkEcdsa(keyType, reader.text(), reader.bytes());
  }
  if (!reader.atEnd()) throw invalid('The key data has bytes left over after the key; it is corrupted');
  return bits;
}

function checkRsa(exponent: Buffer, modulus: Buffer): number {
  const bits = bitLength(modulus);
  if (bits < MIN_RSA_BITS) {
    throw invalid(
      `RSA keys must have at least ${MIN_RSA_BITS} bits; this one has ${bits}. Generate a new one with \`ssh-keygen -t ed25519\` (or \`ssh-keygen -t rsa -b 4096\`)`,
    );
  }
  if (bits > MAX_RSA_BITS) throw invalid(`RSA keys may have at most ${MAX_RSA_BITS} bits; this one has ${bits}`);
  if (exponent.length === 0 || (exponent[exponent.length - 1]! & 1) === 0 || bitLength(exponent) < 2) {
    throw invalid('The RSA public exponent is not valid; the key is corrupted');
  }
  assertImportable({ kty: 'RSA', n: modulus.toString('base64url'), e: exponent.toString('base64url') });
  return bits;
}

function checkEcdsa(keyType: SshKeyType, curveName: string, point: Buffer): number {
  const expected = keyType.slice('ecdsa-sha2-'.length) as keyof typeof ECDSA_CURVES;
  if (curveName !== expected) {
    throw invalid(`The line says ${keyType} but its key data is on curve "${printable(curveName)}"; the type and the data must come from the same key`);
  }
  const curve = ECDSA_CURVES[expected];
  const size = curve.coordinateBytes;
  if (point.length !== 1 + 2 * size || point[0] !== 0x04) {
    throw invalid(`The ${curveName} public point must be ${1 + 2 * size} bytes in uncompressed form; the key is corrupted`);
  }
  assertImportable({
    kty: 'EC',
    crv: curve.jwkCurve,
    x: point.subarray(1, 1 + size).toString('base64url'),
    y: point.subarray(1 + size).toString('base64url'),
  });
  return curve.bits;
}

/** OpenSSL refuses points off the curve and malformed RSA numbers, exactly the keys sshd would refuse. */
function assertImportable(jwk: JsonWebKey): void {
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw invalid('The key data does not describe a valid public key; it is corrupted');
  }
}

function bitLength(unsigned: Buffer): number {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start += 1;
  if (start === unsigned.length) return 0;
  return (unsigned.length - start - 1) * 8 + (32 - Math.clz32(unsigned[start]!));
}

function printable(value: string): string {
  const cleaned = value.replace(/[^\x20-\x7e]/g, '?');
  return cleaned.length > 40 ? `${cleaned.slice(0, 40)}…` : cleaned;
}

/** Reads the SSH wire format: uint32 big-endian lengths followed by that many bytes. */
class WireReader {
  private offset = 0;

  constructor(private readonly data: Buffer) {}

  bytes(): Buffer {
    if (this.offset + 4 > this.data.length) throw truncated();
    const length = this.data.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.data.length) throw truncated();
    this.offset = start + length;
    return this.data.subarray(start, start + length);
  }

  text(): string {
    return this.bytes().toString('latin1');
  }

  /** A non-negative mpint, without its sign byte. */
  mpint(): Buffer {
    const value = this.bytes();
    if (value.length > 0 && (value[0]! & 0x80) !== 0) throw invalid('The key data holds a negative number; it is corrupted');
    return value;
  }

  atEnd(): boolean {
    return this.offset === this.data.length;
  }
}

function truncated(): AppError {
  return invalid('The key data ends too early; it is truncated or corrupted');
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function sshString(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([uint32(bytes.length), bytes]);
}

/** OpenSSH pads the private section with the bytes 1, 2, 3… up to the cipher's block size. */
function padToBlock(section: Buffer, blockSize: number): Buffer {
  const padding: number[] = [];
  for (let i = 1; (section.length + padding.length) % blockSize !== 0; i += 1) padding.push(i);
  return Buffer.concat([section, Buffer.from(padding)]);
}

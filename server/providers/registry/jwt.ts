import { createHash, createSign, createVerify, randomUUID, type KeyObject } from 'node:crypto';
import { REGISTRY_ACTIONS, type RegistryAction, type RepositoryAccess } from './types';

/** The claims Docker Distribution reads from a registry token. */
export interface RegistryTokenClaims {
  iss: string;
  /** Who the token was issued to; the registry names it as the actor of its events. Empty: anonymous. */
  sub: string;
  aud: string;
  exp: number;
  nbf: number;
  iat: number;
  jti: string;
  access: { type: 'repository'; name: string; actions: RegistryAction[] }[];
}

export interface TokenSigner {
  privateKey: KeyObject;
  /** The libtrust key id of the public key, which the registry finds in its root certificate bundle. */
  keyId: string;
  issuer: string;
  service: string;
}

/**
 * The key id libtrust gives a public key: SHA-256 of its DER (SPKI) form, the first 240 bits in
 * unpadded base32, in groups of four joined by colons. Distribution trusts a token whose `kid`
 * names a key of its root certificate bundle.
 */
export function libtrustKeyId(publicKey: KeyObject): string {
  const digest = createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest()
    .subarray(0, 30);
  const encoded = base32(digest);
  return encoded.match(/.{1,4}/g)!.join(':');
}

function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function signRegistryToken(
  signer: TokenSigner,
  subject: string | null,
  access: readonly RepositoryAccess[],
  ttlSeconds: number,
  now = new Date(),
): { token: string; claims: RegistryTokenClaims } {
  const iat = Math.floor(now.getTime() / 1000);
  const claims: RegistryTokenClaims = {
    iss: signer.issuer,
    sub: subject ?? '',
    aud: signer.service,
    exp: iat + ttlSeconds,
    // A little slack for a registry whose clock runs behind ours.
    nbf: iat - 10,
    iat,
    jti: randomUUID(),
    access: access.map((grant) => ({ type: 'repository', name: grant.repository, actions: [...grant.actions] })),
  };
  const header = { typ: 'JWT', alg: 'RS256', kid: signer.keyId };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(input).sign(signer.privateKey);
  return { token: `${input}.${b64url(signature)}`, claims };
}

/**
 * Checks a token the way Distribution does: RS256 signature by the trusted key, issuer, audience
 * (the service), and the validity window. Null for anything else; used by the simulated registry.
 */
export function verifyRegistryToken(token: string, options: { publicKey: KeyObject; issuer: string; service: string; now?: Date }): RegistryTokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  try {
    const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as { alg?: unknown };
    if (header.alg !== 'RS256') return null;
    const valid = createVerify('RSA-SHA256').update(`${headerPart}.${claimsPart}`).verify(options.publicKey, Buffer.from(signaturePart, 'base64url'));
    if (!valid) return null;
    const claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as Partial<RegistryTokenClaims>;
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    if (claims.iss !== options.issuer || claims.aud !== options.service) return null;
    if (typeof claims.exp !== 'number' || claims.exp <= now) return null;
    if (typeof claims.nbf !== 'number' || claims.nbf > now) return null;
    const access = Array.isArray(claims.access) ? claims.access : [];
    return {
      ...(claims as RegistryTokenClaims),
      sub: typeof claims.sub === 'string' ? claims.sub : '',
      access: access
        .filter((grant) => grant && grant.type === 'repository' && typeof grant.name === 'string' && Array.isArray(grant.actions))
        .map((grant) => ({ type: 'repository', name: grant.name, actions: grant.actions.filter((a) => (REGISTRY_ACTIONS as readonly string[]).includes(a)) })),
    };
  } catch {
    return null;
  }
}

/** The actions a verified token grants on one repository. */
export function grantedActions(claims: RegistryTokenClaims, repository: string): Set<RegistryAction> {
  return new Set(claims.access.filter((grant) => grant.name === repository).flatMap((grant) => grant.actions));
}

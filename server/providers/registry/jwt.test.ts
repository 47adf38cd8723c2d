import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { grantedActions, libtrustKeyId, signRegistryToken, verifyRegistryToken, type TokenSigner } from './jwt';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer: TokenSigner = { privateKey, keyId: libtrustKeyId(publicKey), issuer: 'test-issuer', service: 'test-service' };
const verifyOptions = { publicKey, issuer: 'test-issuer', service: 'test-service' };
const access = [{ repository: 'reg/app', actions: ['pull' as const, 'push' as const] }];

function tamperClaims(token: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, claims, signature] = token.split('.') as [string, string, string];
  const decoded = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(decoded);
  return `${header}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
}

describe('libtrustKeyId', () => {
  it('is twelve colon-separated groups of four base32 characters', () => {
    expect(signer.keyId).toMatch(/^[A-Z2-7]{4}(:[A-Z2-7]{4}){11}$/);
  });

  it('is stable for a key and differs between keys', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(libtrustKeyId(publicKey)).toBe(signer.keyId);
    expect(libtrustKeyId(other)).not.toBe(signer.keyId);
  });
});

describe('registry tokens', () => {
  it('round-trips: the claims Distribution reads, and the kid header', () => {
    const { token, claims } = signRegistryToken(signer, 'key:abc', access, 300);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(header).toEqual({ typ: 'JWT', alg: 'RS256', kid: signer.keyId });
    const verified = verifyRegistryToken(token, verifyOptions);
    expect(verified).toEqual(claims);
    expect(verified).toMatchObject({ iss: 'test-issuer', aud: 'test-service', sub: 'key:abc' });
    expect(verified!.exp - verified!.iat).toBe(300);
    expect([...grantedActions(verified!, 'reg/app')].sort()).toEqual(['pull', 'push']);
    expect(grantedActions(verified!, 'reg/other').size).toBe(0);
  });

  it('gives an anonymous subject an empty sub', () => {
    const { token } = signRegistryToken(signer, null, [{ repository: 'reg/app', actions: ['pull'] }], 60);
    expect(verifyRegistryToken(token, verifyOptions)?.sub).toBe('');
  });

  it('refuses another issuer or audience', () => {
    const { token } = signRegistryToken(signer, 'key:abc', access, 300);
    expect(verifyRegistryToken(token, { ...verifyOptions, issuer: 'someone-else' })).toBeNull();
    expect(verifyRegistryToken(token, { ...verifyOptions, service: 'another-service' })).toBeNull();
  });

  it('refuses an expired token and one not yet valid', () => {
    const issuedAt = new Date('2030-01-01T00:00:00Z');
    const { token } = signRegistryToken(signer, 'key:abc', access, 60, issuedAt);
    expect(verifyRegistryToken(token, { ...verifyOptions, now: new Date(issuedAt.getTime() + 30_000) })).not.toBeNull();
    expect(verifyRegistryToken(token, { ...verifyOptions, now: new Date(issuedAt.getTime() + 61_000) })).toBeNull();
    // nbf carries ten seconds of slack for a registry whose clock runs behind.
    expect(verifyRegistryToken(token, { ...verifyOptions, now: new Date(issuedAt.getTime() - 5_000) })).not.toBeNull();
    expect(verifyRegistryToken(token, { ...verifyOptions, now: new Date(issuedAt.getTime() - 60_000) })).toBeNull();
  });

  it('refuses tampered claims, a foreign signature and garbage', () => {
    const { token } = signRegistryToken(signer, 'key:abc', access, 300);
    const widened = tamperClaims(token, (claims) => {
      claims.access = [{ type: 'repository', name: 'reg/other', actions: ['pull', 'push', 'delete'] }];
    });
    expect(verifyRegistryToken(widened, verifyOptions)).toBeNull();
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = signRegistryToken({ ...signer, privateKey: stranger.privateKey }, 'key:abc', access, 300).token;
    expect(verifyRegistryToken(forged, verifyOptions)).toBeNull();
    const [header, claims] = token.split('.') as [string, string];
    expect(verifyRegistryToken(`${header}.${claims}.`, verifyOptions)).toBeNull();
    expect(verifyRegistryToken('not-a-token', verifyOptions)).toBeNull();
  });

  it('refuses a token whose header names another algorithm', () => {
    const { token } = signRegistryToken(signer, 'key:abc', access, 300);
    const [, claims, signature] = token.split('.') as [string, string, string];
    const none = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'none', kid: signer.keyId })).toString('base64url');
    expect(verifyRegistryToken(`${none}.${claims}.${signature}`, verifyOptions)).toBeNull();
  });
});

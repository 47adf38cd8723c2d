import { describe, expect, it } from 'vitest';
import { hmacSignatureHeader, hmacSignatureValid, tokenValid } from './signatures';

const body = Buffer.from('{"ref":"refs/heads/main"}');
const secret = 'whsec-repository-scoped';

describe('hmacSignatureValid', () => {
  it('accepts the signature of the exact body with the secret', () => {
    expect(hmacSignatureValid(hmacSignatureHeader(body, secret), body, secret)).toBe(true);
  });

  it('accepts an upper-case hex digest and surrounding whitespace', () => {
    const header = hmacSignatureHeader(body, secret);
    expect(hmacSignatureValid(` sha256=${header.slice(7).toUpperCase()} `, body, secret)).toBe(true);
  });

  it('refuses a body one byte off', () => {
    const altered = Buffer.from(body);
    altered.writeUInt8(altered.readUInt8(altered.length - 2) ^ 1, altered.length - 2);
    expect(hmacSignatureValid(hmacSignatureHeader(body, secret), altered, secret)).toBe(false);
  });

  it('refuses a signature made with another secret', () => {
    expect(hmacSignatureValid(hmacSignatureHeader(body, 'another secret'), body, secret)).toBe(false);
  });

  it('refuses a missing or empty header and an empty secret', () => {
    expect(hmacSignatureValid(undefined, body, secret)).toBe(false);
    expect(hmacSignatureValid('', body, secret)).toBe(false);
    expect(hmacSignatureValid(hmacSignatureHeader(body, ''), body, '')).toBe(false);
  });

  it('refuses other algorithms and malformed digests', () => {
    const hex = hmacSignatureHeader(body, secret).slice(7);
    expect(hmacSignatureValid(`sha1=${hex}`, body, secret)).toBe(false);
    expect(hmacSignatureValid(hex, body, secret)).toBe(false);
    expect(hmacSignatureValid(`sha256=${hex.slice(0, 63)}`, body, secret)).toBe(false);
    expect(hmacSignatureValid(`sha256=${hex}0`, body, secret)).toBe(false);
    expect(hmacSignatureValid(`sha256=${'z'.repeat(64)}`, body, secret)).toBe(false);
    expect(hmacSignatureValid(`sha256=${hex}\nsha256=${hex}`, body, secret)).toBe(false);
  });

  it('computes the header senders send', () => {
    expect(hmacSignatureHeader('abc', 'key')).toBe('sha256=9c196e32dc0175f86f4b1cb89289d6619de6bee699e4c378e68309ed97a1a6ab');
  });
});

describe('tokenValid', () => {
  it('accepts the same token', () => {
    expect(tokenValid('glhook-0123456789', 'glhook-0123456789')).toBe(true);
  });

  it('refuses another token, a prefix, a missing one and an empty expected one', () => {
    expect(tokenValid('glhook-0123456788', 'glhook-0123456789')).toBe(false);
    expect(tokenValid('glhook-012345678', 'glhook-0123456789')).toBe(false);
    expect(tokenValid(undefined, 'glhook-0123456789')).toBe(false);
    expect(tokenValid('', 'glhook-0123456789')).toBe(false);
    expect(tokenValid('', '')).toBe(false);
  });
});

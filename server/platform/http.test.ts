import { describe, expect, it } from 'vitest';
import { clientAddress, loggablePath, securityHeaders } from './http';

describe('clientAddress', () => {
  it('is the socket address unless proxies are trusted', () => {
    expect(clientAddress('198.51.100.7', '10.0.0.2', null)).toBe('10.0.0.2');
    expect(clientAddress(undefined, '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(' , ', '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(undefined, undefined, null)).toBe('unknown');
  });

  it('takes the entry our outermost trusted proxy added, never one the client wrote', () => {
    // The client forged the first entry; our one proxy appended the real peer.
    expect(clientAddress('203.0.113.66, 198.51.100.7', '10.0.0.2', 1)).toBe('198.51.100.7');
    // Two proxies of ours: the second appended the first's address.
    expect(clientAddress('203.0.113.66, 198.51.100.7, 10.0.0.9', '10.0.0.2', 2)).toBe('198.51.100.7');
    expect(clientAddress(['203.0.113.66', '198.51.100.7'], '10.0.0.2', 1)).toBe('198.51.100.7');
    // Fewer entries than proxies: the leftmost is the best there is.
    expect(clientAddress('198.51.100.7', '10.0.0.2', 3)).toBe('198.51.100.7');
  });
});

describe('securityHeaders', () => {
  it('forbids framing and sniffing, trims referrers, and asks for HTTPS only on an https APP_URL', () => {
    expect(securityHeaders('http://localhost:3000')).toEqual({
      'content-security-policy': "frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(securityHeaders('https://panel.example.com')['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('loggablePath', () => {
  it('drops the query and redacts reset and verification tokens, leaving other paths as they are', () => {
    expect(loggablePath('/reset-password/abcDEF123_-xyz')).toBe('/reset-password/[redacted]');
    expect(loggablePath('/verify-email/abcDEF123_-xyz')).toBe('/verify-email/[redacted]');
    expect(loggablePath('/invitations/inv_1?secret=abc')).toBe('/invitations/inv_1');
    expect(loggablePath('/v1/accounts/verify-email')).toBe('/v1/accounts/verify-email');
    expect(loggablePath('/reset-password/abc?x=1')).toBe('/reset-password/[redacted]');
    expect(loggablePath('/v1/projects/prj_1?token=secret')).toBe('/v1/projects/prj_1');
    expect(loggablePath('/reset-password')).toBe('/reset-password');
  });
});

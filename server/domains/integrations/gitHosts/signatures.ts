import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks of inbound git host deliveries, over the raw body and before anything parses it. Every
 * comparison is constant-time over equal-length digests, so neither the length nor the first
 * differing byte of a guess shows in the answer time.
 */

/**
 * A signature header of the form `sha256=<hex HMAC-SHA256 of the body>` (host 1's
 * `X-Hub-Signature-256`, host 2's `X-Hub-Signature`). A missing header, another algorithm or
 * malformed hex is refused like a wrong signature.
 */
export function hmacSignatureValid(header: string | undefined, body: Buffer, secret: string): boolean {
  if (!header || !secret) return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}

/** A shared token sent as is (host 3's token header), compared through digests so lengths do not leak. */
export function tokenValid(given: string | undefined, expected: string): boolean {
  if (!given || !expected) return false;
  const digest = (value: string) => createHmac('sha256', 'token-compare').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The `sha256=…` header a sender computes for `body`. */
export function hmacSignatureHeader(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The client's address. Each proxy appends the address it received the request from to
 * `X-Forwarded-For`, so with `trustedHops` proxies of ours in front, the entry that many places from
 * the right is the one our outermost proxy saw; everything left of it came from the client and is
 * not evidence of anything.
 */
export function clientAddress(forwardedFor: string | string[] | undefined, remoteAddress: string | undefined, trustedHops: number | null): string {
  const remote = remoteAddress || 'unknown';
  if (trustedHops === null || forwardedFor === undefined) return remote;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) return remote;
  return entries[Math.max(0, entries.length - trustedHops)]!;
}

/** Headers every answer carries: no framing (clickjacking), no MIME sniffing, no full-URL referrers, HTTPS only once on HTTPS. */
export function securityHeaders(appUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-security-policy': "frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
  if (appUrl.startsWith('https://')) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/** Paths whose next segment is a secret (a reset or email verification token): logged as `[redacted]`. */
const SECRET_AFTER = new Set(['reset-password', 'verify-email']);

/** The path as the access log may show it: no query (it may carry tokens), no secret segments. */
export function loggablePath(url: string): string {
  const queryAt = url.indexOf('?');
  const segments = (queryAt === -1 ? url : url.slice(0, queryAt)).split('/');
  for (let i = 1; i < segments.length; i += 1) {
    if (SECRET_AFTER.has(segments[i - 1]!) && segments[i]) segments[i] = '[redacted]';
  }
  return segments.join('/');
}

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

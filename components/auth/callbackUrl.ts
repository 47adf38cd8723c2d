const DEFAULT_DESTINATION = '/projects';
const BASE = 'https://panel.invalid';

/**
 * Only same-site paths are followed after sign-in, so a crafted link cannot send a user elsewhere.
 * Browsers drop tabs and newlines from URLs and read `\` as `/`, so `/\t/evil.test` would leave the
 * site: control characters and backslashes are refused, and the path must resolve to our origin.
 */
export function safeCallbackUrl(raw: string | string[] | undefined | null): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (!value || !value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_DESTINATION;
  let resolved: URL;
  try {
    resolved = new URL(value, BASE);
  } catch {
    return DEFAULT_DESTINATION;
  }
  if (resolved.origin !== BASE || value.startsWith('//')) return DEFAULT_DESTINATION;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

export function withCallback(path: string, callbackUrl: string): string {
  return callbackUrl === DEFAULT_DESTINATION ? path : `${path}?callbackUrl=${encodeURIComponent(callbackUrl)}`;
}

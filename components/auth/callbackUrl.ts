const DEFAULT_DESTINATION = '/projects';

/** Only same-site paths are followed after sign-in, so a crafted link cannot send a user elsewhere. */
export function safeCallbackUrl(raw: string | string[] | undefined | null): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return DEFAULT_DESTINATION;
  return value;
}

export function withCallback(path: string, callbackUrl: string): string {
  return callbackUrl === DEFAULT_DESTINATION ? path : `${path}?callbackUrl=${encodeURIComponent(callbackUrl)}`;
}

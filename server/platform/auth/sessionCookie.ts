import { getConfig } from '../config';

/** The panel's session cookie name; the __Secure- prefix only applies when the panel is served over https. */
export function sessionCookieName(): string {
  return getConfig().APP_URL.startsWith('https://') ? '__Secure-panel.session-token' : 'panel.session-token';
}

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

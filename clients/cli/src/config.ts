import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.ts';
import type { Io } from './io.ts';
import type { StoredSession } from './session.ts';

/** What `cloud auth login` and `cloud projects use` remember between runs. */
export interface StoredConfig {
  apiUrl?: string;
  apiKey?: string;
  project?: string;
  /** From `cloud auth login --email`, for the operations only a signed-in session may call. */
  session?: StoredSession;
}

/**
 * The user's config directory, as each system places it: $XDG_CONFIG_HOME or ~/.config on Linux,
 * ~/Library/Preferences on macOS, %APPDATA% on Windows. CLOUD_CONFIG_DIR overrides it.
 */
export function configDir(io: Io): string {
  if (io.env.CLOUD_CONFIG_DIR) return io.env.CLOUD_CONFIG_DIR;
  if (io.platform === 'darwin') return path.join(io.home, 'Library', 'Preferences', 'cloud');
  if (io.platform === 'win32') return path.join(io.env.APPDATA ?? path.join(io.home, 'AppData', 'Roaming'), 'cloud', 'Config');
  return path.join(io.env.XDG_CONFIG_HOME || path.join(io.home, '.config'), 'cloud');
}

export const configFile = (io: Io) => path.join(configDir(io), 'config.json');

export function readConfig(io: Io): StoredConfig {
  let text: string;
  try {
    text = readFileSync(configFile(io), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    const { apiUrl, apiKey, project, session } = parsed as Record<string, unknown>;
    return {
      ...(typeof apiUrl === 'string' ? { apiUrl } : {}),
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
      ...(typeof project === 'string' ? { project } : {}),
      ...(isSession(session) ? { session } : {}),
    };
  } catch {
    throw new UsageError(`${configFile(io)} is not a config file this tool wrote; remove it and run \`cloud auth login\` again`);
  }
}

function isSession(value: unknown): value is StoredSession {
  const candidate = value as Partial<StoredSession> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.cookie === 'string' &&
    typeof candidate.email === 'string' &&
    (candidate.expiresAt === null || typeof candidate.expiresAt === 'string')
  );
}

/**
 * Writes the config readable by its owner only (0600, in a 0700 directory): it holds an API key. The
 * file is written beside the old one and renamed over it, so an interrupted write never leaves half.
 */
export function writeConfig(io: Io, config: StoredConfig): void {
  const dir = configDir(io);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configFile(io);
  const temporary = `${file}.${process.pid}.tmp`;
  const entries = Object.entries(config).filter(([, value]) => value !== undefined);
  try {
    writeFileSync(temporary, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

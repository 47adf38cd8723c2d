import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getConfig } from '../config';

/** A master key: it wraps data keys, never values. */
export interface MasterKey {
  id: string;
  key: Buffer;
}

export interface Keyring {
  /** Wraps every new data key. */
  current: MasterKey;
  /** By id, the current one included: opens what any of them wrapped. */
  byId: ReadonlyMap<string, MasterKey>;
}

const KEY_BYTES = 32;
/** The key file of the embedded default, in the data folder beside the generated AUTH_SECRET. */
export const KEY_FILE = 'encryption-keys';

/** Parses `<id>:<base64>` entries (commas or new lines between them), the current key first. */
export function parseKeyring(text: string): Keyring {
  const keys = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry): MasterKey => {
      const separator = entry.indexOf(':');
      const id = entry.slice(0, separator);
      const key = Buffer.from(entry.slice(separator + 1), 'base64');
      if (separator < 1 || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== KEY_BYTES) {
        throw new Error('An encryption key must be <id>:<base64 of 32 bytes>');
      }
      return { id, key };
    });
  if (keys.length === 0) throw new Error('No encryption key configured');
  const byId = new Map<string, MasterKey>();
  for (const key of keys) {
    if (byId.has(key.id)) throw new Error(`Two encryption keys have the id ${key.id}`);
    byId.set(key.id, key);
  }
  return { current: keys[0]!, byId };
}

export function formatKeyring(keys: readonly MasterKey[]): string {
  return keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join('\n');
}

/** A new master key whose id says when it was made (`k20261123T220000`), unique per second. */
export function generateMasterKey(now = new Date()): MasterKey {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '');
  return { id: `k${stamp}`, key: randomBytes(KEY_BYTES) };
}

/** The key file's path for a data folder. */
export function keyFilePath(dataDir: string): string {
  return path.resolve(dataDir, KEY_FILE);
}

const holder = globalThis as unknown as { __keyring?: Keyring };

/**
 * The app's keyring: ENCRYPTION_KEYS when set, else the key file in the data folder, written with
 * one new key (mode 0600) the first time. Read once per process; a rotation tells running
 * processes to read it again (`reloadKeyring`), or they are restarted with the new setting.
 */
export function getKeyring(): Keyring {
  holder.__keyring ??= loadKeyring();
  return holder.__keyring;
}

export function reloadKeyring(): Keyring {
  holder.__keyring = loadKeyring();
  return holder.__keyring;
}

function loadKeyring(): Keyring {
  const config = getConfig();
  if (config.ENCRYPTION_KEYS) return parseKeyring(config.ENCRYPTION_KEYS);
  const file = keyFilePath(config.DATA_DIR);
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${formatKeyring([generateMasterKey()])}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process of the same data folder wrote it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return parseKeyring(readFileSync(file, 'utf8'));
}

// `npm run encryption:rotate`: makes a new master key for sealed values (secrets and every other
// column a manifest declares in `sealedColumns`). The running app re-wraps the values (the job
// platform.rewrap-sealed-values, every five minutes); this script never does, because the embedded
// database belongs to the one process that opened it. See README, "Rotating the master key".
//
//   npm run encryption:rotate                 new key: in front of the key file, or printed for ENCRYPTION_KEYS
//   npm run encryption:rotate -- --status     sealed values per key (PostgreSQL; the embedded database: ask /healthz)
//   npm run encryption:rotate -- --remove ID  drops an old key from the key file once nothing is wrapped by it
import { existsSync } from 'node:fs';
import { getConfig } from '../server/platform/config';
import { getKeyring, keyFilePath } from '../server/platform/encryption/keyring';
import { addKeyToKeyFile, encryptionKeysRotation, removeKeyFromKeyFile } from '../server/platform/encryption/rotation';

const args = process.argv.slice(2);
const config = getConfig();

try {
  if (args[0] === '--status') await status();
  else if (args[0] === '--remove' && args[1]) await remove(args[1]);
  else if (args.length === 0) rotate();
  else throw new Error('Usage: npm run encryption:rotate [-- --status | --remove <keyId>]');
  process.exit(0);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

function rotate(): void {
  if (config.ENCRYPTION_KEYS) {
    const { key, addBehind, makeCurrent } = encryptionKeysRotation(config.ENCRYPTION_KEYS);
    console.log(`A new master key ${key.id}. ENCRYPTION_KEYS is set, so change it on every instance in two steps:\n`);
    console.log('1. Add the new key behind the current one (every instance can then open what it will wrap) and restart each instance:\n');
    console.log(`ENCRYPTION_KEYS=${addBehind}\n`);
    console.log('2. Once every instance runs with step 1, make the new key current and restart each instance again:\n');
    console.log(`ENCRYPTION_KEYS=${makeCurrent}\n`);
    console.log(
      'The job re-wraps every sealed value within minutes. When `--status` (or /healthz `encryption.sealedUnderOtherKeys`) shows 0, drop the old keys from the list.',
    );
    return;
  }
  const file = keyFilePath(config.DATA_DIR);
  if (!existsSync(file)) throw new Error(`There is no key file at ${file} yet: the app makes one with its first key when it starts`);
  const key = addKeyToKeyFile(file);
  console.log(`Added the master key ${key.id} in front of ${file}; the older keys stay and still open what they wrapped.`);
  console.log('The running app reads the file again and re-wraps every sealed value within five minutes (or at its next start).');
  console.log(`When /healthz shows encryption.sealedUnderOtherKeys 0, remove the old keys: npm run encryption:rotate -- --remove <keyId>`);
}

async function status(): Promise<void> {
  if (config.embeddedDatabase) {
    throw new Error(`The embedded database can only be read by the running app: see encryption in ${config.APP_URL}/healthz`);
  }
  await import('../server/app');
  const { sealedValueStatus } = await import('../server/platform/encryption/rotation');
  console.log(JSON.stringify(await sealedValueStatus(), null, 2));
}

async function remove(keyId: string): Promise<void> {
  if (config.ENCRYPTION_KEYS) throw new Error('ENCRYPTION_KEYS is set: remove the key from that list on every instance instead');
  const left = await sealedUnderOtherKeys();
  if (left !== 0) throw new Error(`${left} sealed values are still wrapped by an older key; wait for the re-wrap job (or see its errors in the log)`);
  removeKeyFromKeyFile(keyFilePath(config.DATA_DIR), keyId);
  console.log(`Removed ${keyId} from the key file.`);
}

/** Asks the database, or the running app when the embedded database is in use. */
async function sealedUnderOtherKeys(): Promise<number> {
  if (!config.embeddedDatabase) {
    await import('../server/app');
    const { sealedValueStatus } = await import('../server/platform/encryption/rotation');
    return (await sealedValueStatus()).underOtherKeys;
  }
  const res = await fetch(`${config.APP_URL}/healthz`).catch(() => {
    throw new Error(`Could not ask the running app at ${config.APP_URL}/healthz; start it so it can say what is left to re-wrap`);
  });
  const health = (await res.json()) as { encryption?: { currentKey: string; sealedUnderOtherKeys: number } };
  if (!health.encryption) throw new Error(`${config.APP_URL}/healthz did not report the encryption status`);
  if (health.encryption.currentKey !== getKeyring().current.id) {
    throw new Error(`The running app still uses ${health.encryption.currentKey} as its current key; wait for its re-wrap job to read the key file`);
  }
  return health.encryption.sealedUnderOtherKeys;
}

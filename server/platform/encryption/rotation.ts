import { readFileSync, writeFileSync } from 'node:fs';
import { getTableName, sql, type SQL } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import type { SealedColumn } from '../domain';
import { getLogger } from '../logger';
import { rewrap } from './envelope';
import { formatKeyring, generateMasterKey, getKeyring, parseKeyring, type Keyring, type MasterKey } from './keyring';

/**
 * Master-key rotation without downtime. Every sealed value names the master key that wraps its data
 * key; once a new key is current, `rewrapSealedValues` moves every value of every declared column
 * onto it in short batches (only the wrapped data key changes, never the value's ciphertext), after
 * which the old key can be removed.
 */

const holder = globalThis as unknown as { __sealedColumns?: readonly SealedColumn[] };

/** Installs the sealed columns of the domain manifests (`server/app.ts` does). */
export function configureSealedColumns(columns: readonly SealedColumn[]): void {
  holder.__sealedColumns = columns;
}

function sealedColumns(): readonly SealedColumn[] {
  return holder.__sealedColumns ?? [];
}

/** Rows locked and re-wrapped per transaction: short enough that a writer waits on none of them for long. */
export const REWRAP_BATCH_SIZE = 200;

export interface RewrapOutcome {
  rewrapped: number;
  /** Values that could not be opened: their master key is missing from the keyring. Each is logged by table and row id. */
  failed: number;
}

/**
 * Re-wraps every sealed value not wrapped by the current master key. One transaction per batch
 * takes its rows `for update skip locked`, so writers and other workers are never held up for
 * more than a batch and two workers never re-wrap the same row.
 */
export async function rewrapSealedValues(options: { batchSize?: number; keyring?: Keyring } = {}): Promise<RewrapOutcome> {
  const keyring = options.keyring ?? getKeyring();
  const batchSize = options.batchSize ?? REWRAP_BATCH_SIZE;
  const db = await getDb();
  const outcome: RewrapOutcome = { rewrapped: 0, failed: 0 };
  for (const column of sealedColumns()) {
    const unopenable: string[] = [];
    for (;;) {
      const done = await db.transaction(async (tx) => {
        const exclude =
          unopenable.length > 0
            ? sql` and ${column.id} not in (${sql.join(
                unopenable.map((id) => sql`${id}`),
                sql`, `,
              )})`
            : sql``;
        const rows = await rowsOf<{ id: string; sealed: string }>(
          tx,
          sql`select ${column.id} as id, ${column.sealed} as sealed from ${column.table}
              where ${notUnderKey(column, keyring.current.id)}${exclude}
              limit ${batchSize} for update skip locked`,
        );
        for (const row of rows) {
          let moved: string;
          try {
            moved = rewrap(row.sealed, row.id, keyring);
          } catch (err) {
            unopenable.push(row.id);
            getLogger().error(
              { err, table: getTableName(column.table), rowId: row.id },
              'a sealed value could not be re-wrapped: its master key is not configured',
            );
            continue;
          }
          await tx.execute(sql`update ${column.table} set ${sql.identifier(column.sealed.name)} = ${moved} where ${column.id} = ${row.id}`);
          outcome.rewrapped += 1;
        }
        return rows.length === 0;
      });
      if (done) break;
    }
    outcome.failed += unopenable.length;
  }
  return outcome;
}

export interface SealedValueStatus {
  currentKeyId: string;
  /** Sealed values per master key id, over every declared column. */
  byKey: Record<string, number>;
  /** Values still wrapped by another key than the current one: the old key can go once this is 0. */
  underOtherKeys: number;
}

export async function sealedValueStatus(keyring: Keyring = getKeyring()): Promise<SealedValueStatus> {
  const db = await getDb();
  const byKey: Record<string, number> = {};
  for (const column of sealedColumns()) {
    const rows = await rowsOf<{ key_id: string; n: number }>(
      db,
      sql`select split_part(${column.sealed}, '.', 2) as key_id, count(*)::int as n from ${column.table}
          where ${column.sealed} is not null group by 1`,
    );
    for (const row of rows) byKey[row.key_id] = (byKey[row.key_id] ?? 0) + Number(row.n);
  }
  const underOtherKeys = Object.entries(byKey)
    .filter(([id]) => id !== keyring.current.id)
    .reduce((sum, [, n]) => sum + n, 0);
  return { currentKeyId: keyring.current.id, byKey, underOtherKeys };
}

/**
 * Puts a new master key in front of the key file and keeps the others, which still open what they
 * wrapped. Returns the new key's id.
 */
export function addKeyToKeyFile(file: string, now = new Date()): MasterKey {
  const keyring = parseKeyring(readFileSync(file, 'utf8'));
  const generated = generateMasterKey(now);
  // Ids are stamped to the second: a second rotation within it gets a suffix.
  let id = generated.id;
  for (let n = 2; keyring.byId.has(id); n += 1) id = `${generated.id}-${n}`;
  const key = { ...generated, id };
  writeFileSync(file, `${formatKeyring([key, ...keyring.byId.values()])}\n`, { mode: 0o600 });
  return key;
}

/**
 * A rotation of ENCRYPTION_KEYS in its two settings: first the new key behind the current one (every
 * instance can then open what the new key will wrap), then in front of it.
 */
export function encryptionKeysRotation(current: string, now = new Date()): { key: MasterKey; addBehind: string; makeCurrent: string } {
  const keyring = parseKeyring(current);
  const key = generateMasterKey(now);
  if (keyring.byId.has(key.id)) throw new Error(`A key named ${key.id} is already configured; try again in a second`);
  const others = [...keyring.byId.values()].filter((k) => k.id !== keyring.current.id);
  const flat = (keys: MasterKey[]) => formatKeyring(keys).replace(/\n/g, ',');
  return { key, addBehind: flat([keyring.current, key, ...others]), makeCurrent: flat([key, keyring.current, ...others]) };
}

/** Removes a key that is no longer current from the key file. */
export function removeKeyFromKeyFile(file: string, keyId: string): void {
  const keyring = parseKeyring(readFileSync(file, 'utf8'));
  if (keyring.current.id === keyId) throw new Error(`${keyId} is the current key; add a new one first`);
  if (!keyring.byId.has(keyId)) throw new Error(`The key file holds no key ${keyId}`);
  writeFileSync(file, `${formatKeyring([...keyring.byId.values()].filter((k) => k.id !== keyId))}\n`, { mode: 0o600 });
}

function notUnderKey(column: SealedColumn, keyId: string): SQL {
  return sql`${column.sealed} is not null and split_part(${column.sealed}, '.', 2) <> ${keyId}`;
}

async function rowsOf<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] } | T[];
  return Array.isArray(result) ? result : result.rows;
}

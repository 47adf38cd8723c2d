import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../app';
import { getConfig } from '../../platform/config';
import { seal } from '../../platform/encryption/envelope';
import { formatKeyring, generateMasterKey, getKeyring, keyFilePath, parseKeyring, reloadKeyring } from '../../platform/encryption/keyring';
import { addKeyToKeyFile, encryptionKeysRotation, removeKeyFromKeyFile, rewrapSealedValues, sealedValueStatus } from '../../platform/encryption/rotation';
import { REWRAP_SEALED_VALUES } from '../../platform/jobs/maintenance';
import { checkHealth } from '../../platform/health';
import { queryRows } from '../../../test/db';
import { createProject, createUser } from '../../../test/helpers';
import { createSecret, effectiveSecrets } from './service';

const keyIdsOf = async () =>
  (await queryRows<{ key_id: string }>(sql`select split_part(sealed_value, '.', 2) as key_id from secrets order by id`)).map((r) => r.key_id);

let projectId: string;
const values: Record<string, string> = {};

beforeAll(async () => {
  const owner = await createUser();
  ({ projectId } = await createProject(owner));
  for (let i = 0; i < 5; i += 1) {
    values[`KEY_${i}`] = `value-${i}-${'x'.repeat(i)}`;
    await createSecret(projectId, owner.id, { name: `KEY_${i}`, value: values[`KEY_${i}`]!, environment: 'default' });
  }
});

describe('master-key rotation', () => {
  it('re-wraps every sealed value onto a key added to the key file, through the maintenance job, without changing a value', async () => {
    const file = keyFilePath(getConfig().DATA_DIR);
    const oldKey = getKeyring().current.id;
    expect(new Set(await keyIdsOf())).toEqual(new Set([oldKey]));
    const ciphertextsBefore = (await queryRows<{ sealed_value: string }>(sql`select sealed_value from secrets order by id`)).map(
      (r) => r.sealed_value.split('.')[3],
    );

    const added = addKeyToKeyFile(file, new Date('2030-01-01T00:00:00Z'));
    expect(parseKeyring(readFileSync(file, 'utf8')).current.id).toBe(added.id);
    expect([...parseKeyring(readFileSync(file, 'utf8')).byId.keys()]).toEqual([added.id, oldKey]);

    const job = JOBS.find((j) => j.name === REWRAP_SEALED_VALUES);
    expect(job?.cron).toBeDefined();
    await job!.handler({});

    expect(new Set(await keyIdsOf())).toEqual(new Set([added.id]));
    const ciphertextsAfter = (await queryRows<{ sealed_value: string }>(sql`select sealed_value from secrets order by id`)).map(
      (r) => r.sealed_value.split('.')[3],
    );
    expect(ciphertextsAfter).toEqual(ciphertextsBefore);
    expect(await sealedValueStatus()).toEqual({ currentKeyId: added.id, byKey: { [added.id]: 5 }, underOtherKeys: 0 });
    expect((await checkHealth()).encryption).toEqual({ currentKey: added.id, sealedUnderOtherKeys: 0 });

    removeKeyFromKeyFile(file, oldKey);
    expect(() => removeKeyFromKeyFile(file, added.id)).toThrow('current key');
    const keyring = reloadKeyring();
    expect([...keyring.byId.keys()]).toEqual([added.id]);
    expect(await effectiveSecrets(projectId, 'production')).toEqual(values);
  });

  it('works in batches, and leaves a value whose key is missing without stopping the others', async () => {
    const keyring = getKeyring();
    const [victim] = await queryRows<{ id: string }>(sql`select id from secrets order by id limit 1`);
    const lost = generateMasterKey(new Date('2031-01-01T00:00:00Z'));
    const lostRing = parseKeyring(`${lost.id}:${lost.key.toString('base64')}`);
    await queryRows(sql`update secrets set sealed_value = ${seal('lost', victim!.id, lostRing)} where id = ${victim!.id}`);
    const next = addKeyToKeyFile(keyFilePath(getConfig().DATA_DIR), new Date('2032-01-01T00:00:00Z'));
    const rotated = reloadKeyring();
    expect(rotated.current.id).toBe(next.id);

    expect(await rewrapSealedValues({ batchSize: 2 })).toEqual({ rewrapped: 4, failed: 1 });
    const status = await sealedValueStatus();
    expect(status).toEqual({ currentKeyId: next.id, byKey: { [next.id]: 4, [lost.id]: 1 }, underOtherKeys: 1 });
    expect(await rewrapSealedValues()).toEqual({ rewrapped: 0, failed: 1 });
    expect(keyring.current.id).not.toBe(next.id);
  });
});

describe('rotating ENCRYPTION_KEYS', () => {
  it('gives the two settings: the new key behind the current one, then in front, the older keys kept', () => {
    const current = generateMasterKey(new Date('2026-01-01T00:00:00Z'));
    const older = generateMasterKey(new Date('2025-01-01T00:00:00Z'));
    const setting = formatKeyring([current, older]).replace(/\n/g, ',');
    const { key, addBehind, makeCurrent } = encryptionKeysRotation(setting, new Date('2027-01-01T00:00:00Z'));
    expect(key.id).toBe('k20270101T000000');
    expect([...parseKeyring(addBehind).byId.keys()]).toEqual([current.id, key.id, older.id]);
    expect([...parseKeyring(makeCurrent).byId.keys()]).toEqual([key.id, current.id, older.id]);
    expect(parseKeyring(makeCurrent).byId.get(key.id)?.key).toEqual(parseKeyring(addBehind).byId.get(key.id)?.key);
    const pattern = /^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/;
    expect(addBehind).toMatch(pattern);
    expect(makeCurrent).toMatch(pattern);
  });
});

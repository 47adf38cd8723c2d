import { describe, expect, it } from 'vitest';
import { open, rewrap, seal, sealedWith } from './envelope';
import { formatKeyring, generateMasterKey, parseKeyring } from './keyring';

const oldKey = generateMasterKey(new Date('2026-01-01T00:00:00Z'));
const newKey = generateMasterKey(new Date('2026-06-01T00:00:00Z'));
const before = parseKeyring(formatKeyring([oldKey]));
const after = parseKeyring(formatKeyring([newKey, oldKey]));

describe('sealed values', () => {
  it('open to what was sealed, and hold none of it in clear', () => {
    const sealed = seal('postgres://user:hunter2@db/app', 'sec_1', before);
    expect(sealed).toMatch(/^v1\.k20260101T000000\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('hunter2');
    expect(open(sealed, 'sec_1', before)).toBe('postgres://user:hunter2@db/app');
  });

  it('differ each time, even for the same value', () => {
    expect(seal('same', 'sec_1', before)).not.toBe(seal('same', 'sec_1', before));
  });

  it('do not open in another row', () => {
    expect(() => open(seal('value', 'sec_1', before), 'sec_2', before)).toThrow();
  });

  it('do not open once tampered with', () => {
    const sealed = seal('value', 'sec_1', before);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body.writeUInt8(body.readUInt8(body.length - 1) ^ 1, body.length - 1);
    parts[3] = body.toString('base64url');
    expect(() => open(parts.join('.'), 'sec_1', before)).toThrow();
    expect(() => open('v1.nope', 'sec_1', before)).toThrow('Not a sealed value');
  });

  it('say which master key they need, and do not open without it', () => {
    const sealed = seal('value', 'sec_1', after);
    expect(sealedWith(sealed)).toBe(newKey.id);
    expect(() => open(sealed, 'sec_1', before)).toThrow(`The master key ${newKey.id} that sealed this value is not configured`);
  });

  it('re-wrap under the current master key, keeping the ciphertext, and then open without the old key', () => {
    const sealed = seal('value', 'sec_1', before);
    const moved = rewrap(sealed, 'sec_1', after);
    expect(sealedWith(moved)).toBe(newKey.id);
    expect(moved.split('.')[3]).toBe(sealed.split('.')[3]);
    expect(open(moved, 'sec_1', parseKeyring(formatKeyring([newKey])))).toBe('value');
    expect(rewrap(moved, 'sec_1', after)).toBe(moved);
  });
});

describe('parseKeyring', () => {
  it('takes the first key as the current one', () => {
    expect(after.current.id).toBe(newKey.id);
    expect([...after.byId.keys()]).toEqual([newKey.id, oldKey.id]);
  });

  it('refuses malformed, short and duplicate keys, and an empty ring', () => {
    expect(() => parseKeyring('nocolon')).toThrow();
    expect(() => parseKeyring(`a:${Buffer.alloc(16).toString('base64')}`)).toThrow('32 bytes');
    expect(() => parseKeyring(`${formatKeyring([oldKey])},${formatKeyring([oldKey])}`)).toThrow('Two encryption keys');
    expect(() => parseKeyring(' \n')).toThrow('No encryption key');
  });
});

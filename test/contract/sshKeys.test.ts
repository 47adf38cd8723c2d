import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfig } from '../../server/platform/config';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type ApiResult, type TestUser } from '../helpers';
import type { DeletedSshKey, GeneratedSshKey, SshKey as StoredSshKey } from '../../server/domains/sshKeys/schema';
import { configureInfra, createServer, paidProject } from './serverFixtures';

/** A key as the API answers it; generating one adds the private half. */
type SshKey = StoredSshKey & Partial<Pick<GeneratedSshKey, 'privateKey'>>;

const dir = mkdtempSync(path.join(tmpdir(), 'ssh-keys-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => configureInfra({ INFRA_SIM_PROVISION_SECONDS: '0', INFRA_SIM_ACTION_SECONDS: '0', INFRA_SIM_FAIL: '' }));

function opensshKey(name: string, typeArgs: string[]): { line: string; fingerprint: string } {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', ...typeArgs, '-N', '', '-C', `${name}@test`, '-f', file]);
  const fingerprint = execFileSync('ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  return { line: readFileSync(`${file}.pub`, 'utf8'), fingerprint };
}

const keysUrl = (projectId: string) => `/v1/projects/${projectId}/ssh-keys`;
const docsUrl = () => `${getConfig().APP_URL}/docs/ssh-keys`;

function expectKeyError(res: ApiResult, status: number, code: string, message?: RegExp) {
  expectError(res, status, code);
  const error = res.body && !res.body.success ? res.body.error : undefined;
  expect(error?.docsUrl).toBe(docsUrl());
  if (message) expect(error?.message).toMatch(message);
}

let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  owner = await createUser();
  ({ projectId } = await createProject(owner));
});

describe('adding SSH keys', () => {
  it.each([
    ['ed25519', ['-t', 'ed25519'], 'ssh-ed25519', 256],
    ['rsa', ['-t', 'rsa', '-b', '3072'], 'ssh-rsa', 3072],
    ['p256', ['-t', 'ecdsa', '-b', '256'], 'ecdsa-sha2-nistp256', 256],
    ['p384', ['-t', 'ecdsa', '-b', '384'], 'ecdsa-sha2-nistp384', 384],
    ['p521', ['-t', 'ecdsa', '-b', '521'], 'ecdsa-sha2-nistp521', 521],
  ])('registers a %s key with the fingerprint ssh-keygen -lf prints', async (name, args, type, bits) => {
    const made = opensshKey(name, args);
    const res = await api<SshKey>('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: `key ${name}`, publicKey: made.line } });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      organizationId: projectId,
      name: `key ${name}`,
      publicKey: made.line.trim(),
      fingerprint: made.fingerprint,
      keyType: type,
      bits,
    });
    expect(res.data.id).toMatch(/^ssh_/);
    expect(res.data).not.toHaveProperty('privateKey');
  });

  it('lists keys newest first', async () => {
    const list = (await api<SshKey[]>('GET', keysUrl(projectId), { cookie: owner.cookie })).data;
    expect(list.map((k) => k.name).slice(0, 5)).toEqual(['key p521', 'key p384', 'key p256', 'key rsa', 'key ed25519']);
  });

  it('answers 409 naming the existing key when the fingerprint is already registered, even with another comment', async () => {
    const made = opensshKey('dup', ['-t', 'ed25519']);
    await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'Original', publicKey: made.line } });
    const [type, data] = made.line.split(' ');
    const again = await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'Copy', publicKey: `${type} ${data} other comment` } });
    expectKeyError(again, 409, 'CONFLICT', /already registered in the project as "Original"/);

    const elsewhere = await createProject(owner);
    expect((await api('POST', keysUrl(elsewhere.projectId), { cookie: owner.cookie, body: { name: 'Copy', publicKey: made.line } })).status).toBe(200);
  });

  it.each([
    ['bad base64', 'ssh-ed25519 AAAA!!!!', /not valid base64/],
    ['an algorithm mismatch', () => `ssh-ed25519 ${opensshKey('mm', ['-t', 'ecdsa', '-b', '256']).line.split(' ')[1]}`, /holds a "ecdsa-sha2-nistp256" key/],
    ['a short RSA key', () => opensshKey('short', ['-t', 'rsa', '-b', '1024']).line, /at least 2048 bits; this one has 1024/],
    ['an unknown type', 'ssh-xyz AAAAB3NzaC1yc2E=', /Unsupported key type "ssh-xyz"/],
    [
      'a private key',
      () => {
        opensshKey('priv', ['-t', 'ed25519']);
        return readFileSync(path.join(dir, 'priv'), 'utf8');
      },
      /private key/,
    ],
  ])('refuses %s with 422 saying what is wrong, with docsUrl', async (_label, key, message) => {
    const publicKey = typeof key === 'function' ? key() : key;
    const res = await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'bad', publicKey } });
    expectKeyError(res, 422, 'VALIDATION_ERROR', message);
  });

  it('validates the body with 422 and docsUrl too', async () => {
    expectKeyError(
      await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: '', publicKey: 'ssh-ed25519 AAAA' } }),
      422,
      'VALIDATION_ERROR',
      /name/,
    );
    expectKeyError(await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'x' } }), 422, 'VALIDATION_ERROR', /publicKey/);
  });

  it('needs servers:read and servers:write for an API key', async () => {
    const made = opensshKey('scoped', ['-t', 'ed25519']);
    const readOnly = await createApiKey(owner, projectId, ['servers:read']);
    expectError(await api('POST', keysUrl(projectId), { key: readOnly.key, body: { name: 'k', publicKey: made.line } }), 403, 'FORBIDDEN');
    expect((await api('GET', keysUrl(projectId), { key: readOnly.key })).status).toBe(200);
    const both = await createApiKey(owner, projectId, ['servers:read', 'servers:write']);
    expect((await api('POST', keysUrl(projectId), { key: both.key, body: { name: 'k', publicKey: made.line } })).status).toBe(200);
  });
});

describe('generating SSH keys', () => {
  it('returns a private key in OpenSSH format that ssh-keygen turns back into the registered public key, and stores no private key', async () => {
    const { projectId: fresh } = await createProject(owner);
    const res = await api<SshKey>('POST', `${keysUrl(fresh)}/generate`, { cookie: owner.cookie, body: { name: 'ci deploy' } });
    expect(res.status).toBe(200);
    const key = res.data;
    expect(key).toMatchObject({ organizationId: fresh, name: 'ci deploy', keyType: 'ssh-ed25519', bits: 256 });
    expect(key.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);

    const file = path.join(dir, 'generated-by-api');
    writeFileSync(file, key.privateKey!, { mode: 0o600 });
    const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim().split(' ');
    expect(derived.slice(0, 2).join(' ')).toBe(key.publicKey.split(' ').slice(0, 2).join(' '));
    expect(execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).split(' ')[1]).toBe(key.fingerprint);

    const listed = (await api<SshKey[]>('GET', keysUrl(fresh), { cookie: owner.cookie })).data;
    expect(listed).toEqual([expect.not.objectContaining({ privateKey: expect.anything() })]);
    const secretLine = key.privateKey!.split('\n')[2]!;
    const leaks = await queryRows(sql`select 1 from ssh_keys where public_key like ${`%${secretLine}%`}
      union all select 1 from events where payload::text like ${`%${secretLine}%`}`);
    expect(leaks).toEqual([]);
  });

  it('allows 10 generations per project per hour, then answers 429 with Retry-After and docsUrl', async () => {
    const { projectId: limited } = await createProject(owner);
    for (let i = 0; i < 10; i += 1) {
      expect((await api('POST', `${keysUrl(limited)}/generate`, { cookie: owner.cookie, body: { name: `k${i}` } })).status).toBe(200);
    }
    const refused = await api('POST', `${keysUrl(limited)}/generate`, { cookie: owner.cookie, body: { name: 'one too many' } });
    expectKeyError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api<SshKey[]>('GET', keysUrl(limited), { cookie: owner.cookie })).data).toHaveLength(10);
  });
});

describe('deleting SSH keys', () => {
  it('says how many live servers still trust the key', async () => {
    const paid = await paidProject();
    const made = opensshKey('trusted', ['-t', 'ed25519']);
    const key = (await api<SshKey>('POST', keysUrl(paid.projectId), { cookie: paid.owner.cookie, body: { name: 'trusted', publicKey: made.line } })).data;
    const unused = (await api<SshKey>('POST', `${keysUrl(paid.projectId)}/generate`, { cookie: paid.owner.cookie, body: { name: 'unused' } })).data;
    await createServer(paid.owner, paid.projectId, { name: 'a', sshKeyIds: [key.id] });
    await createServer(paid.owner, paid.projectId, { name: 'b', sshKeyIds: [key.id, unused.id] });

    const res = await api<DeletedSshKey>('DELETE', `${keysUrl(paid.projectId)}/${key.id}`, { cookie: paid.owner.cookie });
    expect(res.data).toEqual({ stillAuthorisedOn: 2 });
    expect((await api<DeletedSshKey>('DELETE', `${keysUrl(paid.projectId)}/${unused.id}`, { cookie: paid.owner.cookie })).data).toEqual({
      stillAuthorisedOn: 1,
    });
    expect((await api<SshKey[]>('GET', keysUrl(paid.projectId), { cookie: paid.owner.cookie })).data).toEqual([]);
  });

  it('answers 404 with docsUrl for an unknown key or a key of another project', async () => {
    const made = opensshKey('mine', ['-t', 'ed25519']);
    const key = (await api<SshKey>('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'mine', publicKey: made.line } })).data;
    const other = await createProject(owner);
    expectKeyError(await api('DELETE', `${keysUrl(other.projectId)}/${key.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectKeyError(await api('DELETE', `${keysUrl(projectId)}/ssh_unknown`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('refusals before the operation runs', () => {
  it('link to the page about keys too: no credential (401), a key without the scope (403), an unknown project (404)', async () => {
    expectKeyError(await api('GET', keysUrl(projectId)), 401, 'UNAUTHORIZED');
    const otherScope = await createApiKey(owner, projectId, ['projects:read']);
    expectKeyError(await api('GET', keysUrl(projectId), { key: otherScope.key }), 403, 'FORBIDDEN');
    expectKeyError(await api('GET', keysUrl('prj_nobody')), 401, 'UNAUTHORIZED');
    expectKeyError(await api('GET', keysUrl('prj_nobody'), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectKeyError(await api('POST', `${keysUrl(projectId)}/generate`, { key: otherScope.key, body: { name: 'ci' } }), 403, 'FORBIDDEN');
  });
});

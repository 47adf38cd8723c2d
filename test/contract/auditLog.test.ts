import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../server/app';
import { generateEd25519KeyPair } from '../../server/domains/sshKeys/keyFormat';
import type { AuditEntry, AuditLogPage } from '../../server/domains/audit/schema';
import { createRequestContext } from '../../server/platform/context';
import { createCallerFactory } from '../../server/platform/trpc';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, ORIGIN, type Credentials, type TestUser } from '../helpers';
import { addMember } from '../membersHelpers';

/** An audit entry as stored, every column: what a leak would show up in. */
interface StoredEntry {
  id: string;
  project_id: string | null;
  actor_user_id: string;
  api_key_id: string | null;
  api_key_prefix: string | null;
  action: string;
  targets: Record<string, string | string[]>;
  request_id: string;
  client_ip: string;
  transport: string;
  outcome: string;
  created_at: string;
  completed_at: string | null;
}

const keysUrl = (projectId: string) => `/v1/projects/${projectId}/ssh-keys`;
const logUrl = (projectId: string, query = '') => `/v1/projects/${projectId}/audit-log${query ? `?${query}` : ''}`;
const publicKeyLine = (comment: string) => generateEd25519KeyPair(comment).publicKey.publicKey;

async function auditLog(credentials: Credentials, projectId: string, query = ''): Promise<AuditLogPage> {
  return (await api<AuditLogPage>('GET', logUrl(projectId, query), credentials)).data;
}

/** The newest entry of a project's log as the API answers it. */
async function newestEntry(owner: TestUser, projectId: string): Promise<AuditEntry> {
  const [entry] = (await auditLog({ cookie: owner.cookie }, projectId, 'limit=1')).entries;
  if (!entry) throw new Error('the audit log is empty');
  return entry;
}

async function storedEntries(where = sql`true`): Promise<StoredEntry[]> {
  return queryRows<StoredEntry>(sql`select * from audit_entries where ${where} order by created_at desc, id desc`);
}

let owner: TestUser;
let viewer: TestUser;
let projectId: string;

beforeAll(async () => {
  owner = await createUser('Owner Person');
  viewer = await createUser('Viewer Person');
  ({ projectId } = await createProject(owner, 'Audited'));
  await addMember(owner, projectId, viewer, 'viewer');
});

describe('writes on /v1 are recorded', () => {
  it('records a successful write with its actor, action, ids, request id, client address and time', async () => {
    const started = Date.now();
    const res = await api<{ id: string }>('POST', keysUrl(projectId), {
      cookie: owner.cookie,
      body: { name: 'laptop', publicKey: publicKeyLine('laptop') },
      headers: { 'x-client-ip': '203.0.113.7' },
    });
    const entry = await newestEntry(owner, projectId);
    expect(entry).toMatchObject({
      action: 'sshKeys.create',
      outcome: 'ok',
      actor: { userId: owner.id, name: 'Owner Person', email: owner.email, apiKey: null },
      targets: { projectId, resultId: res.data.id },
      requestId: res.headers.get('x-request-id'),
      clientIp: '203.0.113.7',
      transport: 'rest',
    });
    expect(new Date(entry.createdAt).getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(new Date(entry.completedAt!).getTime()).toBeGreaterThanOrEqual(new Date(entry.createdAt).getTime());
  });

  it('names the project by id when the path named it by slug', async () => {
    const { projectSlug, projectId: id } = await createProject(owner, 'By Slug');
    await api('PATCH', `/v1/projects/${projectSlug}`, { cookie: owner.cookie, body: { name: 'By Slug Renamed' } }).then((r) => r.data);
    expect(await newestEntry(owner, id)).toMatchObject({ action: 'projects.rename', outcome: 'ok', targets: { projectId: id, resultId: id } });
  });

  it('records the API key that acted, by id and prefix, never the key', async () => {
    const key = await createApiKey(owner, projectId, ['servers:read', 'servers:write']);
    await api('POST', keysUrl(projectId), { key: key.key, body: { name: 'ci', publicKey: publicKeyLine('ci') } }).then((r) => r.data);
    const entry = await newestEntry(owner, projectId);
    expect(entry).toMatchObject({ action: 'sshKeys.create', outcome: 'ok', actor: { userId: owner.id, apiKey: { id: key.id, prefix: key.key.slice(0, 12) } } });
    const [stored] = await storedEntries(sql`id = ${entry.id}`);
    expect(JSON.stringify(stored)).not.toContain(key.key);
  });

  it('records a viewer refused with 403, by session and by API key', async () => {
    const viewerKey = await createApiKey(owner, projectId, ['servers:read', 'servers:write']);
    await queryRows(sql`update api_keys set created_by_user_id = ${viewer.id} where id = ${viewerKey.id}`);
    expectError(await api('POST', keysUrl(projectId), { cookie: viewer.cookie, body: { name: 'nope', publicKey: publicKeyLine('nope') } }), 403, 'FORBIDDEN');
    expectError(await api('POST', keysUrl(projectId), { key: viewerKey.key, body: { name: 'nope', publicKey: publicKeyLine('nope') } }), 403, 'FORBIDDEN');
    const [byKey, bySession] = (await auditLog({ cookie: owner.cookie }, projectId, 'limit=2')).entries;
    expect(bySession).toMatchObject({ action: 'sshKeys.create', outcome: 'FORBIDDEN', actor: { userId: viewer.id, apiKey: null }, targets: { projectId } });
    expect(byKey).toMatchObject({ action: 'sshKeys.create', outcome: 'FORBIDDEN', actor: { userId: viewer.id, apiKey: { id: viewerKey.id } } });
    expect(bySession!.targets).not.toHaveProperty('resultId');
  });

  it('records a key refused for a missing scope in its own project', async () => {
    const readOnly = await createApiKey(owner, projectId, ['servers:read']);
    expectError(await api('POST', keysUrl(projectId), { key: readOnly.key, body: { name: 'x', publicKey: publicKeyLine('x') } }), 403, 'FORBIDDEN');
    expect(await newestEntry(owner, projectId)).toMatchObject({ action: 'sshKeys.create', outcome: 'FORBIDDEN', actor: { apiKey: { id: readOnly.id } } });
  });

  it('records 422, 409 and 404 refusals with their codes and the ids the call named', async () => {
    expectError(
      await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'bad', publicKey: 'ssh-ed25519 nonsense' } }),
      422,
      'VALIDATION_ERROR',
    );
    expect(await newestEntry(owner, projectId)).toMatchObject({ action: 'sshKeys.create', outcome: 'VALIDATION_ERROR' });

    const line = publicKeyLine('twice');
    await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'first', publicKey: line } }).then((r) => r.data);
    expectError(await api('POST', keysUrl(projectId), { cookie: owner.cookie, body: { name: 'second', publicKey: line } }), 409, 'CONFLICT');
    expect(await newestEntry(owner, projectId)).toMatchObject({ action: 'sshKeys.create', outcome: 'CONFLICT' });

    expectError(await api('DELETE', `${keysUrl(projectId)}/ssh_doesnotexist`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expect(await newestEntry(owner, projectId)).toMatchObject({
      action: 'sshKeys.delete',
      outcome: 'NOT_FOUND',
      targets: { projectId, sshKeyId: 'ssh_doesnotexist' },
    });
  });

  it('records nothing for reads, nor for calls without a valid credential', async () => {
    const before = (await storedEntries()).length;
    await api('GET', keysUrl(projectId), { cookie: owner.cookie }).then((r) => r.data);
    expectError(await api('POST', keysUrl(projectId), { body: { name: 'anon', publicKey: publicKeyLine('anon') } }), 401, 'UNAUTHORIZED');
    expectError(await api('POST', keysUrl(projectId), { key: 'cpk_notarealkeyatall000000000000', body: { name: 'x' } }), 401, 'UNAUTHORIZED');
    expect(await storedEntries()).toHaveLength(before);
  });

  it('files a refused write of a non-member under no project, and a created or joined project under itself', async () => {
    const stranger = await createUser('Stranger');
    expectError(await api('POST', keysUrl(projectId), { cookie: stranger.cookie, body: { name: 'x', publicKey: publicKeyLine('x') } }), 403, 'FORBIDDEN');
    const [refused] = await storedEntries(sql`actor_user_id = ${stranger.id}`);
    expect(refused).toMatchObject({ project_id: null, action: 'sshKeys.create', outcome: 'FORBIDDEN' });

    const created = await createProject(stranger, 'Fresh');
    const [creation] = await storedEntries(sql`actor_user_id = ${stranger.id} and action = 'projects.create'`);
    expect(creation).toMatchObject({ project_id: created.projectId, outcome: 'ok' });

    await addMember(stranger, created.projectId, viewer, 'member');
    const [joined] = await storedEntries(sql`actor_user_id = ${viewer.id} and action = 'invitations.accept'`);
    expect(joined).toMatchObject({ project_id: created.projectId, outcome: 'ok' });
  });
});

describe('mutations through the tRPC caller (the panel) are recorded', () => {
  const caller = async (user: TestUser) => {
    const headers = new Headers({ cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json', 'x-request-id': `req-${user.id}` });
    return createCallerFactory(appRouter)(await createRequestContext(headers, 'POST', 'trpc'));
  };

  it('records a successful mutation and a refused one', async () => {
    const created = await (await caller(owner)).sshKeys.create({ projectId, name: 'panel', publicKey: publicKeyLine('panel') });
    expect(await newestEntry(owner, projectId)).toMatchObject({
      action: 'sshKeys.create',
      outcome: 'ok',
      transport: 'trpc',
      requestId: `req-${owner.id}`,
      targets: { projectId, resultId: created.id },
    });

    await expect((await caller(viewer)).sshKeys.delete({ projectId, sshKeyId: created.id })).rejects.toThrow();
    expect(await newestEntry(owner, projectId)).toMatchObject({
      action: 'sshKeys.delete',
      outcome: 'FORBIDDEN',
      transport: 'trpc',
      actor: { userId: viewer.id },
      targets: { projectId, sshKeyId: created.id },
    });
  });
});

describe('nothing secret is recorded', () => {
  it('keeps the private half of a generated SSH key, the key name and the public key out of the entry', async () => {
    const generated = (
      await api<{ id: string; privateKey: string }>('POST', `${keysUrl(projectId)}/generate`, { cookie: owner.cookie, body: { name: 'generated-name' } })
    ).data;
    const [stored] = await storedEntries(sql`action = 'sshKeys.generate'`);
    expect(stored!.targets).toEqual({ projectId, resultId: generated.id });
    const row = JSON.stringify(stored);
    expect(row).not.toContain('PRIVATE KEY');
    expect(row).not.toContain(generated.privateKey.split('\n')[1]);
    expect(row).not.toContain('generated-name');
  });

  it('keeps a created API key, its name and its scopes out of the entry', async () => {
    const key = await createApiKey(owner, projectId, ['projects:read']);
    const [stored] = await storedEntries(sql`action = 'apiKeys.create'`);
    expect(stored!.targets).toEqual({ projectId, resultId: key.id });
    const row = JSON.stringify(stored);
    expect(row).not.toContain(key.key);
    expect(row).not.toContain(key.key.slice(0, 12));
    expect(row).not.toContain('test key');
    expect(row).not.toContain('projects:read');
  });

  it('keeps passwords out of the entry of an account change', async () => {
    await api('POST', '/v1/account/password', {
      cookie: viewer.cookie,
      body: { currentPassword: viewer.password, newPassword: 'another long passphrase' },
    }).then((r) => r.data);
    const [stored] = await storedEntries(sql`action = 'accounts.changePassword'`);
    expect(stored).toMatchObject({ project_id: null, actor_user_id: viewer.id, outcome: 'ok', targets: {} });
    expect(JSON.stringify(stored)).not.toContain('passphrase');
    expect(JSON.stringify(stored)).not.toContain('horse');
  });
});

describe('reading the audit log', () => {
  let admin: TestUser;
  let readerKey: string;
  let project: string;
  let apiKeyId: string;

  beforeAll(async () => {
    admin = await createUser('Admin Person');
    ({ projectId: project } = await createProject(owner, 'Filtered'));
    await addMember(owner, project, admin, 'admin');
    const reader = await createApiKey(owner, project, ['audit:read']);
    readerKey = reader.key;
    const writer = await createApiKey(owner, project, ['servers:read', 'servers:write']);
    apiKeyId = writer.id;
    await api('POST', keysUrl(project), { cookie: admin.cookie, body: { name: 'a', publicKey: publicKeyLine('a') } }).then((r) => r.data);
    await api('POST', keysUrl(project), { key: writer.key, body: { name: 'b', publicKey: publicKeyLine('b') } }).then((r) => r.data);
    await api('DELETE', `${keysUrl(project)}/ssh_gone`, { cookie: admin.cookie });
    await api('PATCH', `/v1/projects/${project}`, { cookie: admin.cookie, body: { name: '' } });
  });

  it('answers owners, admins and keys with audit:read, newest first', async () => {
    const byOwner = await auditLog({ cookie: owner.cookie }, project);
    expect(byOwner.entries.map((e) => [e.action, e.outcome])).toEqual([
      ['projects.rename', 'VALIDATION_ERROR'],
      ['sshKeys.delete', 'NOT_FOUND'],
      ['sshKeys.create', 'ok'],
      ['sshKeys.create', 'ok'],
      ['apiKeys.create', 'ok'],
      ['apiKeys.create', 'ok'],
      ['invitations.accept', 'ok'],
      ['invitations.create', 'ok'],
      ['projects.create', 'ok'],
    ]);
    expect(byOwner.nextCursor).toBeNull();
    expect(await auditLog({ cookie: admin.cookie }, project)).toEqual(byOwner);
    expect(await auditLog({ key: readerKey }, project)).toEqual(byOwner);
  });

  it('pages newest first with an opaque cursor, every entry once', async () => {
    const all = (await auditLog({ cookie: owner.cookie }, project)).entries.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditLogPage = await auditLog({ cookie: owner.cookie }, project, `limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('filters by actor (a user or an API key), action and outcome', async () => {
    const actions = (page: AuditLogPage) => page.entries.map((e) => e.action);
    expect(actions(await auditLog({ cookie: owner.cookie }, project, `actor=${admin.id}`))).toEqual([
      'projects.rename',
      'sshKeys.delete',
      'sshKeys.create',
      'invitations.accept',
    ]);
    const byKey = await auditLog({ cookie: owner.cookie }, project, `actor=${apiKeyId}`);
    expect(byKey.entries.map((e) => [e.action, e.actor.apiKey?.id])).toEqual([['sshKeys.create', apiKeyId]]);
    expect((await auditLog({ cookie: owner.cookie }, project, 'action=apiKeys.create')).entries).toHaveLength(2);
    expect((await auditLog({ cookie: owner.cookie }, project, 'outcome=error')).entries.map((e) => e.outcome)).toEqual(
      expect.arrayContaining(['NOT_FOUND', 'VALIDATION_ERROR']),
    );
    expect((await auditLog({ cookie: owner.cookie }, project, 'outcome=error')).entries).toHaveLength(2);
    expect(actions(await auditLog({ cookie: owner.cookie }, project, 'outcome=NOT_FOUND'))).toEqual(['sshKeys.delete']);
    expect((await auditLog({ cookie: owner.cookie }, project, 'outcome=ok')).entries).toHaveLength(7);
    expect(actions(await auditLog({ cookie: owner.cookie }, project, `outcome=ok&actor=${admin.id}`))).toEqual(['sshKeys.create', 'invitations.accept']);
  });

  it('filters by time: from on or after, to on or before, a bare date covering its day', async () => {
    const entries = await storedEntries(sql`project_id = ${project}`);
    const times = ['2020-03-01T10:00:00.000Z', '2020-03-02T23:59:00.000Z', '2020-03-03T00:00:00.000Z'];
    for (const [index, entry] of entries.slice(0, 3).entries()) {
      await queryRows(sql`update audit_entries set created_at = ${times[index]}::timestamptz where id = ${entry.id}`);
    }
    const createdAts = (query: string) => auditLog({ cookie: owner.cookie }, project, query).then((page) => page.entries.map((e) => e.createdAt));
    expect(await createdAts('from=2020-03-01T10:00:00Z&to=2020-03-02')).toEqual([times[1], times[0]]);
    expect(await createdAts('from=2020-03-02&to=2020-03-03T00:00:00Z')).toEqual([times[2], times[1]]);
    expect(await createdAts('from=2020-03-03&to=2020-03-03')).toEqual([times[2]]);
    expect(await createdAts('to=2020-03-01T09:59:59.999Z')).toEqual([]);
    expect((await createdAts('from=2020-03-04')).length).toBe(entries.length - 3);
  });

  it('keeps pages apart when entries share a millisecond', async () => {
    await queryRows(sql`update audit_entries set created_at = '2026-01-02T03:04:05.678Z' where project_id = ${project}`);
    const all = (await auditLog({ cookie: owner.cookie }, project)).entries.map((e) => e.id);
    expect(all).toEqual([...all].sort().reverse());
    const first = await auditLog({ cookie: owner.cookie }, project, 'limit=5');
    const second = await auditLog({ cookie: owner.cookie }, project, `limit=5&cursor=${first.nextCursor}`);
    expect([...first.entries, ...second.entries].map((e) => e.id)).toEqual(all);
  });

  it('refuses malformed filters with 422 naming the field, never ignoring or clamping them', async () => {
    const refused = async (query: string, field: string) => {
      const res = await api('GET', logUrl(project, query), { cookie: owner.cookie });
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(res.body && !res.body.success ? (res.body.error as { fields?: Record<string, string> }).fields : undefined).toHaveProperty(field);
    };
    await refused('limit=0', 'limit');
    await refused('limit=201', 'limit');
    await refused('limit=ten', 'limit');
    await refused('outcome=fine', 'outcome');
    await refused('from=yesterday', 'from');
    await refused('from=2026-03-04&to=2026-03-03', 'to');
    await refused('cursor=bm90LWEtY3Vyc29y', 'cursor');
  });

  it('does not show another project its entries', async () => {
    const other = await createProject(owner, 'Quiet');
    const page = await auditLog({ cookie: owner.cookie }, other.projectId);
    expect(page.entries.map((e) => e.action)).toEqual(['projects.create']);
  });

  it('keeps a deleted project’s entries, its deletion included', async () => {
    const doomed = await createProject(owner, 'Doomed');
    await api('DELETE', `/v1/projects/${doomed.projectId}`, { cookie: owner.cookie }).then((r) => r.data);
    const kept = await storedEntries(sql`project_id = ${doomed.projectId}`);
    expect(kept.map((e) => [e.action, e.outcome])).toEqual([
      ['projects.delete', 'ok'],
      ['projects.create', 'ok'],
    ]);
  });
});

import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, createApiKey, createProject, createUser, expectError } from '../helpers';
import { databaseFingerprint, queryRows } from '../db';
import type { ApiKey, CreatedApiKey } from '../../server/domains/apiKeys/schema';

/** A key as the API answers it; creating one adds the full key. */
type Key = ApiKey & Partial<Pick<CreatedApiKey, 'key'>>;

describe('API keys', () => {
  it('creates a key shown once (201), stores only its hash, and lists it without the secret', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const res = await api<Key>('POST', `/v1/projects/${projectId}/api-keys`, {
      cookie: owner.cookie,
      body: { name: 'CI deploys', scopes: ['servers:read', 'projects:read'] },
    });
    expect(res.status).toBe(201);
    const created = res.data;
    expect(created.key).toMatch(/^cpk_/);
    expect(created.key?.startsWith(created.prefix)).toBe(true);
    expect(created.scopes).toEqual(['projects:read', 'servers:read']);
    const [row] = await queryRows<{ key_hash: string }>(sql`select key_hash from api_keys where id = ${created.id}`);
    expect(row?.key_hash).toBe(createHash('sha256').update(created.key!).digest('hex'));
    const listed = (await api<Key[]>('GET', `/v1/projects/${projectId}/api-keys`, { cookie: owner.cookie })).data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('authenticates with Bearer and X-API-Key and records lastUsedAt', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const key = await createApiKey(owner, projectId, ['projects:read']);
    expect((await api('GET', `/v1/projects/${projectId}`, { key: key.key })).status).toBe(200);
    expect((await api('GET', `/v1/projects/${projectId}`, { xApiKey: key.key })).status).toBe(200);
    const listed = (await api<Key[]>('GET', `/v1/projects/${projectId}/api-keys`, { cookie: owner.cookie })).data;
    expect(listed[0]?.lastUsedAt).not.toBeNull();
  });

  it('revokes immediately (204) and the key then gets 401', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const key = await createApiKey(owner, projectId, ['projects:read']);
    expect((await api('GET', `/v1/projects/${projectId}`, { key: key.key })).status).toBe(200);
    const revoked = await api('DELETE', `/v1/projects/${projectId}/api-keys/${key.id}`, { cookie: owner.cookie });
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeNull();
    expectError(await api('GET', `/v1/projects/${projectId}`, { key: key.key }), 401, 'UNAUTHORIZED');
    expectError(await api('DELETE', `/v1/projects/${projectId}/api-keys/${key.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expect((await api<Key[]>('GET', `/v1/projects/${projectId}/api-keys`, { cookie: owner.cookie })).data).toHaveLength(0);
  });

  it('refuses unknown, malformed and expired keys with 401', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    expectError(await api('GET', '/v1/projects', { key: 'cpk_not-a-real-key-at-all-000000000' }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/v1/projects', { key: 'garbage' }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/v1/projects', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401, 'UNAUTHORIZED');
    const key = await createApiKey(owner, projectId, ['projects:read'], { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await api('GET', '/v1/projects', { key: key.key })).status).toBe(200);
    await queryRows(sql`update api_keys set expires_at = now() - interval '1 second' where id = ${key.id}`);
    expectError(await api('GET', '/v1/projects', { key: key.key }), 401, 'UNAUTHORIZED');
  });

  it.each([
    [{ name: 'k', scopes: [] }, 'scopes'],
    [{ name: 'k', scopes: ['servers:delete'] }, 'scopes'],
    [{ name: 'k', scopes: ['nothing:read'] }, 'scopes'],
    [{ name: '', scopes: ['servers:read'] }, 'name'],
    [{ name: 'k', scopes: ['servers:read'], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ name: 'k', scopes: ['servers:read'], expiresAt: 'tomorrow' }, 'expiresAt'],
  ])('validates %j (422 naming the field)', async (body, field) => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const res = await api('POST', `/v1/projects/${projectId}/api-keys`, { cookie: owner.cookie, body });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toContain(field);
  });

  it('is session-only and owner-or-admin only', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const key = await createApiKey(owner, projectId, ['projects:read', 'projects:write', 'members:read', 'members:write']);
    const before = await databaseFingerprint();
    expectError(await api('POST', `/v1/projects/${projectId}/api-keys`, { key: key.key, body: { name: 'x', scopes: ['projects:read'] } }), 403, 'FORBIDDEN');
    expectError(await api('GET', `/v1/projects/${projectId}/api-keys`, { key: key.key }), 403, 'FORBIDDEN');
    for (const role of ['member', 'viewer']) {
      const user = await createUser();
      await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${user.id}, ${role})`);
      const snapshot = await databaseFingerprint();
      expectError(
        await api('POST', `/v1/projects/${projectId}/api-keys`, { cookie: user.cookie, body: { name: 'x', scopes: ['projects:read'] } }),
        403,
        'FORBIDDEN',
      );
      expect(await databaseFingerprint()).toEqual(snapshot);
    }
    expect(Object.keys(before).length).toBeGreaterThan(0);
  });

  it("acts with its creator's current role", async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const admin = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin')`);
    const key = await createApiKey(admin, projectId, ['projects:read', 'projects:write']);
    expect((await api('PATCH', `/v1/projects/${projectId}`, { key: key.key, body: { name: 'By admin key' } })).status).toBe(200);
    await queryRows(sql`update memberships set role = 'viewer' where user_id = ${admin.id}`);
    expectError(await api('PATCH', `/v1/projects/${projectId}`, { key: key.key, body: { name: 'Again' } }), 403, 'FORBIDDEN');
    await queryRows(sql`delete from memberships where user_id = ${admin.id}`);
    expectError(await api('GET', `/v1/projects/${projectId}/stats`, { key: key.key }), 403, 'FORBIDDEN');
  });

  it('reaches only its own project', async () => {
    const owner = await createUser();
    const a = await createProject(owner, 'A');
    const b = await createProject(owner, 'B');
    const key = await createApiKey(owner, a.projectId, ['projects:read', 'projects:write']);
    expectError(await api('GET', `/v1/projects/${b.projectId}/stats`, { key: key.key }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', `/v1/projects/${b.projectId}`, { key: key.key, body: { name: 'Hijack' } }), 403, 'FORBIDDEN');
  });
});

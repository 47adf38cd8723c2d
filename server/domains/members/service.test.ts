import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { events } from '../../../db/schema';
import { databaseFingerprint, queryRows } from '../../../test/db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../../../test/helpers';
import { addMember, invite, storedInvitation, storedRole } from '../../../test/membersHelpers';
import type { Member } from './schema';

async function eventTypes(projectId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.select({ type: events.type }).from(events).where(eq(events.projectId, projectId)).orderBy(events.createdAt);
  return rows.map((r) => r.type);
}

const membersPath = (projectId: string) => `/v1/projects/${projectId}/members`;
const memberPath = (projectId: string, userId: string) => `/v1/projects/${projectId}/members/${userId}`;

describe('members', () => {
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let viewer: TestUser;
  let projectId: string;

  beforeEach(async () => {
    owner = await createUser('Olive Owner');
    admin = await createUser('Adam Admin');
    member = await createUser('Mia Member');
    viewer = await createUser('Vic Viewer');
    projectId = (await createProject(owner)).projectId;
    await addMember(owner, projectId, admin, 'admin');
    await addMember(owner, projectId, viewer, 'viewer');
    await addMember(admin, projectId, member, 'member');
  });

  describe('list', () => {
    it('lists owners first, then by joining order, with the biller marked', async () => {
      const promoted = await createUser('Pat Promoted');
      await addMember(owner, projectId, promoted, 'owner');

      const res = await api<Member[]>('GET', membersPath(projectId), { cookie: viewer.cookie });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true });
      expect(res.data.map((m) => [m.userId, m.role])).toEqual([
        [owner.id, 'owner'],
        [promoted.id, 'owner'],
        [admin.id, 'admin'],
        [viewer.id, 'viewer'],
        [member.id, 'member'],
      ]);
      expect(res.data[0]).toEqual({
        userId: owner.id,
        name: 'Olive Owner',
        email: owner.email,
        role: 'owner',
        joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        isBiller: true,
      });
      expect(res.data.filter((m) => m.isBiller)).toHaveLength(1);
    });

    it('is open to API keys with members:read and closed to outsiders', async () => {
      const key = await createApiKey(owner, projectId, ['members:read']);
      expect((await api<Member[]>('GET', membersPath(projectId), { key: key.key })).data).toHaveLength(4);

      const noScope = await createApiKey(owner, projectId, ['projects:read']);
      expectError(await api('GET', membersPath(projectId), { key: noScope.key }), 403, 'FORBIDDEN');

      const outsider = await createUser();
      expectError(await api('GET', membersPath(projectId), { cookie: outsider.cookie }), 403, 'FORBIDDEN');
      expectError(await api('GET', membersPath(projectId)), 401, 'UNAUTHORIZED');
      expectError(await api('GET', membersPath('prj_doesnotexist')), 401, 'UNAUTHORIZED');
      expectError(await api('GET', membersPath('prj_doesnotexist'), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    });

    it('shows in the project _count', async () => {
      const one = await api<{ _count: { members: number } }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie });
      expect(one.data._count.members).toBe(4);
      const all = await api<Array<{ id: string; _count: { members: number } }>>('GET', '/v1/projects', { cookie: member.cookie });
      expect(all.data.find((p) => p.id === projectId)?._count.members).toBe(4);
    });
  });

  describe('updateRole', () => {
    it('lets an admin change a member and returns the member', async () => {
      const res = await api<Member>('PATCH', memberPath(projectId, member.id), { cookie: admin.cookie, body: { role: 'viewer' } });
      expect(res.status).toBe(200);
      expect(res.data).toEqual({
        userId: member.id,
        name: 'Mia Member',
        email: member.email,
        role: 'viewer',
        joinedAt: expect.any(String),
        isBiller: false,
      });
      expect(await storedRole(projectId, member.id)).toBe('viewer');
      expect(await eventTypes(projectId)).toContain('member.role_changed');
    });

    it('works with an API key holding members:read and members:write', async () => {
      const key = await createApiKey(owner, projectId, ['members:read', 'members:write']);
      const res = await api<Member>('PATCH', memberPath(projectId, member.id), { key: key.key, body: { role: 'admin' } });
      expect(res.data.role).toBe('admin');

      const readOnly = await createApiKey(owner, projectId, ['members:read']);
      expectError(await api('PATCH', memberPath(projectId, member.id), { key: readOnly.key, body: { role: 'viewer' } }), 403, 'FORBIDDEN');
      expect(await storedRole(projectId, member.id)).toBe('admin');
    });

    it('refuses members and viewers', async () => {
      const before = await databaseFingerprint();
      expectError(await api('PATCH', memberPath(projectId, viewer.id), { cookie: member.cookie, body: { role: 'admin' } }), 403, 'FORBIDDEN');
      expectError(await api('PATCH', memberPath(projectId, member.id), { cookie: viewer.cookie, body: { role: 'viewer' } }), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('lets only an owner grant the owner role or change an owner', async () => {
      const before = await databaseFingerprint();
      expectError(await api('PATCH', memberPath(projectId, member.id), { cookie: admin.cookie, body: { role: 'owner' } }), 403, 'FORBIDDEN');
      expectError(await api('PATCH', memberPath(projectId, admin.id), { cookie: admin.cookie, body: { role: 'owner' } }), 403, 'FORBIDDEN');
      expectError(await api('PATCH', memberPath(projectId, owner.id), { cookie: admin.cookie, body: { role: 'viewer' } }), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);

      const promoted = await api<Member>('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'owner' } });
      expect(promoted.data.role).toBe('owner');
    });

    it('refuses to demote the last owner, and allows it once another owner exists', async () => {
      const before = await databaseFingerprint();
      const refused = await api('PATCH', memberPath(projectId, owner.id), { cookie: owner.cookie, body: { role: 'admin' } });
      expectError(refused, 409, 'CONFLICT');
      expect(refused.body).toMatchObject({ error: { message: expect.stringContaining('last owner') } });
      expect(await databaseFingerprint()).toEqual(before);

      await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'owner' } });
      const demoted = await api<Member>('PATCH', memberPath(projectId, owner.id), { cookie: admin.cookie, body: { role: 'admin' } });
      expect(demoted.data.role).toBe('admin');
      expectError(await api('PATCH', memberPath(projectId, admin.id), { cookie: admin.cookie, body: { role: 'member' } }), 409, 'CONFLICT');
      expect(await storedRole(projectId, admin.id)).toBe('owner');
    });

    it('keeps the member who holds billing at admin or above until billing is handed on', async () => {
      await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'owner' } }).then((r) => r.data);
      const offer = await api<{ pendingTransfer: { id: string } }>('POST', `/v1/projects/${projectId}/billing/biller`, {
        cookie: owner.cookie,
        body: { userId: admin.id },
      });
      await api('POST', `/v1/projects/${projectId}/billing/biller/transfers/${offer.data.pendingTransfer.id}/accept`, { cookie: admin.cookie }).then(
        (r) => r.data,
      );

      const before = await databaseFingerprint();
      for (const role of ['member', 'viewer'] as const) {
        const refused = await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role } });
        expectError(refused, 409, 'CONFLICT');
        expect(refused.body).toMatchObject({ error: { message: expect.stringContaining('hand billing to another member first') } });
      }
      expect(await databaseFingerprint()).toEqual(before);

      const demoted = await api<Member>('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'admin' } });
      expect(demoted.data).toMatchObject({ role: 'admin', isBiller: true });
    });

    it('answers 404 for a user who is not a member and 422 for a bad role', async () => {
      const outsider = await createUser();
      const before = await databaseFingerprint();
      expectError(await api('PATCH', memberPath(projectId, outsider.id), { cookie: owner.cookie, body: { role: 'viewer' } }), 404, 'NOT_FOUND');
      expectError(await api('PATCH', memberPath(projectId, 'usr_nobody'), { cookie: owner.cookie, body: { role: 'viewer' } }), 404, 'NOT_FOUND');

      expectError(await api('PATCH', memberPath(projectId, member.id), { cookie: owner.cookie, body: { role: 'superuser' } }), 422, 'VALIDATION_ERROR');
      expectError(await api('PATCH', memberPath(projectId, member.id), { cookie: owner.cookie, body: {} }), 422, 'VALIDATION_ERROR');
      expect(await databaseFingerprint()).toEqual(before);
    });
  });

  describe('remove', () => {
    it('lets any member leave, answering data null', async () => {
      const res = await api('DELETE', memberPath(projectId, viewer.id), { cookie: viewer.cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: null });
      expect(await storedRole(projectId, viewer.id)).toBeNull();
      expect(await eventTypes(projectId)).toContain('member.left');
      expectError(await api('GET', membersPath(projectId), { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    });

    it('lets an owner or admin remove others', async () => {
      await api('DELETE', memberPath(projectId, member.id), { cookie: admin.cookie }).then((r) => expect(r.status).toBe(200));
      await api('DELETE', memberPath(projectId, admin.id), { cookie: owner.cookie }).then((r) => expect(r.status).toBe(200));
      expect(await storedRole(projectId, member.id)).toBeNull();
      expect(await storedRole(projectId, admin.id)).toBeNull();
      expect(await eventTypes(projectId)).toContain('member.removed');
      const listed = await api<Member[]>('GET', membersPath(projectId), { cookie: owner.cookie });
      expect(listed.data.map((m) => m.userId)).toEqual([owner.id, viewer.id]);
    });

    it('refuses members and viewers removing others, and admins removing owners', async () => {
      const before = await databaseFingerprint();
      expectError(await api('DELETE', memberPath(projectId, viewer.id), { cookie: member.cookie }), 403, 'FORBIDDEN');
      expectError(await api('DELETE', memberPath(projectId, member.id), { cookie: viewer.cookie }), 403, 'FORBIDDEN');
      expectError(await api('DELETE', memberPath(projectId, owner.id), { cookie: admin.cookie }), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('keeps the last owner', async () => {
      const before = await databaseFingerprint();
      const leave = await api('DELETE', memberPath(projectId, owner.id), { cookie: owner.cookie });
      expectError(leave, 409, 'CONFLICT');
      expect(leave.body).toMatchObject({ error: { message: expect.stringContaining('last owner') } });
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('keeps the member who holds billing until billing is handed on', async () => {
      await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'owner' } }).then((r) => r.data);
      const before = await databaseFingerprint();

      const leave = await api('DELETE', memberPath(projectId, owner.id), { cookie: owner.cookie });
      expectError(leave, 409, 'CONFLICT');
      expect(leave.body).toMatchObject({ error: { message: expect.stringContaining('hand billing to another member first') } });
      const removal = await api('DELETE', memberPath(projectId, owner.id), { cookie: admin.cookie });
      expectError(removal, 409, 'CONFLICT');
      expect(removal.body).toMatchObject({ error: { message: expect.stringContaining('hand billing to another member first') } });
      expect(await databaseFingerprint()).toEqual(before);

      await api('DELETE', memberPath(projectId, admin.id), { cookie: admin.cookie }).then((r) => expect(r.status).toBe(200));
      expect(await storedRole(projectId, admin.id)).toBeNull();
    });

    it('answers 404 for a user who is not a member', async () => {
      const outsider = await createUser();
      const before = await databaseFingerprint();
      expectError(await api('DELETE', memberPath(projectId, outsider.id), { cookie: owner.cookie }), 404, 'NOT_FOUND');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it("revokes the removed member's API keys, and they stay revoked if the member comes back", async () => {
      const key = await createApiKey(admin, projectId, ['members:read', 'projects:read']);
      expect((await api('GET', membersPath(projectId), { key: key.key })).status).toBe(200);

      await api('DELETE', memberPath(projectId, admin.id), { cookie: owner.cookie }).then((r) => expect(r.status).toBe(200));

      expectError(await api('GET', membersPath(projectId), { key: key.key }), 401, 'UNAUTHORIZED');
      await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin')`);
      expectError(await api('GET', `/v1/projects/${projectId}`, { key: key.key }), 401, 'UNAUTHORIZED');
      const ownerKey = await createApiKey(owner, projectId, ['members:read']);
      expect((await api('GET', membersPath(projectId), { key: ownerKey.key })).status).toBe(200);
    });

    it('needs members:write on an API key, even to leave', async () => {
      const key = await createApiKey(admin, projectId, ['members:read']);
      expectError(await api('DELETE', memberPath(projectId, admin.id), { key: key.key }), 403, 'FORBIDDEN');
      expect(await storedRole(projectId, admin.id)).toBe('admin');
    });
  });

  it('revokes the pending invitations an admin sent once they are demoted below admin or removed', async () => {
    const sent = (await invite(admin, projectId, 'friend-of-admin@example.com', 'member')).data;
    const another = (await invite(admin, projectId, 'second@example.com', 'viewer')).data;
    const ownersOwn = (await invite(owner, projectId, 'owners-guest@example.com', 'viewer')).data;

    const raised = await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'owner' } });
    expect(raised.status).toBe(200);
    expect((await storedInvitation(sent.id))?.status).toBe('PENDING');

    await api('PATCH', memberPath(projectId, admin.id), { cookie: owner.cookie, body: { role: 'member' } }).then((r) => r.data);
    expect((await storedInvitation(sent.id))?.status).toBe('REVOKED');
    expect((await storedInvitation(another.id))?.status).toBe('REVOKED');
    expect((await storedInvitation(ownersOwn.id))?.status).toBe('PENDING');
    expect(await eventTypes(projectId)).toContain('invitation.revoked');

    const invitee = await createUser('Late Invitee');
    await queryRows(sql`update invitations set email = ${invitee.email} where id = ${sent.id}`);
    expectError(await api('POST', `/v1/invitations/${sent.id}/accept`, { cookie: invitee.cookie }), 409, 'CONFLICT');
  });

  it('revokes the pending invitations of a removed admin', async () => {
    const sent = (await invite(admin, projectId, 'removed-admins-guest@example.com', 'member')).data;
    expect((await api('DELETE', memberPath(projectId, admin.id), { cookie: owner.cookie })).status).toBe(200);
    expect((await storedInvitation(sent.id))?.status).toBe('REVOKED');
  });

  it('describes every operation in the OpenAPI document', async () => {
    const res = await api<never>('GET', '/v1/openapi.json');
    const doc = res.body as unknown as { paths: Record<string, Record<string, { tags: string[] }>> };
    expect(Object.keys(doc.paths['/projects/{projectId}/members'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.paths['/projects/{projectId}/members/{userId}'] ?? {}).sort()).toEqual(['delete', 'patch']);
    expect(doc.paths['/projects/{projectId}/members']?.get?.tags).toEqual(['Members']);
  });
});

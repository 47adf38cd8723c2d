import { and, count, desc, eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { events, invitations, mailMessages, memberships } from '../../../db/schema';
import { sha256Hex } from '../../platform/auth/tokens';
import { getConfig } from '../../platform/config';
import { EXPIRE_INVITATION } from './jobs';
import { databaseFingerprint, queryRows } from '../../../test/db';
import { api, createApiKey, createProject, createUser, expectError, verifyEmailFromMailbox, type TestUser } from '../../../test/helpers';
import { invitationSecret, linkIn } from '../../../test/mailbox';
import { addMember, backdateInvitation, invite, storedInvitation, storedRole } from '../../../test/membersHelpers';
import type { AcceptedInvitation, Invitation, PublicInvitation, ReceivedInvitation } from './schema';
import { maskEmail } from './service';

const invitationsPath = (projectId: string) => `/v1/projects/${projectId}/invitations`;

async function membershipCount(projectId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db.select({ n: count() }).from(memberships).where(eq(memberships.projectId, projectId));
  return row?.n ?? 0;
}

async function eventTypes(projectId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.select({ type: events.type }).from(events).where(eq(events.projectId, projectId));
  return rows.map((r) => r.type);
}

describe('invitations', () => {
  let owner: TestUser;
  let invitee: TestUser;
  let projectId: string;
  let projectName: string;
  let projectSlug: string;

  beforeEach(async () => {
    owner = await createUser('Olive Owner');
    invitee = await createUser('Ivy Invitee');
    projectName = `Acme ${Math.random().toString(36).slice(2, 7)}`;
    ({ projectId, projectSlug } = await createProject(owner, projectName));
  });

  describe('create', () => {
    it('allows 5 invitations to one address per hour, every project together, then 429 with nothing created or mailed', async () => {
      const target = `popular-${Math.random().toString(36).slice(2, 9)}@example.com`;
      const projectIds = [projectId];
      for (let i = 0; i < 5; i += 1) projectIds.push((await createProject(owner)).projectId);
      for (const id of projectIds.slice(0, 5)) expect((await invite(owner, id, target, 'member')).status).toBe(201);
      const refused = await invite(owner, projectIds[5]!, target.toUpperCase(), 'member');
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers.get('ratelimit-policy')).toContain('"invitation-email";q=5;w=3600');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const db = await getDb();
      expect(await db.select().from(mailMessages).where(eq(mailMessages.to, target))).toHaveLength(5);
      expect(await db.select().from(invitations).where(eq(invitations.projectId, projectIds[5]!))).toHaveLength(0);
      expect((await invite(owner, projectIds[5]!, invitee.email, 'member')).status).toBe(201);
    });

    it('answers 201 with the invitation, mails the link and schedules the expiry', async () => {
      const before = Date.now();
      const res = await invite(owner, projectId, invitee.email.toUpperCase(), 'member');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ success: true });
      const invitation = res.data;
      expect(invitation).toEqual({
        id: expect.stringMatching(/^inv_/),
        projectId,
        email: invitee.email,
        role: 'member',
        status: 'PENDING',
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
        invitedBy: { id: owner.id, name: 'Olive Owner', email: owner.email },
      });
      const ttl = getConfig().INVITATION_TTL_HOURS * 3_600_000;
      expect(new Date(invitation.expiresAt).getTime()).toBeGreaterThanOrEqual(before + ttl);
      expect(new Date(invitation.expiresAt).getTime()).toBeLessThanOrEqual(Date.now() + ttl);

      const db = await getDb();
      const mails = await db
        .select()
        .from(mailMessages)
        .where(and(eq(mailMessages.to, invitee.email), eq(mailMessages.subject, `Olive Owner invited you to ${projectName}`)));
      expect(mails).toHaveLength(1);
      const link = linkIn(mails[0], '/invitations/');
      expect(link?.origin).toBe(getConfig().APP_URL);
      expect(link?.pathname).toBe(`/invitations/${invitation.id}`);
      const secret = link?.searchParams.get('secret');
      expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect((await storedInvitation(invitation.id))?.secretHash).toBe(sha256Hex(secret!));
      expect(JSON.stringify(res.body)).not.toContain(secret);

      const jobs = await queryRows<{ start_after: string | Date }>(
        sql`select start_after from pgboss.job where name = ${EXPIRE_INVITATION} and data->>'invitationId' = ${invitation.id}`,
      );
      expect(jobs).toHaveLength(1);
      expect(new Date(jobs[0]!.start_after).toISOString()).toBe(invitation.expiresAt);

      expect(await eventTypes(projectId)).toContain('invitation.created');
    });

    it('lets an admin invite, with an API key holding members:read and members:write', async () => {
      const admin = await createUser();
      await addMember(owner, projectId, admin, 'admin');
      const key = await createApiKey(admin, projectId, ['members:read', 'members:write']);
      const res = await api<Invitation>('POST', invitationsPath(projectId), { key: key.key, body: { email: 'new@example.com', role: 'admin' } });
      expect(res.status).toBe(201);
      expect(res.data.invitedBy.id).toBe(admin.id);

      const readOnly = await createApiKey(owner, projectId, ['members:read']);
      const refused = await api('POST', invitationsPath(projectId), { key: readOnly.key, body: { email: 'other@example.com', role: 'viewer' } });
      expectError(refused, 403, 'FORBIDDEN');
    });

    it('refuses members, viewers, outsiders and anonymous callers', async () => {
      const member = await createUser();
      const viewer = await createUser();
      const outsider = await createUser();
      await addMember(owner, projectId, member, 'member');
      await addMember(owner, projectId, viewer, 'viewer');
      const before = await databaseFingerprint();

      expectError(await invite(member, projectId, 'x@example.com', 'viewer'), 403, 'FORBIDDEN');
      expectError(await invite(viewer, projectId, 'x@example.com', 'viewer'), 403, 'FORBIDDEN');
      expectError(await invite(outsider, projectId, 'x@example.com', 'viewer'), 403, 'FORBIDDEN');
      expectError(await api('POST', invitationsPath(projectId), { body: { email: 'x@example.com', role: 'viewer' } }), 401, 'UNAUTHORIZED');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('answers 422 for a bad email or role', async () => {
      const before = await databaseFingerprint();
      expectError(
        await api('POST', invitationsPath(projectId), { cookie: owner.cookie, body: { email: 'not-an-email', role: 'member' } }),
        422,
        'VALIDATION_ERROR',
      );
      expectError(
        await api('POST', invitationsPath(projectId), { cookie: owner.cookie, body: { email: 'a@example.com', role: 'owner' } }),
        422,
        'VALIDATION_ERROR',
      );
      expectError(
        await api('POST', invitationsPath(projectId), { cookie: owner.cookie, body: { email: 'a@example.com', role: 'boss' } }),
        422,
        'VALIDATION_ERROR',
      );
      expectError(await api('POST', invitationsPath(projectId), { cookie: owner.cookie, body: { role: 'member' } }), 422, 'VALIDATION_ERROR');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('answers 409 for a second pending invitation to the same address, in any letter case', async () => {
      await invite(owner, projectId, 'dup@example.com', 'viewer').then((r) => r.data);
      const before = await databaseFingerprint();
      const again = await invite(owner, projectId, 'DUP@Example.com', 'admin');
      expectError(again, 409, 'CONFLICT');
      expect(await databaseFingerprint()).toEqual(before);

      const otherProject = (await createProject(owner)).projectId;
      expect((await invite(owner, otherProject, 'dup@example.com', 'viewer')).status).toBe(201);
    });

    it('answers 409 when the address belongs to a member', async () => {
      const before = await databaseFingerprint();
      const conflict = await invite(owner, projectId, owner.email.toUpperCase(), 'admin');
      expectError(conflict, 409, 'CONFLICT');
      expect(conflict.body).toMatchObject({ error: { message: expect.stringContaining('already a member') } });
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('lets an expired invitation be replaced even before the sweep ran', async () => {
      const first = (await invite(owner, projectId, invitee.email, 'viewer')).data;
      await backdateInvitation(first.id);
      const second = await invite(owner, projectId, invitee.email, 'member');
      expect(second.status).toBe(201);
      expect((await storedInvitation(first.id))?.status).toBe('EXPIRED');
    });
  });

  describe('listForProject', () => {
    it('lists pending, unexpired invitations newest first', async () => {
      const a = (await invite(owner, projectId, 'a@example.com', 'viewer')).data;
      const b = (await invite(owner, projectId, 'b@example.com', 'member')).data;
      const expired = (await invite(owner, projectId, 'c@example.com', 'member')).data;
      const revoked = (await invite(owner, projectId, 'd@example.com', 'member')).data;
      await backdateInvitation(expired.id);
      await api('DELETE', `${invitationsPath(projectId)}/${revoked.id}`, { cookie: owner.cookie });

      const res = await api<Invitation[]>('GET', invitationsPath(projectId), { cookie: owner.cookie });
      expect(res.status).toBe(200);
      expect(res.data.map((i) => i.id)).toEqual([b.id, a.id]);
      expect(res.data[0]).toEqual(b);
    });

    it('is for owners and admins only', async () => {
      const member = await createUser();
      await addMember(owner, projectId, member, 'member');
      expectError(await api('GET', invitationsPath(projectId), { cookie: member.cookie }), 403, 'FORBIDDEN');
      const key = await createApiKey(owner, projectId, ['members:read']);
      expect((await api('GET', invitationsPath(projectId), { key: key.key })).status).toBe(200);
    });
  });

  describe('revoke', () => {
    it('answers 204, marks it REVOKED, and the link stops working', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      const res = await api('DELETE', `${invitationsPath(projectId)}/${invitation.id}`, { cookie: owner.cookie });
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await storedInvitation(invitation.id))?.status).toBe('REVOKED');
      expect(await eventTypes(projectId)).toContain('invitation.revoked');

      expectError(await api('DELETE', `${invitationsPath(projectId)}/${invitation.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
      const accept = await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie });
      expectError(accept, 409, 'CONFLICT');
      expect(await storedRole(projectId, invitee.id)).toBeNull();
    });

    it('answers 404 for an invitation of another project and refuses non-admins', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      const other = await createUser();
      const otherProject = (await createProject(other)).projectId;
      expectError(await api('DELETE', `${invitationsPath(otherProject)}/${invitation.id}`, { cookie: other.cookie }), 404, 'NOT_FOUND');
      expectError(await api('DELETE', `${invitationsPath(projectId)}/inv_unknown`, { cookie: owner.cookie }), 404, 'NOT_FOUND');

      const member = await createUser();
      await addMember(owner, projectId, member, 'member');
      const before = await databaseFingerprint();
      expectError(await api('DELETE', `${invitationsPath(projectId)}/${invitation.id}`, { cookie: member.cookie }), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);
      expect((await storedInvitation(invitation.id))?.status).toBe('PENDING');
    });
  });

  describe('listMine', () => {
    it("lists the caller's pending invitations newest first, matching the email case-insensitively", async () => {
      const second = await createProject(owner);
      const third = await createProject(owner);
      const first = (await invite(owner, projectId, invitee.email.toUpperCase(), 'viewer')).data;
      const newer = (await invite(owner, second.projectId, invitee.email, 'admin')).data;
      const stale = (await invite(owner, third.projectId, invitee.email, 'member')).data;
      await backdateInvitation(stale.id);
      await invite(owner, projectId, 'someone-else@example.com', 'viewer');

      const res = await api<ReceivedInvitation[]>('GET', '/v1/invitations', { cookie: invitee.cookie });
      expect(res.status).toBe(200);
      expect(res.data.map((i) => i.id)).toEqual([newer.id, first.id]);
      expect(res.data[1]).toEqual({
        id: first.id,
        project: { id: projectId, name: projectName, slug: projectSlug },
        role: 'viewer',
        invitedBy: { id: owner.id, name: 'Olive Owner', email: owner.email },
        expiresAt: first.expiresAt,
        createdAt: first.createdAt,
      });
      expect((await api<ReceivedInvitation[]>('GET', '/v1/invitations', { cookie: owner.cookie })).data).toEqual([]);
    });

    it('refuses API keys and anonymous callers', async () => {
      const key = await createApiKey(owner, projectId, ['members:read', 'members:write']);
      expectError(await api('GET', '/v1/invitations', { key: key.key }), 403, 'FORBIDDEN');
      expectError(await api('GET', '/v1/invitations'), 401, 'UNAUTHORIZED');
    });
  });

  describe('getPublic', () => {
    it('shows masked details without authentication, never the secret of the link', async () => {
      const invitation = (await invite(owner, projectId, 'alice@example.com', 'admin')).data;
      const res = await api<PublicInvitation>('GET', `/v1/invitations/${invitation.id}`);
      expect(JSON.stringify(res.body)).not.toContain(await invitationSecret('alice@example.com', invitation.id));
      expect(res.status).toBe(200);
      expect(res.data).toEqual({
        id: invitation.id,
        project: { name: projectName },
        role: 'admin',
        invitedBy: { name: 'Olive Owner' },
        email: 'a***@example.com',
        status: 'PENDING',
        expiresAt: invitation.expiresAt,
      });
    });

    it('reports EXPIRED once past expiry, before any sweep', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      await backdateInvitation(invitation.id);
      expect((await api<PublicInvitation>('GET', `/v1/invitations/${invitation.id}`)).data.status).toBe('EXPIRED');
      expect((await storedInvitation(invitation.id))?.status).toBe('PENDING');
    });

    it('answers 404 for an unknown invitation', async () => {
      expectError(await api('GET', '/v1/invitations/inv_doesnotexist'), 404, 'NOT_FOUND');
    });

    it('masks addresses', () => {
      expect(maskEmail('alice@example.com')).toBe('a***@example.com');
      expect(maskEmail('b@x.io')).toBe('b***@x.io');
    });
  });

  describe('accept', () => {
    it('joins the project: the member is listed and the project appears for the invitee', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      const res = await api<AcceptedInvitation>('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { projectId, projectSlug, role: 'member' } });

      const stored = await storedInvitation(invitation.id);
      expect(stored?.status).toBe('ACCEPTED');
      expect(stored?.respondedAt).toBeInstanceOf(Date);
      expect(await eventTypes(projectId)).toEqual(expect.arrayContaining(['invitation.accepted', 'member.joined']));

      const members = await api<Array<{ userId: string; role: string; isBiller: boolean }>>('GET', `/v1/projects/${projectId}/members`, {
        cookie: owner.cookie,
      });
      expect(members.data).toEqual([
        expect.objectContaining({ userId: owner.id, role: 'owner', isBiller: true }),
        expect.objectContaining({ userId: invitee.id, role: 'member', isBiller: false, email: invitee.email, name: 'Ivy Invitee' }),
      ]);
      const projects = await api<Array<{ id: string; role: string; _count: { members: number } }>>('GET', '/v1/projects', { cookie: invitee.cookie });
      expect(projects.data).toEqual([expect.objectContaining({ id: projectId, role: 'member', _count: expect.objectContaining({ members: 2 }) })]);
      expect((await api<ReceivedInvitation[]>('GET', '/v1/invitations', { cookie: invitee.cookie })).data).toEqual([]);
      expect((await api<PublicInvitation>('GET', `/v1/invitations/${invitation.id}`)).data.status).toBe('ACCEPTED');
    });

    it("refuses someone else's invitation with 403 and changes nothing", async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'admin')).data;
      const intruder = await createUser();
      const before = await databaseFingerprint();
      const res = await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: intruder.cookie });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body).toMatchObject({ error: { message: 'This invitation was sent to another email address' } });
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('answers 409 on a second accept', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'viewer')).data;
      await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }).then((r) => r.data);
      const before = await databaseFingerprint();
      expectError(await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }), 409, 'CONFLICT');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('lets only one of two simultaneous accepts through', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'viewer')).data;
      const results = await Promise.all([
        api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }),
        api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await membershipCount(projectId)).toBe(2);
    });

    it('answers 409 for an expired invitation and changes nothing', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      await backdateInvitation(invitation.id);
      const before = await databaseFingerprint();
      const res = await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie });
      expectError(res, 409, 'CONFLICT');
      expect(res.body).toMatchObject({ error: { message: expect.stringContaining('expired') } });
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('answers 409 when the invitee is already a member', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      // Joining by another path between invitation and acceptance cannot be reached through the
      // API alone, so the membership is written directly.
      const db = await getDb();
      await db.insert(memberships).values({ projectId, userId: invitee.id, role: 'viewer' });
      const before = await databaseFingerprint();
      expectError(await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }), 409, 'CONFLICT');
      expect(await databaseFingerprint()).toEqual(before);
    });

    it('answers 404 for an unknown invitation and refuses API keys and anonymous callers', async () => {
      expectError(await api('POST', '/v1/invitations/inv_doesnotexist/accept', { cookie: invitee.cookie }), 404, 'NOT_FOUND');
      const invitation = (await invite(owner, projectId, owner.email.replace('@', '+x@'), 'member')).data;
      const key = await createApiKey(owner, projectId, ['members:read', 'members:write']);
      expectError(await api('POST', `/v1/invitations/${invitation.id}/accept`, { key: key.key }), 403, 'FORBIDDEN');
      expectError(await api('POST', `/v1/invitations/${invitation.id}/accept`), 401, 'UNAUTHORIZED');
      expect((await storedInvitation(invitation.id))?.status).toBe('PENDING');
    });
  });

  describe('who may answer', () => {
    const accept = (invitationId: string, cookie: string, secret?: string) =>
      api<AcceptedInvitation>('POST', `/v1/invitations/${invitationId}/accept`, { cookie, body: secret === undefined ? undefined : { secret } });

    it('refuses an account that only claims the invited address: 403 EMAIL_NOT_VERIFIED, nothing changes', async () => {
      const squatter = await createUser('Sam Squatter', { verified: false });
      const invitation = (await invite(owner, projectId, squatter.email, 'admin')).data;
      const before = await databaseFingerprint();
      const res = await accept(invitation.id, squatter.cookie);
      expectError(res, 403, 'EMAIL_NOT_VERIFIED');
      expect(res.body).toMatchObject({ error: { message: expect.stringContaining('Verify your email address') } });
      expectError(await api('POST', `/v1/invitations/${invitation.id}/reject`, { cookie: squatter.cookie }), 403, 'EMAIL_NOT_VERIFIED');
      expectError(await api('GET', '/v1/invitations', { cookie: squatter.cookie }), 403, 'EMAIL_NOT_VERIFIED');
      expect(await databaseFingerprint()).toEqual(before);
      expect(await storedRole(projectId, squatter.id)).toBeNull();
    });

    it('lets the same account accept once it has verified the address through the emailed link', async () => {
      const newcomer = await createUser('Nina Newcomer', { verified: false });
      const invitation = (await invite(owner, projectId, newcomer.email, 'member')).data;
      expectError(await accept(invitation.id, newcomer.cookie), 403, 'EMAIL_NOT_VERIFIED');
      await verifyEmailFromMailbox(newcomer.email);
      expect((await api<ReceivedInvitation[]>('GET', '/v1/invitations', { cookie: newcomer.cookie })).data.map((i) => i.id)).toEqual([invitation.id]);
      expect((await accept(invitation.id, newcomer.cookie)).data).toEqual({ projectId, projectSlug, role: 'member' });
    });

    it('lets the holder of the link secret accept; it verifies an unverified account with the invited address', async () => {
      const newcomer = await createUser('Nina Newcomer', { verified: false });
      const invitation = (await invite(owner, projectId, newcomer.email, 'member')).data;
      const secret = await invitationSecret(newcomer.email, invitation.id);
      expect((await accept(invitation.id, newcomer.cookie, secret)).data).toEqual({ projectId, projectSlug, role: 'member' });
      expect(await storedRole(projectId, newcomer.id)).toBe('member');
      const me = await api<{ emailVerifiedAt: string | null }>('GET', '/v1/account', { cookie: newcomer.cookie });
      expect(me.data.emailVerifiedAt).not.toBeNull();
    });

    it('lets the holder of the link secret accept with an account under another address, which stays unverified', async () => {
      const invitation = (await invite(owner, projectId, 'work-address@example.com', 'viewer')).data;
      const secret = await invitationSecret('work-address@example.com', invitation.id);
      const personal = await createUser('Paula Personal', { verified: false });
      expect((await accept(invitation.id, personal.cookie, secret)).status).toBe(200);
      expect(await storedRole(projectId, personal.id)).toBe('viewer');
      expect((await api<{ emailVerifiedAt: string | null }>('GET', '/v1/account', { cookie: personal.cookie })).data.emailVerifiedAt).toBeNull();
    });

    it('refuses a wrong secret, and a secret given for an invitation sent before links carried one', async () => {
      const invitation = (await invite(owner, projectId, 'someone@example.com', 'member')).data;
      const secret = await invitationSecret('someone@example.com', invitation.id);
      const intruder = await createUser('Ian Intruder');
      const before = await databaseFingerprint();
      const wrong = await accept(invitation.id, intruder.cookie, `${secret.slice(0, -4)}AAAA`);
      expectError(wrong, 403, 'FORBIDDEN');
      expect(wrong.body).toMatchObject({ error: { message: expect.stringContaining('link is not valid') } });
      expectError(await accept(invitation.id, intruder.cookie), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);

      await queryRows(sql`update invitations set secret_hash = null where id = ${invitation.id}`);
      expectError(await accept(invitation.id, intruder.cookie, secret), 403, 'FORBIDDEN');
    });

    it('lets the verified invitee answer an invitation sent before links carried a secret, and reject with the secret too', async () => {
      const legacy = (await invite(owner, projectId, invitee.email, 'member')).data;
      await queryRows(sql`update invitations set secret_hash = null where id = ${legacy.id}`);
      expect((await accept(legacy.id, invitee.cookie)).status).toBe(200);

      const other = await createProject(owner);
      const declined = (await invite(owner, other.projectId, 'declines@example.com', 'member')).data;
      const secret = await invitationSecret('declines@example.com', declined.id);
      const res = await api('POST', `/v1/invitations/${declined.id}/reject`, { cookie: invitee.cookie, body: { secret } });
      expect(res.body).toEqual({ success: true, data: null });
      expect((await storedInvitation(declined.id))?.status).toBe('REJECTED');
    });
  });

  describe('reject', () => {
    it('answers data null and marks it REJECTED', async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      const res = await api('POST', `/v1/invitations/${invitation.id}/reject`, { cookie: invitee.cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: null });
      const stored = await storedInvitation(invitation.id);
      expect(stored?.status).toBe('REJECTED');
      expect(stored?.respondedAt).toBeInstanceOf(Date);
      expect(await eventTypes(projectId)).toContain('invitation.rejected');
      expect(await storedRole(projectId, invitee.id)).toBeNull();

      expectError(await api('POST', `/v1/invitations/${invitation.id}/reject`, { cookie: invitee.cookie }), 409, 'CONFLICT');
      expectError(await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }), 409, 'CONFLICT');
      expect(await storedRole(projectId, invitee.id)).toBeNull();
    });

    it("refuses someone else's, expired or unknown invitations", async () => {
      const invitation = (await invite(owner, projectId, invitee.email, 'member')).data;
      const intruder = await createUser();
      const before = await databaseFingerprint();
      expectError(await api('POST', `/v1/invitations/${invitation.id}/reject`, { cookie: intruder.cookie }), 403, 'FORBIDDEN');
      expect(await databaseFingerprint()).toEqual(before);

      await backdateInvitation(invitation.id);
      const expired = await databaseFingerprint();
      expectError(await api('POST', `/v1/invitations/${invitation.id}/reject`, { cookie: invitee.cookie }), 409, 'CONFLICT');
      expect(await databaseFingerprint()).toEqual(expired);

      expectError(await api('POST', '/v1/invitations/inv_doesnotexist/reject', { cookie: invitee.cookie }), 404, 'NOT_FOUND');
    });
  });

  it('keeps a new invitation after an answered one for the same address', async () => {
    const first = (await invite(owner, projectId, invitee.email, 'member')).data;
    await api('POST', `/v1/invitations/${first.id}/reject`, { cookie: invitee.cookie }).then((r) => r.data);
    const second = await invite(owner, projectId, invitee.email, 'viewer');
    expect(second.status).toBe(201);
    const db = await getDb();
    const rows = await db
      .select({ status: invitations.status })
      .from(invitations)
      .where(sql`${invitations.projectId} = ${projectId} and lower(${invitations.email}) = ${invitee.email}`)
      .orderBy(desc(invitations.createdAt));
    expect(rows.map((r) => r.status)).toEqual(['PENDING', 'REJECTED']);
  });
});

import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { passwordResetTokens } from '../../../db/schema';
import { api, createProject, createUser } from '../../../test/helpers';
import { backdateInvitation, invite, storedInvitation } from '../../../test/membersHelpers';
import { JOBS } from '../../app';
import { purgeSpentResetTokens } from '../accounts';
import { EXPIRE_INVITATION, EXPIRE_STALE_INVITATIONS, expireInvitation, expireStaleInvitations } from './jobs';

describe('invitation jobs', () => {
  it('lists the invitation expiry job', () => {
    expect(JOBS.map((j) => j.name)).toContain(EXPIRE_INVITATION);
  });

  it('sweeps stale invitations every ten minutes', () => {
    expect(JOBS.find((j) => j.name === EXPIRE_STALE_INVITATIONS)?.cron).toBe('*/10 * * * *');
  });
});

describe('invitation expiry job', () => {
  it('marks exactly its invitation EXPIRED once past expiry, and nothing else', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const due = (await invite(owner, projectId, 'due@example.com', 'member')).data;
    const other = (await invite(owner, projectId, 'other@example.com', 'member')).data;
    const notYet = (await invite(owner, projectId, 'later@example.com', 'member')).data;
    await backdateInvitation(due.id);
    await backdateInvitation(other.id);

    const job = JOBS.find((j) => j.name === EXPIRE_INVITATION)!;
    await job.handler({ invitationId: due.id });
    expect((await storedInvitation(due.id))?.status).toBe('EXPIRED');
    expect((await storedInvitation(other.id))?.status).toBe('PENDING');

    expect(await expireInvitation({ invitationId: notYet.id })).toBe(false);
    expect((await storedInvitation(notYet.id))?.status).toBe('PENDING');
  });

  it('leaves an invitation that was answered before its expiry', async () => {
    const owner = await createUser();
    const invitee = await createUser();
    const { projectId } = await createProject(owner);
    const invitation = (await invite(owner, projectId, invitee.email, 'viewer')).data;
    await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: invitee.cookie }).then((r) => r.data);
    await backdateInvitation(invitation.id);

    expect(await expireInvitation({ invitationId: invitation.id })).toBe(false);
    expect((await storedInvitation(invitation.id))?.status).toBe('ACCEPTED');
  });

  it('rejects malformed job data instead of guessing', async () => {
    await expect(expireInvitation({})).rejects.toThrow();
  });
});

describe('stale record sweeps', () => {
  const sweep = async () => ({ invitations: await expireStaleInvitations(), resetTokens: await purgeSpentResetTokens() });

  it('expires invitations past expiry and deletes used or expired reset tokens', async () => {
    // Earlier tests in this file leave stale records behind; sweep them so the counts below are this test's own.
    await sweep();
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const stale = (await invite(owner, projectId, 'stale@example.com', 'member')).data;
    const fresh = (await invite(owner, projectId, 'fresh@example.com', 'member')).data;
    await backdateInvitation(stale.id);

    const users = await Promise.all([createUser(), createUser(), createUser()]);
    for (const user of users) {
      await api('POST', '/v1/accounts/restore', { body: { email: user.email, locale: 'en' } }).then((r) => r.data);
    }
    const db = await getDb();
    const tokenOf = async (userId: string) =>
      (await db.select({ id: passwordResetTokens.id }).from(passwordResetTokens).where(eq(passwordResetTokens.userId, userId)))[0]!.id;
    const [usedToken, expiredToken, validToken] = await Promise.all(users.map((u) => tokenOf(u.id)));
    await db.update(passwordResetTokens).set({ usedAt: new Date() }).where(eq(passwordResetTokens.id, usedToken!));
    await db
      .update(passwordResetTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResetTokens.id, expiredToken!));

    const result = await sweep();
    expect(result).toMatchObject({ invitations: 1, resetTokens: 2 });

    expect((await storedInvitation(stale.id))?.status).toBe('EXPIRED');
    expect((await storedInvitation(fresh.id))?.status).toBe('PENDING');
    const remaining = await db
      .select({ id: passwordResetTokens.id })
      .from(passwordResetTokens)
      .where(inArray(passwordResetTokens.id, [usedToken!, expiredToken!, validToken!]));
    expect(remaining.map((r) => r.id)).toEqual([validToken]);
  });
});

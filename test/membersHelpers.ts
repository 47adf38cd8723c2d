import { and, eq } from 'drizzle-orm';
import { getDb } from '../db';
import { invitations, memberships } from '../db/schema';
import type { ProjectRole } from '../server/platform/auth/roles';
import type { Invitation } from '../server/domains/invitations/schema';
import { api, type TestUser } from './helpers';

export async function invite(inviter: TestUser, projectId: string, email: string, role: Exclude<ProjectRole, 'owner'>) {
  return api<Invitation>('POST', `/v1/projects/${projectId}/invitations`, { cookie: inviter.cookie, body: { email, role } });
}

/** Brings `user` into the project the way a real person joins: invited by `inviter`, then accepting. */
export async function addMember(inviter: TestUser, projectId: string, user: TestUser, role: ProjectRole): Promise<void> {
  const invitation = (await invite(inviter, projectId, user.email, role === 'owner' ? 'admin' : role)).data;
  await api('POST', `/v1/invitations/${invitation.id}/accept`, { cookie: user.cookie }).then((r) => r.data);
  if (role === 'owner') {
    await api('PATCH', `/v1/projects/${projectId}/members/${user.id}`, { cookie: inviter.cookie, body: { role } }).then((r) => r.data);
  }
}

/** The stored role of a user in a project, or null when they are not a member. */
export async function storedRole(projectId: string, userId: string): Promise<ProjectRole | null> {
  const db = await getDb();
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}

export async function storedInvitation(id: string) {
  const db = await getDb();
  const [row] = await db.select().from(invitations).where(eq(invitations.id, id));
  return row;
}

/** Moves an invitation's expiry into the past, as if its time had run out. */
export async function backdateInvitation(id: string, expiresAt = new Date(Date.now() - 60_000)): Promise<void> {
  const db = await getDb();
  await db.update(invitations).set({ expiresAt }).where(eq(invitations.id, id));
}

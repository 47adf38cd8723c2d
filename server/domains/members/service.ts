import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { getDb, type DbOrTx, type Tx } from '../../../db';
import { apiKeys, memberships, projects, users } from '../../../db/schema';
import { roleAtLeast, type ProjectRole } from '../../platform/auth/roles';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { cancelBillerTransfersInvolving } from '../billing';
import { revokeInvitationsSentBy } from '../invitations';
import type { Member } from './schema';

/** Members of the project: owners first, then in the order they joined. */
export async function listMembers(projectId: string): Promise<Member[]> {
  const db = await getDb();
  return selectMembers(db, projectId);
}

/**
 * Changes a member's role. Only an owner may grant the owner role or change an owner's role, the
 * last owner cannot be demoted, and the biller cannot drop below admin (billing would rest with
 * someone who may no longer manage it). Runs with the project row locked so two owners demoting
 * each other at once cannot leave the project without one, and a billing transfer accepted at the
 * same moment cannot slip past the biller check.
 */
export async function updateMemberRole(input: { projectId: string; actorUserId: string; userId: string; role: ProjectRole }): Promise<Member> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const project = await lockProject(tx, input.projectId);
    const actorRole = await roleOf(tx, input.projectId, input.actorUserId);
    const targetRole = await roleOf(tx, input.projectId, input.userId);
    if (!targetRole) throw new AppError('NOT_FOUND', 'Member not found');
    if (!actorRole || !roleAtLeast(actorRole, 'admin')) {
      throw new AppError('FORBIDDEN', "Changing a member's role needs the owner or admin role");
    }
    if (actorRole !== 'owner' && (input.role === 'owner' || targetRole === 'owner')) {
      throw new AppError('FORBIDDEN', "Only an owner can grant the owner role or change an owner's role");
    }
    if (targetRole === input.role) return memberView(tx, input.projectId, input.userId);
    if (targetRole === 'owner' && (await ownerCount(tx, input.projectId)) <= 1) {
      throw new AppError('CONFLICT', 'This member is the last owner of the project; make another member an owner first');
    }
    if (project.billerUserId === input.userId && !roleAtLeast(input.role, 'admin')) {
      throw new AppError('CONFLICT', 'This member holds billing for the project and must stay an owner or admin; hand billing to another member first');
    }
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.projectId, input.projectId), eq(memberships.userId, input.userId)));
    await emit(tx, input.projectId, 'member.role_changed', {
      userId: input.userId,
      from: targetRole,
      to: input.role,
      by: input.actorUserId,
    });
    if (!roleAtLeast(input.role, 'admin')) {
      await revokeInvitationsSentBy(tx, input.projectId, input.userId, input.actorUserId);
      await cancelBillerTransfersInvolving(tx, input.projectId, input.userId, input.actorUserId);
    }
    return memberView(tx, input.projectId, input.userId);
  });
}

/**
 * Removes a member, or lets the caller leave when they remove themselves. Removing someone else
 * needs owner or admin, and only an owner may remove an owner. The last owner and the member who
 * holds billing cannot go. The keys the member created for the project are revoked with the
 * membership, so they stay dead even if the person is invited back later.
 */
export async function removeMember(input: { projectId: string; actorUserId: string; userId: string }): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const project = await lockProject(tx, input.projectId);
    const actorRole = await roleOf(tx, input.projectId, input.actorUserId);
    const targetRole = await roleOf(tx, input.projectId, input.userId);
    if (!targetRole) throw new AppError('NOT_FOUND', 'Member not found');
    const leaving = input.userId === input.actorUserId;
    if (!leaving) {
      if (!actorRole || !roleAtLeast(actorRole, 'admin')) {
        throw new AppError('FORBIDDEN', 'Removing another member needs the owner or admin role');
      }
      if (targetRole === 'owner' && actorRole !== 'owner') {
        throw new AppError('FORBIDDEN', 'Only an owner can remove an owner');
      }
    }
    if (targetRole === 'owner' && (await ownerCount(tx, input.projectId)) <= 1) {
      throw new AppError(
        'CONFLICT',
        leaving
          ? 'You are the last owner of the project; make another member an owner before leaving'
          : 'This member is the last owner of the project and cannot be removed',
      );
    }
    if (project.billerUserId === input.userId) {
      throw new AppError(
        'CONFLICT',
        leaving
          ? 'You hold billing for this project; hand billing to another member first, then leave'
          : 'This member holds billing for the project; hand billing to another member first',
      );
    }
    await tx.delete(memberships).where(and(eq(memberships.projectId, input.projectId), eq(memberships.userId, input.userId)));
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.projectId, input.projectId), eq(apiKeys.createdByUserId, input.userId), isNull(apiKeys.revokedAt)));
    await emit(tx, input.projectId, leaving ? 'member.left' : 'member.removed', {
      userId: input.userId,
      role: targetRole,
      by: input.actorUserId,
    });
    await revokeInvitationsSentBy(tx, input.projectId, input.userId, input.actorUserId);
    await cancelBillerTransfersInvolving(tx, input.projectId, input.userId, input.actorUserId);
  });
}

async function lockProject(tx: Tx, projectId: string): Promise<{ billerUserId: string }> {
  const [project] = await tx.select({ billerUserId: projects.billerUserId }).from(projects).where(eq(projects.id, projectId)).for('update');
  if (!project) throw new AppError('NOT_FOUND', 'Project not found');
  return project;
}

async function roleOf(tx: Tx, projectId: string, userId: string): Promise<ProjectRole | null> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}

async function ownerCount(tx: Tx, projectId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.projectId, projectId), eq(memberships.role, 'owner')));
  return row?.n ?? 0;
}

async function memberView(tx: Tx, projectId: string, userId: string): Promise<Member> {
  const [member] = await selectMembers(tx, projectId, userId);
  if (!member) throw new AppError('NOT_FOUND', 'Member not found');
  return member;
}

async function selectMembers(db: DbOrTx, projectId: string, onlyUserId?: string): Promise<Member[]> {
  const filter = onlyUserId ? and(eq(memberships.projectId, projectId), eq(memberships.userId, onlyUserId)) : eq(memberships.projectId, projectId);
  const rows = await db
    .select({
      userId: memberships.userId,
      name: users.name,
      email: users.email,
      role: memberships.role,
      joinedAt: memberships.createdAt,
      billerUserId: projects.billerUserId,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(filter)
    .orderBy(desc(sql`${memberships.role} = 'owner'`), asc(memberships.createdAt), asc(memberships.userId));
  return rows.map((r) => ({
    userId: r.userId,
    name: r.name,
    email: r.email,
    role: r.role,
    joinedAt: r.joinedAt.toISOString(),
    isBiller: r.billerUserId === r.userId,
  }));
}

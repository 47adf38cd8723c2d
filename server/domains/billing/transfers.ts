import { and, eq, gt, inArray, lte, or } from 'drizzle-orm';
import { getDb, type DbOrTx, type Tx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { billerTransfers, memberships, projects, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { roleAtLeast, type ProjectRole } from '../../platform/auth/roles';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import type { BillerTransfer } from './schema';

type TransferRow = typeof billerTransfers.$inferSelect;

/**
 * Billing moves onto a member's card only with that member's consent: an owner or the current
 * biller offers it, and it moves when the member accepts. One offer per project is pending at a
 * time; it lapses after BILLER_TRANSFER_TTL_HOURS.
 */
export async function proposeBillerTransfer(projectId: string, actorUserId: string, toUserId: string, now = new Date()): Promise<void> {
  const db = await getDb();
  try {
    await db.transaction(async (tx) => {
      const project = await lockProject(tx, projectId);
      const actorRole = await roleOf(tx, projectId, actorUserId);
      if (actorRole !== 'owner' && actorUserId !== project.billerUserId) {
        throw new AppError('FORBIDDEN', 'Only an owner or the member who holds billing can offer billing to another member');
      }
      const target = await memberOf(tx, projectId, toUserId);
      if (!target) throw new AppError('NOT_FOUND', 'That user is not a member of this project');
      if (!roleAtLeast(target.role, 'admin')) throw new AppError('CONFLICT', `${target.name} must be an owner or admin to hold billing`);
      if (toUserId === project.billerUserId) throw new AppError('CONFLICT', `${target.name} already holds billing for this project`);
      await tx
        .update(billerTransfers)
        .set({ status: 'expired', decidedAt: now })
        .where(and(eq(billerTransfers.projectId, projectId), eq(billerTransfers.status, 'pending'), lte(billerTransfers.expiresAt, now)));
      const id = newId('btr');
      await tx.insert(billerTransfers).values({
        id,
        projectId,
        fromUserId: project.billerUserId,
        toUserId,
        proposedByUserId: actorUserId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + getConfig().BILLER_TRANSFER_TTL_HOURS * 3_600_000),
      });
      await emit(tx, projectId, 'billing.transfer_proposed', { transferId: id, from: project.billerUserId, to: toUserId, by: actorUserId });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'biller_transfers_pending_project_key')) {
      throw new AppError('CONFLICT', 'An offer of billing is already pending in this project; cancel it before making another');
    }
    throw err;
  }
}

/** The member the offer names takes billing: from now on their default card pays. */
export async function acceptBillerTransfer(projectId: string, actorUserId: string, transferId: string, now = new Date()): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const project = await lockProject(tx, projectId);
    const transfer = await answerableTransfer(tx, projectId, transferId, actorUserId, now);
    const role = await roleOf(tx, projectId, actorUserId);
    if (!role || !roleAtLeast(role, 'admin')) throw new AppError('CONFLICT', 'Only an owner or admin can hold billing');
    await tx.update(projects).set({ billerUserId: actorUserId, updatedAt: now }).where(eq(projects.id, projectId));
    await close(tx, transfer, 'accepted', now);
    await emit(tx, projectId, 'billing.biller_changed', { userId: actorUserId, from: project.billerUserId, by: actorUserId, transferId });
  });
}

export async function declineBillerTransfer(projectId: string, actorUserId: string, transferId: string, now = new Date()): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const transfer = await answerableTransfer(tx, projectId, transferId, actorUserId, now);
    await close(tx, transfer, 'declined', now);
    await emit(tx, projectId, 'billing.transfer_declined', { transferId, by: actorUserId });
  });
}

/** Withdraws a pending offer: its proposer, the current biller or an owner may. */
export async function cancelBillerTransfer(projectId: string, actorUserId: string, transferId: string, now = new Date()): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const project = await lockProject(tx, projectId);
    const transfer = await findTransfer(tx, projectId, transferId);
    const actorRole = await roleOf(tx, projectId, actorUserId);
    const mayCancel = actorUserId === transfer.proposedByUserId || actorUserId === project.billerUserId || actorRole === 'owner';
    if (!mayCancel) throw new AppError('FORBIDDEN', 'Only whoever made the offer, the member who holds billing or an owner can cancel it');
    assertPending(transfer, now);
    await close(tx, transfer, 'cancelled', now);
    await emit(tx, projectId, 'billing.transfer_cancelled', { transferId, by: actorUserId, reason: 'withdrawn' });
  });
}

/**
 * An offer stands on the authority of its proposer and the standing of its recipient: when either
 * leaves the project, or drops below admin, the pending offer involving them is cancelled.
 */
export async function cancelBillerTransfersInvolving(tx: Tx, projectId: string, userId: string, actorUserId: string): Promise<void> {
  const cancelled = await tx
    .update(billerTransfers)
    .set({ status: 'cancelled', decidedAt: new Date() })
    .where(
      and(
        eq(billerTransfers.projectId, projectId),
        eq(billerTransfers.status, 'pending'),
        or(eq(billerTransfers.toUserId, userId), eq(billerTransfers.proposedByUserId, userId)),
      ),
    )
    .returning({ id: billerTransfers.id });
  for (const { id } of cancelled) {
    await emit(tx, projectId, 'billing.transfer_cancelled', { transferId: id, by: actorUserId, reason: 'member_lost_access' });
  }
}

/** The project's offer that can still be answered, with the people it names. */
export async function pendingBillerTransfer(db: DbOrTx, projectId: string, now = new Date()): Promise<BillerTransfer | null> {
  const [transfer] = await db
    .select()
    .from(billerTransfers)
    .where(and(eq(billerTransfers.projectId, projectId), eq(billerTransfers.status, 'pending'), gt(billerTransfers.expiresAt, now)));
  if (!transfer) return null;
  const people = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, [transfer.fromUserId, transfer.toUserId, transfer.proposedByUserId]));
  const person = (id: string) => people.find((p) => p.id === id)!;
  return {
    id: transfer.id,
    from: person(transfer.fromUserId),
    to: person(transfer.toUserId),
    proposedBy: person(transfer.proposedByUserId),
    createdAt: transfer.createdAt.toISOString(),
    expiresAt: transfer.expiresAt.toISOString(),
  };
}

async function answerableTransfer(tx: Tx, projectId: string, transferId: string, actorUserId: string, now: Date): Promise<TransferRow> {
  const transfer = await findTransfer(tx, projectId, transferId);
  if (transfer.toUserId !== actorUserId) throw new AppError('FORBIDDEN', 'This offer was made to another member; only they can answer it');
  assertPending(transfer, now);
  return transfer;
}

function assertPending(transfer: TransferRow, now: Date): void {
  if (transfer.status !== 'pending') throw new AppError('CONFLICT', `This offer of billing was already ${transfer.status}`);
  if (transfer.expiresAt <= now) throw new AppError('CONFLICT', 'This offer of billing has expired; ask for a new one');
}

async function findTransfer(tx: Tx, projectId: string, transferId: string): Promise<TransferRow> {
  const [transfer] = await tx
    .select()
    .from(billerTransfers)
    .where(and(eq(billerTransfers.id, transferId), eq(billerTransfers.projectId, projectId)))
    .for('update');
  if (!transfer) throw new AppError('NOT_FOUND', 'Billing transfer not found');
  return transfer;
}

async function close(tx: Tx, transfer: TransferRow, status: 'accepted' | 'declined' | 'cancelled', now: Date): Promise<void> {
  await tx.update(billerTransfers).set({ status, decidedAt: now }).where(eq(billerTransfers.id, transfer.id));
}

async function lockProject(tx: Tx, projectId: string): Promise<{ billerUserId: string }> {
  const [project] = await tx.select({ billerUserId: projects.billerUserId }).from(projects).where(eq(projects.id, projectId)).for('update');
  if (!project) throw new AppError('NOT_FOUND', 'Project not found');
  return project;
}

async function memberOf(tx: Tx, projectId: string, userId: string): Promise<{ role: ProjectRole; name: string } | null> {
  const [member] = await tx
    .select({ role: memberships.role, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
  return member ?? null;
}

async function roleOf(tx: Tx, projectId: string, userId: string): Promise<ProjectRole | null> {
  return (await memberOf(tx, projectId, userId))?.role ?? null;
}

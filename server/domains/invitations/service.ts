import { aliasedTable, and, desc, eq, gt, lte, sql } from 'drizzle-orm';
import { getDb, type DbOrTx, type Tx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { invitations, memberships, projects, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { ProjectRole } from '../../platform/auth/roles';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { enqueueJob } from '../../platform/jobs';
import { EXPIRE_INVITATION, type ExpireInvitationData } from './jobs';
import { getLogger } from '../../platform/logger';
import { generateOneTimeToken, safeEqual, sha256Hex } from '../../platform/auth/tokens';
import { consumeRateLimit } from '../../platform/rateLimit';
import { getMailer } from '../../providers/mailer';
import { markEmailVerified } from '../accounts';
import type { AcceptedInvitation, Invitation, PublicInvitation, ReceivedInvitation } from './schema';

/** Invitations per invited address per hour, every project together: nobody's mailbox becomes a target. */
export const INVITATIONS_PER_ADDRESS_PER_HOUR = 5;

type InvitationStatus = (typeof invitations.$inferSelect)['status'];
type InvitableRole = Exclude<ProjectRole, 'owner'>;

const inviters = aliasedTable(users, 'inviter');

/**
 * Invites an email address to the project. Refused with 409 when the address already belongs to a
 * member or has a pending invitation, and with 429 past INVITATIONS_PER_ADDRESS_PER_HOUR for the
 * address. The emailed link carries a secret (only its hash is kept): holding it is what proves
 * the invitation reached its addressee. The email and the expiry job follow the commit: a failure
 * of either is logged and does not undo the invitation, which the invitee also sees in their list
 * once their address is verified, and which the periodic sweep
 * expires anyway.
 */
export async function createInvitation(input: { projectId: string; actorUserId: string; email: string; role: InvitableRole }): Promise<Invitation> {
  const email = input.email.trim().toLowerCase();
  await consumeRateLimit({
    policy: 'invitation-email',
    // Hashed: the limiter's store holds no addresses.
    key: `invitation:email:${sha256Hex(email)}`,
    limit: INVITATIONS_PER_ADDRESS_PER_HOUR,
    windowSeconds: 3600,
  });
  const now = new Date();
  const expiresAt = new Date(now.getTime() + getConfig().INVITATION_TTL_HOURS * 3_600_000);
  const secret = generateOneTimeToken();
  const db = await getDb();
  let created: { invitation: Invitation; projectName: string };
  try {
    created = await db.transaction(async (tx) => {
      const [project] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, input.projectId));
      if (!project) throw new AppError('NOT_FOUND', 'Project not found');
      const [member] = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.projectId, input.projectId), sql`lower(${users.email}) = ${email}`))
        .limit(1);
      if (member) throw new AppError('CONFLICT', `${email} is already a member of this project`, { fields: { email: 'Already a member of this project' } });
      // A pending invitation past its expiry that the sweep has not reached yet must not block a new one.
      await tx
        .update(invitations)
        .set({ status: 'EXPIRED' })
        .where(and(...samePendingEmail(input.projectId, email), lte(invitations.expiresAt, now)));
      const id = newId('inv');
      await tx.insert(invitations).values({
        id,
        projectId: input.projectId,
        email,
        role: input.role,
        invitedByUserId: input.actorUserId,
        secretHash: secret.hash,
        expiresAt,
      });
      await emit(tx, input.projectId, 'invitation.created', { invitationId: id, email, role: input.role, by: input.actorUserId });
      const [invitation] = await selectInvitations(tx, eq(invitations.id, id));
      return { invitation: invitation!, projectName: project.name };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'invitations_pending_email_key')) throw pendingExists(email);
    throw err;
  }
  await sendInvitationEmail(created.invitation, created.projectName, secret.token);
  await scheduleExpiry(created.invitation.id, expiresAt);
  return created.invitation;
}

/** Pending invitations of the project that have not expired, newest first. */
export async function listProjectInvitations(projectId: string, now = new Date()): Promise<Invitation[]> {
  const db = await getDb();
  return selectInvitations(db, and(eq(invitations.projectId, projectId), ...openInvitation(now)));
}

/** Revokes a pending invitation; its link stops working at once. */
export async function revokeInvitation(input: { projectId: string; invitationId: string; actorUserId: string }): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(invitations)
      .set({ status: 'REVOKED' })
      .where(and(eq(invitations.id, input.invitationId), eq(invitations.projectId, input.projectId), ...openInvitation(new Date())))
      .returning({ id: invitations.id, email: invitations.email });
    if (!revoked) throw new AppError('NOT_FOUND', 'No pending invitation with this id in this project');
    await emit(tx, input.projectId, 'invitation.revoked', { invitationId: revoked.id, email: revoked.email, by: input.actorUserId });
  });
}

/**
 * Pending, unexpired invitations addressed to the user's account email, newest first. Until the
 * address is verified it is only a claim, and what was sent to it is not shown (403
 * EMAIL_NOT_VERIFIED).
 */
export async function listMyInvitations(userId: string, now = new Date()): Promise<ReceivedInvitation[]> {
  const db = await getDb();
  const { email, verified } = await accountOf(db, userId);
  if (!verified) throw emailNotVerified('to see the invitations sent to it');
  const rows = await db
    .select({
      id: invitations.id,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      createdAt: invitations.createdAt,
      projectId: projects.id,
      projectName: projects.name,
      projectSlug: projects.slug,
      inviterId: inviters.id,
      inviterName: inviters.name,
      inviterEmail: inviters.email,
    })
    .from(invitations)
    .innerJoin(projects, eq(projects.id, invitations.projectId))
    .innerJoin(inviters, eq(inviters.id, invitations.invitedByUserId))
    .where(and(sql`lower(${invitations.email}) = ${email}`, ...openInvitation(now)))
    .orderBy(desc(invitations.createdAt), desc(invitations.id));
  return rows.map((r) => ({
    id: r.id,
    project: { id: r.projectId, name: r.projectName, slug: r.projectSlug },
    role: r.role,
    invitedBy: { id: r.inviterId, name: r.inviterName, email: r.inviterEmail },
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
  }));
}

/**
 * What the accept-or-reject page shows to anyone holding the link. The address is masked, and a
 * pending invitation past its expiry reads EXPIRED whether or not the sweep has run.
 */
export async function getPublicInvitation(invitationId: string, now = new Date()): Promise<PublicInvitation> {
  const db = await getDb();
  const [row] = await db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      status: invitations.status,
      expiresAt: invitations.expiresAt,
      projectName: projects.name,
      inviterName: inviters.name,
    })
    .from(invitations)
    .innerJoin(projects, eq(projects.id, invitations.projectId))
    .innerJoin(inviters, eq(inviters.id, invitations.invitedByUserId))
    .where(eq(invitations.id, invitationId));
  if (!row) throw new AppError('NOT_FOUND', 'Invitation not found');
  return {
    id: row.id,
    project: { name: row.projectName },
    role: row.role,
    invitedBy: { name: row.inviterName },
    email: maskEmail(row.email),
    status: effectiveStatus(row.status, row.expiresAt, now),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** Who answers an invitation, and the secret from its emailed link when they opened it from there. */
export interface InvitationResponder {
  invitationId: string;
  userId: string;
  secret?: string;
}

/**
 * Joins the project the invitation is for. The membership, the status change and the events commit
 * together; the status change is conditional on PENDING so a second accept racing this one finds
 * nothing to claim.
 */
export async function acceptInvitation(input: InvitationResponder): Promise<AcceptedInvitation> {
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      const invitation = await respondableInvitation(tx, input);
      const [existing] = await tx
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.projectId, invitation.projectId), eq(memberships.userId, input.userId)));
      if (existing) throw new AppError('CONFLICT', 'You are already a member of this project');
      await claim(tx, input.invitationId, 'ACCEPTED');
      await tx.insert(memberships).values({ projectId: invitation.projectId, userId: input.userId, role: invitation.role });
      await emit(tx, invitation.projectId, 'invitation.accepted', { invitationId: invitation.id, userId: input.userId });
      await emit(tx, invitation.projectId, 'member.joined', {
        userId: input.userId,
        role: invitation.role,
        invitationId: invitation.id,
      });
      return { projectId: invitation.projectId, projectSlug: invitation.projectSlug, role: invitation.role };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'memberships_project_id_user_id_pk')) {
      throw new AppError('CONFLICT', 'You are already a member of this project');
    }
    throw err;
  }
}

/** Declines the invitation; it cannot be accepted afterwards. */
export async function rejectInvitation(input: InvitationResponder): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const invitation = await respondableInvitation(tx, input);
    await claim(tx, input.invitationId, 'REJECTED');
    await emit(tx, invitation.projectId, 'invitation.rejected', { invitationId: invitation.id, userId: input.userId });
  });
}

/** "alice@example.com" → "a***@example.com": enough for the invitee to recognise, not to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

function effectiveStatus(status: InvitationStatus, expiresAt: Date, now: Date): InvitationStatus {
  return status === 'PENDING' && expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : status;
}

function openInvitation(now: Date) {
  return [eq(invitations.status, 'PENDING'), gt(invitations.expiresAt, now)] as const;
}

function samePendingEmail(projectId: string, email: string) {
  return [eq(invitations.projectId, projectId), eq(invitations.status, 'PENDING'), sql`lower(${invitations.email}) = ${email}`] as const;
}

function pendingExists(email: string): AppError {
  return new AppError('CONFLICT', `An invitation for ${email} is already pending; revoke it to send a new one`, {
    fields: { email: 'An invitation for this address is already pending' },
  });
}

async function accountOf(db: DbOrTx, userId: string): Promise<{ email: string; verified: boolean }> {
  const [user] = await db.select({ email: users.email, emailVerifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, userId));
  if (!user) throw new AppError('NOT_FOUND', 'Account not found');
  return { email: user.email.toLowerCase(), verified: user.emailVerifiedAt !== null };
}

function emailNotVerified(purpose: string): AppError {
  return new AppError('EMAIL_NOT_VERIFIED', `Verify your email address ${purpose}: open the link we emailed you, or send a new one from your account page`);
}

/**
 * Loads the invitation for an accept or reject, locked for the rest of the transaction, once the
 * caller has shown it is theirs: either their account's address is verified and is the invited
 * one, or they hold the secret of the emailed link, which only reached the invited mailbox (they
 * may then answer with an account under another address). Answering through the link also
 * verifies an unverified account whose address is the invited one: it proves the same thing the
 * verification email does. The addressee is checked before the state, so someone else's link
 * tells them nothing about it.
 */
async function respondableInvitation(tx: Tx, { invitationId, userId, secret }: InvitationResponder) {
  const [row] = await tx
    .select({
      id: invitations.id,
      projectId: invitations.projectId,
      projectSlug: projects.slug,
      email: invitations.email,
      role: invitations.role,
      status: invitations.status,
      expiresAt: invitations.expiresAt,
      secretHash: invitations.secretHash,
    })
    .from(invitations)
    .innerJoin(projects, eq(projects.id, invitations.projectId))
    .where(eq(invitations.id, invitationId))
    .for('update', { of: invitations });
  if (!row) throw new AppError('NOT_FOUND', 'Invitation not found');
  const account = await accountOf(tx, userId);
  const addressedToAccount = row.email.toLowerCase() === account.email;
  const holdsSecret = secret !== undefined && row.secretHash !== null && safeEqual(sha256Hex(secret), row.secretHash);
  if (!holdsSecret && (!addressedToAccount || !account.verified)) throw responseRefused(secret !== undefined, addressedToAccount);
  const status = effectiveStatus(row.status, row.expiresAt, new Date());
  if (status === 'EXPIRED') throw new AppError('CONFLICT', 'This invitation has expired; ask for a new one');
  if (status !== 'PENDING') throw new AppError('CONFLICT', `This invitation has already been used (${status.toLowerCase()})`);
  if (holdsSecret && addressedToAccount && !account.verified) await markEmailVerified(tx, userId, account.email);
  return row;
}

/** Why neither the address nor the link entitles the caller to answer, in the order they can fix it. */
function responseRefused(secretGiven: boolean, addressedToAccount: boolean): AppError {
  if (secretGiven) return new AppError('FORBIDDEN', 'This invitation link is not valid; open the link from the invitation email again');
  if (!addressedToAccount) return new AppError('FORBIDDEN', 'This invitation was sent to another email address');
  return emailNotVerified('to answer this invitation, or open it from the link in the invitation email');
}

async function claim(tx: Tx, invitationId: string, status: 'ACCEPTED' | 'REJECTED'): Promise<void> {
  const [claimed] = await tx
    .update(invitations)
    .set({ status, respondedAt: new Date() })
    .where(and(eq(invitations.id, invitationId), eq(invitations.status, 'PENDING')))
    .returning({ id: invitations.id });
  if (!claimed) throw new AppError('CONFLICT', 'This invitation has already been used');
}

async function selectInvitations(db: DbOrTx, filter: ReturnType<typeof and>): Promise<Invitation[]> {
  const rows = await db
    .select({
      id: invitations.id,
      projectId: invitations.projectId,
      email: invitations.email,
      role: invitations.role,
      status: invitations.status,
      expiresAt: invitations.expiresAt,
      createdAt: invitations.createdAt,
      inviterId: inviters.id,
      inviterName: inviters.name,
      inviterEmail: inviters.email,
    })
    .from(invitations)
    .innerJoin(inviters, eq(inviters.id, invitations.invitedByUserId))
    .where(filter)
    .orderBy(desc(invitations.createdAt), desc(invitations.id));
  return rows.map((r) => ({
    id: r.id,
    projectId: r.projectId,
    email: r.email,
    role: r.role,
    status: r.status,
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    invitedBy: { id: r.inviterId, name: r.inviterName, email: r.inviterEmail },
  }));
}

async function sendInvitationEmail(invitation: Invitation, projectName: string, secret: string): Promise<void> {
  const { APP_URL } = getConfig();
  const inviter = invitation.invitedBy;
  try {
    await getMailer().send({
      to: invitation.email,
      subject: `${inviter.name} invited you to ${projectName}`,
      text: [
        'Hello,',
        '',
        `${inviter.name} (${inviter.email}) invited you to join the project "${projectName}" as ${invitation.role}.`,
        'To accept or decline, open:',
        `${APP_URL}/invitations/${invitation.id}?secret=${secret}`,
        '',
        `The invitation expires on ${formatUtc(invitation.expiresAt)}. The link is yours alone: whoever opens it can join the project, so do not forward it.`,
      ].join('\n'),
    });
  } catch (err) {
    getLogger().error({ err, invitationId: invitation.id }, 'invitation email could not be sent');
  }
}

async function scheduleExpiry(invitationId: string, expiresAt: Date): Promise<void> {
  try {
    await enqueueJob<ExpireInvitationData>(EXPIRE_INVITATION, { invitationId }, { startAfter: expiresAt });
  } catch (err) {
    getLogger().error({ err, invitationId }, 'invitation expiry job could not be queued; the periodic sweep will expire it');
  }
}

/** "28 November 2026, 14:05 UTC": dates in emails are read by people. */
function formatUtc(iso: string): string {
  const formatted = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso));
  return `${formatted} UTC`;
}

/**
 * An invitation carries its sender's authority: once the sender may no longer invite (removed, or
 * below admin), what they sent and nobody has accepted yet is revoked with it.
 */
export async function revokeInvitationsSentBy(tx: Tx, projectId: string, senderUserId: string, actorUserId: string): Promise<void> {
  const revoked = await tx
    .update(invitations)
    .set({ status: 'REVOKED', respondedAt: new Date() })
    .where(and(eq(invitations.projectId, projectId), eq(invitations.invitedByUserId, senderUserId), eq(invitations.status, 'PENDING')))
    .returning({ id: invitations.id, email: invitations.email });
  for (const invitation of revoked) {
    await emit(tx, projectId, 'invitation.revoked', { invitationId: invitation.id, email: invitation.email, by: actorUserId, reason: 'sender_lost_access' });
  }
}

import { and, eq, lt, lte } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../db';
import { invitations } from '../../../db/schema';
import type { JobDefinition } from '../../platform/jobs';
import { getLogger } from '../../platform/logger';

export const EXPIRE_INVITATION = 'invitations.expire';
export const EXPIRE_STALE_INVITATIONS = 'invitations.expire-stale';

const expireInvitationData = z.object({ invitationId: z.string().min(1) });
export type ExpireInvitationData = z.infer<typeof expireInvitationData>;

/**
 * Marks one invitation EXPIRED if it is still pending and its expiry has passed. A job that runs
 * early (clock skew between the app and the database) leaves the invitation alone; the periodic
 * sweep (expireStaleInvitations) expires it later.
 */
export async function expireInvitation(data: Record<string, unknown>, now = new Date()): Promise<boolean> {
  const { invitationId } = expireInvitationData.parse(data);
  const db = await getDb();
  const expired = await db
    .update(invitations)
    .set({ status: 'EXPIRED' })
    .where(and(eq(invitations.id, invitationId), eq(invitations.status, 'PENDING'), lte(invitations.expiresAt, now)))
    .returning({ id: invitations.id });
  return expired.length > 0;
}

/** Marks every pending invitation past its expiry EXPIRED: catches the ones whose own job ran early or never. */
export async function expireStaleInvitations(now = new Date()): Promise<number> {
  const db = await getDb();
  const expired = await db
    .update(invitations)
    .set({ status: 'EXPIRED' })
    .where(and(eq(invitations.status, 'PENDING'), lt(invitations.expiresAt, now)))
    .returning({ id: invitations.id });
  return expired.length;
}

export const invitationJobs: JobDefinition[] = [
  { name: EXPIRE_INVITATION, handler: async (data) => void (await expireInvitation(data)) },
  {
    name: EXPIRE_STALE_INVITATIONS,
    cron: '*/10 * * * *',
    handler: async () => getLogger().info({ invitations: await expireStaleInvitations() }, 'stale invitations expired'),
  },
];

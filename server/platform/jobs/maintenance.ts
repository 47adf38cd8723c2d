import { and, eq, lt, or, isNotNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { invitations, passwordResetTokens } from '../../../db/schema';
import { getLogger } from '../logger';
import { purgeExpiredRateLimits } from '../rateLimit';
import type { JobDefinition } from './runner';

export const EXPIRE_STALE_RECORDS = 'maintenance.expire-stale-records';

/** Marks invitations past their expiry EXPIRED and removes used or expired reset tokens. */
export async function expireStaleRecords(now = new Date()): Promise<{ invitations: number; resetTokens: number; rateLimits: number }> {
  const db = await getDb();
  const expired = await db
    .update(invitations)
    .set({ status: 'EXPIRED' })
    .where(and(eq(invitations.status, 'PENDING'), lt(invitations.expiresAt, now)))
    .returning({ id: invitations.id });
  const tokens = await db
    .delete(passwordResetTokens)
    .where(or(lt(passwordResetTokens.expiresAt, now), isNotNull(passwordResetTokens.usedAt)))
    .returning({ id: passwordResetTokens.id });
  const rateLimits = await purgeExpiredRateLimits(now);
  const result = { invitations: expired.length, resetTokens: tokens.length, rateLimits };
  getLogger().info(result, 'stale records expired');
  return result;
}

export const maintenanceJobs: JobDefinition[] = [
  { name: EXPIRE_STALE_RECORDS, cron: '*/10 * * * *', handler: async () => void (await expireStaleRecords()) },
];

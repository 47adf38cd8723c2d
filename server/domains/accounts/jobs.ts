import { isNotNull, lt, or } from 'drizzle-orm';
import { getDb } from '../../../db';
import { emailVerificationTokens, passwordResetTokens } from '../../../db/schema';
import type { JobDefinition } from '../../platform/jobs';
import { getLogger } from '../../platform/logger';

export const PURGE_RESET_TOKENS = 'accounts.purge-reset-tokens';

/** Deletes reset tokens that were used or have expired: neither can ever work again. */
export async function purgeSpentResetTokens(now = new Date()): Promise<number> {
  const db = await getDb();
  const deleted = await db
    .delete(passwordResetTokens)
    .where(or(lt(passwordResetTokens.expiresAt, now), isNotNull(passwordResetTokens.usedAt)))
    .returning({ id: passwordResetTokens.id });
  return deleted.length;
}

/** Deletes verification links that were used or have expired. */
export async function purgeSpentVerificationTokens(now = new Date()): Promise<number> {
  const db = await getDb();
  const deleted = await db
    .delete(emailVerificationTokens)
    .where(or(lt(emailVerificationTokens.expiresAt, now), isNotNull(emailVerificationTokens.usedAt)))
    .returning({ id: emailVerificationTokens.id });
  return deleted.length;
}

export const accountJobs: JobDefinition[] = [
  {
    name: PURGE_RESET_TOKENS,
    cron: '*/10 * * * *',
    handler: async () =>
      getLogger().info({ resetTokens: await purgeSpentResetTokens(), verificationTokens: await purgeSpentVerificationTokens() }, 'spent account tokens purged'),
  },
];

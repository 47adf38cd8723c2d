import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../../../db';
import { emailVerificationTokens, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { generateOneTimeToken, sha256Hex } from '../../platform/auth/tokens';
import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { consumeRateLimit } from '../../platform/rateLimit';
import { getMailer } from '../../providers/mailer';

/** A verification link lasts a day: long enough to find the mail the next morning. */
export const EMAIL_VERIFICATION_TTL_HOURS = 24;

/** Sending links on demand is limited per account, so the button cannot be used to flood a mailbox. */
export const RESEND_VERIFICATION_LIMIT = { limit: 5, windowSeconds: 60 * 60 } as const;

/**
 * Mails the account a link that proves its owner reads the address. Sign-up calls it once the
 * account exists; a failed send is logged and the owner can ask for another link from the panel.
 */
export async function sendVerificationEmail(user: { id: string; email: string; name: string }): Promise<void> {
  const config = getConfig();
  const { token, hash } = generateOneTimeToken();
  const db = await getDb();
  await db.insert(emailVerificationTokens).values({
    id: newId('evt'),
    userId: user.id,
    email: user.email.toLowerCase(),
    tokenHash: hash,
    expiresAt: new Date(Date.now() + EMAIL_VERIFICATION_TTL_HOURS * 3_600_000),
  });
  try {
    await getMailer().send({
      to: user.email,
      subject: 'Confirm your email address',
      text: [
        `Hello ${user.name},`,
        '',
        'To confirm that this address is yours, open:',
        `${config.APP_URL}/verify-email/${token}`,
        '',
        `The link works once and expires in ${EMAIL_VERIFICATION_TTL_HOURS} hours. Invitations sent to this address can be accepted once it is confirmed.`,
        'If you did not create an account, ignore this email.',
      ].join('\n'),
    });
  } catch (err) {
    getLogger().error({ err, userId: user.id }, 'email verification could not be sent');
  }
}

/**
 * Sends a new link to the signed-in account. 409 when the address is already verified; five
 * links per account per hour, then 429.
 */
export async function resendVerificationEmail(userId: string): Promise<void> {
  const db = await getDb();
  const [user] = await db
    .select({ id: users.id, email: users.email, name: users.name, emailVerifiedAt: users.emailVerifiedAt })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) throw new AppError('NOT_FOUND', 'Account not found');
  if (user.emailVerifiedAt) throw new AppError('CONFLICT', 'Your email address is already verified');
  await consumeRateLimit({ policy: 'verification-email', key: `verify-email:user:${userId}`, ...RESEND_VERIFICATION_LIMIT });
  await sendVerificationEmail(user);
}

/**
 * Marks the address the link was sent to as verified. The link works once, and using it ends the
 * account's other links. An unused link past its expiry is LINK_EXPIRED; any other link that does
 * not work (unknown, used, or for an address the account no longer has) is BAD_REQUEST.
 */
export async function verifyEmail(token: string): Promise<{ email: string }> {
  const db = await getDb();
  const tokenHash = sha256Hex(token);
  const verified = await db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(emailVerificationTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(emailVerificationTokens.tokenHash, tokenHash), isNull(emailVerificationTokens.usedAt), gt(emailVerificationTokens.expiresAt, new Date())))
      .returning({ userId: emailVerificationTokens.userId, email: emailVerificationTokens.email });
    if (!claimed) return null;
    if (!(await markEmailVerified(tx, claimed.userId, claimed.email))) throw invalidLink();
    await tx
      .update(emailVerificationTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(emailVerificationTokens.userId, claimed.userId), isNull(emailVerificationTokens.usedAt)));
    return { email: claimed.email };
  });
  if (verified) return verified;
  const [unused] = await db
    .select({ id: emailVerificationTokens.id })
    .from(emailVerificationTokens)
    .where(and(eq(emailVerificationTokens.tokenHash, tokenHash), isNull(emailVerificationTokens.usedAt)));
  if (unused) throw new AppError('LINK_EXPIRED', 'This verification link has expired; sign in and send a new one from your account page');
  throw invalidLink();
}

/**
 * Records that the account's owner reads mail sent to `email`, if that is still the account's
 * address. Also called when an invitation is answered through its emailed link, which proves the
 * same. Returns false when the account's address is another one.
 */
export async function markEmailVerified(tx: Tx, userId: string, email: string): Promise<boolean> {
  const [account] = await tx
    .update(users)
    .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())`, updatedAt: new Date() })
    .where(and(eq(users.id, userId), sql`lower(${users.email}) = ${email.toLowerCase()}`))
    .returning({ id: users.id });
  return account !== undefined;
}

function invalidLink(): AppError {
  return new AppError('BAD_REQUEST', 'This verification link is not valid; open the newest link we sent, or send a new one from your account page');
}

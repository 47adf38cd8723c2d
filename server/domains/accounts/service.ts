import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { passwordResetTokens, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/auth/passwords';
import { generateOneTimeToken, sha256Hex } from '../../platform/auth/tokens';
import { getConfig } from '../../platform/config';
import { AppError, invalidField } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { getMailer, type MailMessage } from '../../providers/mailer';
import { getPaymentsProvider } from '../../providers/payments';
import { consumeRateLimit, refundRateLimit, type RateLimitRule } from '../../platform/rateLimit';
import { sendVerificationEmail } from './emailVerification';
import type { Account, OwnAccount } from './schema';

/** Budgets of the account operations anyone can call, each `limit` attempts per `windowSeconds`. */
export const ACCOUNT_LIMITS = {
  /** Sign-ups per email address: the answer (created or taken) says whether the address has an account. */
  signUpPerEmail: { limit: 5, windowSeconds: 3600 },
  /** Failed sign-ins per email address typed; at the limit even the right password waits. */
  signInFailuresPerAccount: { limit: 10, windowSeconds: 15 * 60 },
  /** Failed sign-ins per client address, whichever accounts they try. */
  signInFailuresPerAddress: { limit: 30, windowSeconds: 15 * 60 },
  /** SPEC: reset requests per client address. */
  restorePerAddress: { limit: 5, windowSeconds: 10 * 60 },
  /** Reset requests per email address, so nobody fills a mailbox with reset links from many addresses. */
  restorePerEmail: { limit: 5, windowSeconds: 3600 },
} as const;

/** Budgets keyed by an email address use its hash: the limiter's store holds no addresses. */
const emailKey = (email: string) => sha256Hex(normalizeEmail(email));

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Creates the user and their payment-processor customer in one transaction, then mails the link
 * that verifies the address.
 */
export async function createAccount(input: { name: string; email: string; password: string }): Promise<Account> {
  const email = normalizeEmail(input.email);
  await consumeRateLimit({ policy: 'sign-up', key: `sign-up:email:${emailKey(email)}`, ...ACCOUNT_LIMITS.signUpPerEmail });
  const passwordHash = await hashPassword(input.password);
  const db = await getDb();
  let account: Account;
  try {
    account = await db.transaction(async (tx) => {
      const id = newId('usr');
      await tx.insert(users).values({ id, email, name: input.name, passwordHash });
      const { customerId } = await getPaymentsProvider().createCustomer({ email, name: input.name, idempotencyKey: `customer:${id}` }, tx);
      await tx.update(users).set({ paymentCustomerId: customerId }).where(eq(users.id, id));
      return { id, email, name: input.name };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'users_email_lower_key')) {
      throw new AppError('CONFLICT', 'An account with this email already exists', { fields: { email: 'An account with this email already exists' } });
    }
    throw err;
  }
  await sendVerificationEmail(account);
  return account;
}

/**
 * A panel sign-in. The attempt takes a unit from the client address's and from the account's
 * budget of failures before the password is checked, so parallel guesses cannot outrun the count,
 * and a right password gives both back. The account's budget is keyed by the email typed, whether
 * or not an account has it, so a refusal tells nothing about which addresses exist. Throws
 * RATE_LIMITED when either budget is spent; the address is checked first, so an address already
 * refused spends nothing of the account's.
 */
export async function signIn(input: { email: string; password: string; ip: string }): Promise<(Account & { sessionVersion: number }) | null> {
  const rules: RateLimitRule[] = [
    { policy: 'sign-in-address', key: `sign-in:ip:${input.ip}`, ...ACCOUNT_LIMITS.signInFailuresPerAddress },
    { policy: 'sign-in-account', key: `sign-in:email:${emailKey(input.email)}`, ...ACCOUNT_LIMITS.signInFailuresPerAccount },
  ];
  for (const rule of rules) await consumeRateLimit(rule);
  const user = await verifyCredentials(input.email, input.password);
  if (user) for (const rule of rules) await refundRateLimit(rule);
  return user;
}

/** Checks a sign-in; the same work is done for unknown emails so timing does not tell them apart. */
export async function verifyCredentials(emailInput: string, password: string): Promise<(Account & { sessionVersion: number }) | null> {
  const db = await getDb();
  const [user] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${emailInput.trim().toLowerCase()}`)
    .limit(1);
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !ok) return null;
  return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
}

const ownAccountColumns = { id: users.id, email: users.email, name: users.name, emailVerifiedAt: users.emailVerifiedAt };

export async function getAccount(userId: string): Promise<OwnAccount> {
  const db = await getDb();
  const [user] = await db.select(ownAccountColumns).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw new AppError('NOT_FOUND', 'Account not found');
  return toOwnAccount(user);
}

export async function updateAccountName(userId: string, name: string): Promise<OwnAccount> {
  const db = await getDb();
  const [user] = await db.update(users).set({ name, updatedAt: new Date() }).where(eq(users.id, userId)).returning(ownAccountColumns);
  if (!user) throw new AppError('NOT_FOUND', 'Account not found');
  return toOwnAccount(user);
}

/** Changes the password and ends every other session (their session version no longer matches). */
export async function changePassword(userId: string, currentPassword: string, newPassword: string): Promise<{ sessionVersion: number }> {
  const db = await getDb();
  const [user] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw new AppError('NOT_FOUND', 'Account not found');
  if (!(await verifyPassword(user.passwordHash, currentPassword))) {
    throw invalidField('currentPassword', 'The current password is not correct');
  }
  const passwordHash = await hashPassword(newPassword);
  const [row] = await db
    .update(users)
    .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: new Date() })
    .where(eq(users.id, userId))
    .returning({ sessionVersion: users.sessionVersion });
  return { sessionVersion: row!.sessionVersion };
}

/**
 * Starts a password reset. Succeeds from the caller's point of view whether or not the email has
 * an account, so it never reveals which; limited per client address (SPEC) and per email address,
 * both counted for any address, with or without an account.
 */
export async function requestPasswordReset(input: { email: string; locale: string; ip: string }): Promise<void> {
  const email = normalizeEmail(input.email);
  await consumeRateLimit({ policy: 'password-reset', key: `restore:ip:${input.ip}`, ...ACCOUNT_LIMITS.restorePerAddress });
  await consumeRateLimit({ policy: 'password-reset-email', key: `restore:email:${emailKey(email)}`, ...ACCOUNT_LIMITS.restorePerEmail });
  const db = await getDb();
  const [user] = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(sql`lower(${users.email}) = ${email}`)
    .limit(1);
  if (!user) return;
  const config = getConfig();
  const { token, hash } = generateOneTimeToken();
  const expiresAt = new Date(Date.now() + config.PASSWORD_RESET_TTL_MINUTES * 60_000);
  await db.insert(passwordResetTokens).values({ id: newId('prt'), userId: user.id, tokenHash: hash, expiresAt });
  const link = `${config.APP_URL}/reset-password/${token}`;
  await sendQuietly({
    to: user.email,
    subject: 'Reset your password',
    text: [
      `Hello ${user.name},`,
      '',
      'Someone asked to reset the password of your account. To choose a new password, open:',
      link,
      '',
      `The link works once and expires in ${config.PASSWORD_RESET_TTL_MINUTES} minutes. If you did not ask for this, ignore this email.`,
    ].join('\n'),
  });
}

/** The answer to a reset request never depends on delivery; a failed send is logged for operators. */
async function sendQuietly(message: MailMessage): Promise<void> {
  try {
    await getMailer().send(message);
  } catch (err) {
    getLogger().error({ err, to: message.to }, 'password reset email could not be sent');
  }
}

/** Completes a reset: the token is single-use, and every existing session ends. */
export async function completePasswordReset(token: string, newPassword: string): Promise<void> {
  const db = await getDb();
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.tokenHash, sha256Hex(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, new Date())))
      .returning({ userId: passwordResetTokens.userId });
    if (!claimed) throw new AppError('BAD_REQUEST', 'This reset link is invalid, already used or expired; ask for a new one');
    // Every other link sent to the account ends too: one of them may be in a mailbox someone else reads.
    await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResetTokens.userId, claimed.userId), isNull(passwordResetTokens.usedAt)));
    await tx
      .update(users)
      .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: new Date() })
      .where(eq(users.id, claimed.userId));
  });
}

/**
 * Signing out ends the session everywhere it was copied: a saved cookie of it stops working. The
 * version moves only if the session was still current, so a stale sign-out changes nothing.
 */
export async function endSession(userId: string, sessionVersion: number): Promise<void> {
  const db = await getDb();
  await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: new Date() })
    .where(and(eq(users.id, userId), eq(users.sessionVersion, sessionVersion)));
}

function toOwnAccount(user: { id: string; email: string; name: string; emailVerifiedAt: Date | null }): OwnAccount {
  return { ...user, emailVerifiedAt: user.emailVerifiedAt?.toISOString() ?? null };
}

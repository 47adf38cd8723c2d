import { signIn } from 'next-auth/react';
import { SIGN_IN_THROTTLED } from '@/server/domains/accounts/schema';

export interface SignInOutcome {
  ok: boolean;
  /** Set when too many failed attempts hold the sign-in back: seconds until the next attempt is let through. */
  retryAfterSeconds?: number;
}

const THROTTLED = new RegExp(`^${SIGN_IN_THROTTLED}:(\\d+)$`);

/** Starts a panel session; fails when the email and password do not match an account, or while sign-ins are held back. */
export async function signInWithPassword(email: string, password: string): Promise<SignInOutcome> {
  const result = await signIn('credentials', { email, password, redirect: false });
  if (result?.ok && !result.error) return { ok: true };
  const throttled = THROTTLED.exec(result?.error ?? '');
  return throttled ? { ok: false, retryAfterSeconds: Number(throttled[1]) } : { ok: false };
}

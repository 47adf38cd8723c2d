import { signIn } from 'next-auth/react';

/** Starts a panel session; resolves false when the email and password do not match an account. */
export async function signInWithPassword(email: string, password: string): Promise<boolean> {
  const result = await signIn('credentials', { email, password, redirect: false });
  return Boolean(result?.ok && !result.error);
}

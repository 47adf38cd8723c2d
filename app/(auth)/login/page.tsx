import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { AuthCard } from '@/components/auth/AuthCard';
import { safeCallbackUrl } from '@/components/auth/callbackUrl';
import { LoginForm, type LoginNotice } from '@/components/auth/LoginForm';

export const metadata: Metadata = { title: 'Sign in' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function noticeOf(params: Record<string, string | string[] | undefined>): LoginNotice {
  if (params.reset) return 'reset';
  if (params.passwordChanged) return 'password-changed';
  if (params.expired) return 'expired';
  return null;
}

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  if (await getSignedInAccount()) redirect(callbackUrl);
  return (
    <AuthCard title="Sign in to Cloud Panel" subtitle="Welcome back. Enter your email and password.">
      <LoginForm callbackUrl={callbackUrl} notice={noticeOf(params)} />
    </AuthCard>
  );
}

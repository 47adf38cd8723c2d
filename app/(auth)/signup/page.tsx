import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { AuthCard } from '@/components/auth/AuthCard';
import { safeCallbackUrl } from '@/components/auth/callbackUrl';
import { SignupForm } from '@/components/auth/SignupForm';

export const metadata: Metadata = { title: 'Create an account' };

export default async function SignupPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  if (await getSignedInAccount()) redirect(callbackUrl);
  return (
    <AuthCard title="Create your account" subtitle="Start a project, invite your team and manage its infrastructure in one place.">
      <SignupForm callbackUrl={callbackUrl} />
    </AuthCard>
  );
}

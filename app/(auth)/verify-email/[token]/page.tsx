import type { Metadata } from 'next';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { AuthCard } from '@/components/auth/AuthCard';
import { VerifyEmail } from '@/components/auth/VerifyEmail';

export const metadata: Metadata = { title: 'Verify your email address', referrer: 'no-referrer' };
export const dynamic = 'force-dynamic';

export default async function VerifyEmailPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const account = await getSignedInAccount();
  return (
    <AuthCard title="Verify your email address">
      <VerifyEmail token={token} signedIn={account && { email: account.email, verified: account.emailVerifiedAt !== null }} />
    </AuthCard>
  );
}

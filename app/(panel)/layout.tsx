import { getServerSession } from 'next-auth';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { EmailVerificationBanner } from '@/components/account/EmailVerificationBanner';
import { SignedInAccountProvider } from '@/components/shell/SignedInAccount';
import { TopBar } from '@/components/shell/TopBar';
import { getAuthOptions } from '@/server/domains/accounts/nextAuth';
import { getSignedInAccount } from '@/app/_server/signedInAccount';

export const dynamic = 'force-dynamic';

export default async function PanelLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(getAuthOptions());
  if (!session) redirect('/login');
  const account = await getSignedInAccount();
  if (!account) redirect('/login?expired=1');
  return (
    <SignedInAccountProvider account={account}>
      <TopBar account={account} />
      <EmailVerificationBanner account={account} />
      {children}
    </SignedInAccountProvider>
  );
}

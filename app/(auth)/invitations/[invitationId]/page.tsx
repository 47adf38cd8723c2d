import type { Metadata } from 'next';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { AuthCard } from '@/components/auth/AuthCard';
import { InvitationResponse } from '@/components/invitations/InvitationResponse';

export const metadata: Metadata = { title: 'Invitation' };
export const dynamic = 'force-dynamic';

export default async function InvitationPage({ params }: { params: Promise<{ invitationId: string }> }) {
  const { invitationId } = await params;
  const account = await getSignedInAccount();
  return (
    <AuthCard wide title="You have been invited" subtitle="Join a project on Cloud Panel.">
      <InvitationResponse invitationId={invitationId} signedInAs={account?.email ?? null} />
    </AuthCard>
  );
}

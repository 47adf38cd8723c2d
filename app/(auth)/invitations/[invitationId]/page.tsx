import type { Metadata } from 'next';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { AuthCard } from '@/components/auth/AuthCard';
import { InvitationResponse } from '@/components/invitations/InvitationResponse';

// The link's query carries the invitation's secret: no page it leads to may see it in a Referer.
export const metadata: Metadata = { title: 'Invitation', referrer: 'no-referrer' };
export const dynamic = 'force-dynamic';

export default async function InvitationPage({
  params,
  searchParams,
}: {
  params: Promise<{ invitationId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { invitationId } = await params;
  const { secret } = await searchParams;
  const account = await getSignedInAccount();
  return (
    <AuthCard wide title="You have been invited" subtitle="Join a project on Cloud Panel.">
      <InvitationResponse invitationId={invitationId} secret={typeof secret === 'string' ? secret : undefined} signedInAs={account?.email ?? null} />
    </AuthCard>
  );
}

import type { Metadata } from 'next';
import { MyInvitations } from '@/components/invitations/MyInvitations';

export const metadata: Metadata = { title: 'Invitations' };

export default function InvitationsPage() {
  return <MyInvitations />;
}

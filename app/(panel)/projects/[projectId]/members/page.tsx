import type { Metadata } from 'next';
import { MembersPage } from '@/components/members/MembersPage';

export const metadata: Metadata = { title: 'Members' };

export default function ProjectMembersPage() {
  return <MembersPage />;
}

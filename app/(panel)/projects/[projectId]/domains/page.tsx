import type { Metadata } from 'next';
import { DomainsPage } from '@/components/domains/DomainsPage';

export const metadata: Metadata = { title: 'Domains' };

export default function ProjectDomainsPage() {
  return <DomainsPage />;
}

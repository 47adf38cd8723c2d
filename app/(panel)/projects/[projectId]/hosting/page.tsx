import type { Metadata } from 'next';
import { SitesPage } from '@/components/hosting/SitesPage';
import { hostingProviderInfo } from './providerInfo';

export const metadata: Metadata = { title: 'Hosting' };

export default function ProjectHostingPage() {
  return <SitesPage provider={hostingProviderInfo()} />;
}

import type { Metadata } from 'next';
import { SiteDetail } from '@/components/hosting/SiteDetail';
import { hostingCatalog, hostingProviderInfo } from '../providerInfo';

export const metadata: Metadata = { title: 'Hosting site' };

export default async function SitePage({ params }: { params: Promise<{ tenantId: string }> }) {
  const { tenantId } = await params;
  return <SiteDetail tenantId={tenantId} catalog={hostingCatalog()} provider={hostingProviderInfo()} />;
}

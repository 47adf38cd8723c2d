import type { Metadata } from 'next';
import { CreateSiteWizard } from '@/components/hosting/CreateSiteWizard';
import { getConfig } from '@/server/platform/config';
import { hostingCatalog, hostingProviderInfo } from '../providerInfo';

export const metadata: Metadata = { title: 'Create a site' };

export default function NewSitePage() {
  return <CreateSiteWizard catalog={hostingCatalog()} platformDomain={getConfig().HOSTING_PLATFORM_DOMAIN} provider={hostingProviderInfo()} />;
}

import type { HostingCatalog, HostingProviderInfo } from '@/components/hosting/hosting';
import { EXTRA_STORAGE_BLOCK_GB, MAX_EXTRA_STORAGE_GB, TIER_LIMITS } from '@/server/domains/hosting/tiers';
import { getHostingDatabaseProvider } from '@/server/providers/hosting';
import { getWebServingProvider } from '@/server/providers/hosting/web';

/** Which web server and MySQL server the sites run on, read on the server for the pages' notices. */
export function hostingProviderInfo(): HostingProviderInfo {
  const web = getWebServingProvider();
  const databases = getHostingDatabaseProvider();
  return { web: { kind: web.kind, description: web.description }, databases: { kind: databases.kind, description: databases.description } };
}

/** The tier table the API charges by, handed to the pages that show tiers. */
export function hostingCatalog(): HostingCatalog {
  return { tiers: TIER_LIMITS, extraStorageBlockGb: EXTRA_STORAGE_BLOCK_GB, maxExtraStorageGb: MAX_EXTRA_STORAGE_GB };
}

import type { RegistryProviderInfo } from '@/components/containerRegistry/registry';
import { getRegistryProvider } from '@/server/providers/registry';

/** Read on the server: the pages cannot ask the API which provider runs nor where its front door listens. */
export function registryProviderInfo(): RegistryProviderInfo {
  const provider = getRegistryProvider();
  return { kind: provider.kind, description: provider.description, host: provider.host() };
}

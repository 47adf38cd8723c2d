import type { Metadata } from 'next';
import { CreateRegistryWizard } from '@/components/containerRegistry/CreateRegistryWizard';
import { registryProviderInfo } from '../providerInfo';

export const metadata: Metadata = { title: 'Create a registry' };

export default function NewRegistryPage() {
  return <CreateRegistryWizard provider={registryProviderInfo()} />;
}

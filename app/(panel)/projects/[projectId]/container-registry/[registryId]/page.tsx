import type { Metadata } from 'next';
import { RegistryDetail } from '@/components/containerRegistry/RegistryDetail';
import { registryProviderInfo } from '../providerInfo';

export const metadata: Metadata = { title: 'Container registry' };

export default async function RegistryDetailPage({ params }: { params: Promise<{ registryId: string }> }) {
  const { registryId } = await params;
  return <RegistryDetail registryId={registryId} provider={registryProviderInfo()} />;
}

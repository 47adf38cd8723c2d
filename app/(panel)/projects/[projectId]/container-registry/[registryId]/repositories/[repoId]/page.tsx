import type { Metadata } from 'next';
import { RepositoryDetail } from '@/components/containerRegistry/RepositoryDetail';
import { registryProviderInfo } from '../../../providerInfo';

export const metadata: Metadata = { title: 'Repository' };

export default async function RepositoryDetailPage({ params }: { params: Promise<{ registryId: string; repoId: string }> }) {
  const { registryId, repoId } = await params;
  return <RepositoryDetail registryId={registryId} repoId={repoId} provider={registryProviderInfo()} />;
}

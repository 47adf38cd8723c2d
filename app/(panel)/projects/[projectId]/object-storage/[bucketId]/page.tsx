import type { Metadata } from 'next';
import { BucketDetail } from '@/components/objectStorage/BucketDetail';
import { TIER_PLANS } from '@/server/domains/objectStorage/tiers';
import { getConfig } from '@/server/platform/config';
import { getObjectStorageProvider } from '@/server/providers/objectStorage';

export const metadata: Metadata = { title: 'Bucket' };

export default async function BucketDetailPage({ params }: { params: Promise<{ bucketId: string }> }) {
  const { bucketId } = await params;
  const { kind, description } = getObjectStorageProvider();
  return <BucketDetail bucketId={bucketId} currency={getConfig().BILLING_CURRENCY} tiers={TIER_PLANS} provider={{ kind, description }} />;
}

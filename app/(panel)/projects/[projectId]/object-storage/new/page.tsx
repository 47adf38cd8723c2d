import type { Metadata } from 'next';
import { CreateBucketWizard } from '@/components/objectStorage/CreateBucketWizard';
import { TIER_PLANS } from '@/server/domains/objectStorage/tiers';
import { getConfig } from '@/server/platform/config';
import { getObjectStorageProvider } from '@/server/providers/objectStorage';

export const metadata: Metadata = { title: 'Create a bucket' };

export default function NewBucketPage() {
  const { kind, description } = getObjectStorageProvider();
  return <CreateBucketWizard currency={getConfig().BILLING_CURRENCY} tiers={TIER_PLANS} provider={{ kind, description }} />;
}

import type { Metadata } from 'next';
import { CreateRedisWizard } from '@/components/redis/CreateRedisWizard';
import { getConfig } from '@/server/platform/config';
import { getRedisProvider } from '@/server/providers/redis';

export const metadata: Metadata = { title: 'Create a Redis database' };

export default function NewRedisPage() {
  const { kind, description } = getRedisProvider();
  return <CreateRedisWizard currency={getConfig().BILLING_CURRENCY} provider={{ kind, description }} />;
}

import type { Metadata } from 'next';
import { AppDetail } from '@/components/apps/AppDetail';
import { getConfig } from '@/server/platform/config';

export const metadata: Metadata = { title: 'App' };

export default async function AppPage({ params }: { params: Promise<{ appId: string }> }) {
  const { appId } = await params;
  return <AppDetail appId={appId} currency={getConfig().BILLING_CURRENCY} />;
}

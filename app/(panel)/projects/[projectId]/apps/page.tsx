import type { Metadata } from 'next';
import { AppsPage } from '@/components/apps/AppsPage';
import { getConfig } from '@/server/platform/config';

export const metadata: Metadata = { title: 'Apps' };

export default function ProjectAppsPage() {
  return <AppsPage currency={getConfig().BILLING_CURRENCY} />;
}

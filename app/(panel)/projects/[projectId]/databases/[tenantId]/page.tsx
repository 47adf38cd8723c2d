import type { Metadata } from 'next';
import { DatabaseDetail } from '@/components/databases/DatabaseDetail';
import { getConfig } from '@/server/platform/config';

export const metadata: Metadata = { title: 'Database' };

export default async function DatabasePage({ params }: { params: Promise<{ tenantId: string }> }) {
  const { tenantId } = await params;
  // How long a deleted database is kept for recovery, which the delete confirmation states.
  return <DatabaseDetail tenantId={tenantId} retentionDays={getConfig().DATABASES_RETENTION_DAYS} />;
}

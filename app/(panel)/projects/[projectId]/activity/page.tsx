import type { Metadata } from 'next';
import { ActivityPage } from '@/components/audit/ActivityPage';
import { AUDITED_ACTIONS } from '@/server/app';
import { getConfig } from '@/server/platform/config';

export const metadata: Metadata = { title: 'Activity' };

export default function ProjectActivityPage() {
  return <ActivityPage actions={AUDITED_ACTIONS} retentionDays={getConfig().AUDIT_RETENTION_DAYS} />;
}

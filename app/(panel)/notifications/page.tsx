import type { Metadata } from 'next';
import { NotificationsPage } from '@/components/notifications/NotificationsPage';
import '@/server/app';
import { NOTIFICATION_RETENTION_DAYS } from '@/server/domains/notifications/service';
import { eventTypes } from '@/server/platform/events';

export const metadata: Metadata = { title: 'Notifications' };

export default function NotificationsRoute() {
  return <NotificationsPage eventTypes={eventTypes()} retentionDays={NOTIFICATION_RETENTION_DAYS} />;
}

import { defineDomain } from '../../platform/domain';
import { notificationJobs } from './jobs';
import { notificationsRouter } from './router';
import { notificationEventHandler } from './service';

/** The people's feed of what happened in their projects, written from the platform's events. */
export const notificationsDomain = defineDomain({
  name: 'notifications',
  routers: { notifications: notificationsRouter },
  jobs: notificationJobs,
  eventHandlers: [notificationEventHandler],
  scopes: ['notifications'],
});

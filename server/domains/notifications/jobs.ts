import type { JobDefinition } from '../../platform/jobs';
import { getLogger } from '../../platform/logger';
import { purgeExpiredNotifications } from './service';

export const PURGE_NOTIFICATIONS = 'notifications.purge-expired';

export const notificationJobs: JobDefinition[] = [
  {
    name: PURGE_NOTIFICATIONS,
    cron: '45 3 * * *',
    handler: async () => {
      const purged = await purgeExpiredNotifications();
      getLogger().info({ notifications: purged }, 'notifications past their retention purged');
    },
  },
];

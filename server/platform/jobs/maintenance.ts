import { getLogger } from '../logger';
import { purgeExpiredRateLimits } from '../rateLimit';
import type { JobDefinition } from './runner';

export const PURGE_RATE_LIMITS = 'platform.purge-rate-limits';

/** The platform's own periodic work; each domain lists its jobs in its manifest. */
export const platformJobs: JobDefinition[] = [
  {
    name: PURGE_RATE_LIMITS,
    cron: '*/10 * * * *',
    handler: async () => {
      const rateLimits = await purgeExpiredRateLimits();
      getLogger().info({ rateLimits }, 'rate-limit state of whole budgets purged');
    },
  },
];

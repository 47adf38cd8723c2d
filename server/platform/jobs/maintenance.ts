import { purgeExpiredIdempotencyKeys } from '../idempotency';
import { getLogger } from '../logger';
import { purgeExpiredRateLimits } from '../rateLimit';
import type { JobDefinition } from './runner';

export const PURGE_RATE_LIMITS = 'platform.purge-rate-limits';
export const PURGE_IDEMPOTENCY_KEYS = 'platform.purge-idempotency-keys';

/** The platform's own periodic work; each domain lists its jobs in its manifest. */
export const platformJobs: JobDefinition[] = [
  {
    name: PURGE_RATE_LIMITS,
    cron: '*/10 * * * *',
    handler: async () => {
      const rateLimits = await purgeExpiredRateLimits();
      getLogger().info({ rateLimits }, 'ended rate-limit windows purged');
    },
  },
  {
    name: PURGE_IDEMPOTENCY_KEYS,
    cron: '17 * * * *',
    handler: async () => {
      const idempotencyKeys = await purgeExpiredIdempotencyKeys();
      getLogger().info({ idempotencyKeys }, 'expired idempotency records purged');
    },
  },
];

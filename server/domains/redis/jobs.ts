import type { JobDefinition } from '../../platform/jobs/runner';
import { sampleUsage, settleProvisioningDatabases } from './service';

export const SETTLE_REDIS = 'redis.settle-provisioning';
export const SAMPLE_REDIS_USAGE = 'redis.sample-usage';

export const redisJobs: JobDefinition[] = [
  // Reads settle databases too; this catches the ones nobody looks at.
  { name: SETTLE_REDIS, cron: '* * * * *', handler: async () => void (await settleProvisioningDatabases()) },
  // One reading a minute is what the usage chart draws, and the freshness SPEC promises.
  { name: SAMPLE_REDIS_USAGE, cron: '* * * * *', handler: async () => void (await sampleUsage()) },
];

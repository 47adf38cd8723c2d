import type { JobDefinition } from '../../platform/jobs/runner';
import { enforceUsageLimits } from './buckets';

export const ENFORCE_BUCKET_USAGE = 'object-storage.enforce-usage';

export const objectStorageJobs: JobDefinition[] = [
  // SPEC lets usage lag a day; an hour keeps a bucket that overflows its tier from running on for long.
  { name: ENFORCE_BUCKET_USAGE, cron: '7 * * * *', handler: async () => void (await enforceUsageLimits()) },
];

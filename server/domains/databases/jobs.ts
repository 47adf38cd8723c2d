import type { JobDefinition } from '../../platform/jobs/runner';
import { purgeRetainedDatabases } from './retention';
import { enforceStorageLimits } from './storage';

export const ENFORCE_TENANT_STORAGE = 'databases.enforce-storage';
export const PURGE_RETAINED_DATABASES = 'databases.purge-retained';

export const databasesJobs: JobDefinition[] = [
  // Every ten minutes: a tenant filling its disk is stopped soon after it crosses the limit.
  { name: ENFORCE_TENANT_STORAGE, cron: '*/10 * * * *', handler: async () => void (await enforceStorageLimits()) },
  { name: PURGE_RETAINED_DATABASES, cron: '17 3 * * *', handler: async () => void (await purgeRetainedDatabases()) },
];

import type { JobDefinition } from '../../platform/jobs/runner';
import { applyRetentionEverywhere, collectGarbage, purgeDeletedRepositories } from './images';

export const APPLY_REGISTRY_RETENTION = 'container-registry.apply-retention';
export const COLLECT_REGISTRY_GARBAGE = 'container-registry.collect-garbage';
export const PURGE_DELETED_REPOSITORIES = 'container-registry.purge-deleted';

export const containerRegistryJobs: JobDefinition[] = [
  { name: APPLY_REGISTRY_RETENTION, cron: '23 * * * *', handler: async () => void (await applyRetentionEverywhere()) },
  // The registry refuses pushes while it collects, so once a day at a quiet hour.
  { name: COLLECT_REGISTRY_GARBAGE, cron: '40 3 * * *', handler: () => collectGarbage() },
  { name: PURGE_DELETED_REPOSITORIES, cron: '*/10 * * * *', handler: async () => void (await purgeDeletedRepositories()) },
];

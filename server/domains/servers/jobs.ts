import { reconcileProvisioningServers } from './service';
import type { JobDefinition } from '../../platform/jobs/runner';

export const RECONCILE_SERVERS = 'servers.reconcile';

export const serverJobs: JobDefinition[] = [
  // Reads settle servers too; this catches the ones nobody looks at, so their state is never stale for long.
  { name: RECONCILE_SERVERS, cron: '* * * * *', handler: async () => void (await reconcileProvisioningServers()) },
];

import { deleteOrphanedMachines, reconcileProvisioningServers } from './service';
import type { JobDefinition } from '../../platform/jobs/runner';

export const RECONCILE_SERVERS = 'servers.reconcile';
export const DELETE_ORPHANED_MACHINES = 'servers.delete-orphaned-machines';

/**
 * A creation commits its server within seconds of making the machine, and billing abandons a
 * purchase still pending after five minutes, after which it can no longer commit; a machine an
 * hour old without a server will never get one.
 */
export const ORPHANED_AFTER_MS = 60 * 60_000;

export const serverJobs: JobDefinition[] = [
  // Reads settle servers too; this catches the ones nobody looks at, so their state is never stale for long.
  { name: RECONCILE_SERVERS, cron: '* * * * *', handler: async () => void (await reconcileProvisioningServers()) },
  // Each pass walks every machine at the provider against its rate limit; next to an hour of grace, every ten minutes is soon enough.
  { name: DELETE_ORPHANED_MACHINES, cron: '*/10 * * * *', handler: async () => void (await deleteOrphanedMachines({ olderThanMs: ORPHANED_AFTER_MS })) },
];

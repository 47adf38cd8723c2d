import type { JobDefinition } from '../../platform/jobs/runner';
import { checkPendingDomains } from './service';

export const CHECK_PENDING_DOMAINS = 'domains.check-pending';

export const domainJobs: JobDefinition[] = [
  // Each domain carries its own next check time (backing off); the job only picks up those due.
  { name: CHECK_PENDING_DOMAINS, cron: '* * * * *', handler: async () => void (await checkPendingDomains()) },
];

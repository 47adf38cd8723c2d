import { runDunning } from './dunning';
import { closeMonthForAllProjects } from './monthlyClose';
import { reconcileAbandonedPurchases } from './purchases';
import type { JobDefinition } from '../platform/jobs/runner';

export const MONTHLY_CLOSE = 'billing.monthly-close';
export const RECONCILE_PURCHASES = 'billing.reconcile-purchases';
export const DUNNING = 'billing.dunning';

/** A purchase still pending after this long belongs to a process that died mid-way. */
const ABANDONED_AFTER_MS = 5 * 60_000;

export const billingJobs: JobDefinition[] = [
  // Early on the 1st (UTC): idempotent per project and month, so a rerun or a second worker bills once.
  { name: MONTHLY_CLOSE, cron: '5 0 1 * *', handler: async () => void (await closeMonthForAllProjects()) },
  { name: RECONCILE_PURCHASES, cron: '* * * * *', handler: async () => void (await reconcileAbandonedPurchases({ olderThanMs: ABANDONED_AFTER_MS })) },
  // Retries are days apart; a quarter of an hour is also how long a provider outage can delay stopping or restarting resources.
  { name: DUNNING, cron: '*/15 * * * *', handler: async () => void (await runDunning()) },
];

const DAY_MS = 24 * 60 * 60_000;

/**
 * Dunning, the collection of a failed invoice: it is charged again automatically on each retry day
 * counted from its first failure, and once the grace period since that failure has passed with the
 * invoice still unpaid, the project is suspended.
 */
export interface DunningPolicy {
  /** Days after the first failure on which the invoice is charged again, ascending. */
  retryDays: readonly number[];
  /** Days after the first failure when the project is suspended if the invoice is still unpaid. */
  graceDays: number;
}

/** The next automatic attempt: the first retry day still ahead of `now`, or null when none is left. */
export function nextDunningAttempt(firstFailedAt: Date, now: Date, policy: DunningPolicy): Date | null {
  for (const days of policy.retryDays) {
    const at = new Date(firstFailedAt.getTime() + days * DAY_MS);
    if (at.getTime() > now.getTime()) return at;
  }
  return null;
}

/** Invoices that first failed at or before this instant have used up their grace period. */
export function graceExpiredBefore(now: Date, policy: DunningPolicy): Date {
  return new Date(now.getTime() - policy.graceDays * DAY_MS);
}

/** When a project whose oldest unpaid invoice first failed at `firstFailedAt` is suspended. */
export function suspensionDueAt(firstFailedAt: Date, policy: DunningPolicy): Date {
  return new Date(firstFailedAt.getTime() + policy.graceDays * DAY_MS);
}

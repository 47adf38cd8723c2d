/** The billing month is the calendar month in UTC. */
export interface BillingPeriod {
  start: Date;
  end: Date;
}

export function billingPeriodOf(at: Date): BillingPeriod {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

/** `YYYY-MM` of the UTC month containing `at`. */
export function monthKeyOf(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function nextBillingDate(at: Date): Date {
  return billingPeriodOf(at).end;
}

/**
 * The share of a monthly price owed for the rest of the month: round(monthly × remaining / month),
 * computed on whole milliseconds with integer arithmetic so no amount depends on float rounding.
 * Half a minor unit rounds up.
 */
export function prorate(monthly: number, at: Date): number {
  if (!Number.isInteger(monthly) || monthly < 0) throw new RangeError('monthly must be a non-negative integer of minor units');
  const { start, end } = billingPeriodOf(at);
  const total = BigInt(end.getTime() - start.getTime());
  const remaining = BigInt(end.getTime() - at.getTime());
  const numerator = BigInt(monthly) * remaining * 2n + total;
  return Number(numerator / (total * 2n));
}

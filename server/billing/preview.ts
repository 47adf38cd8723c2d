import { nextBillingDate, prorate } from './period';
import type { Preview, TierChangePreview } from './previewSchema';

export interface ChargeContext {
  now: Date;
  currency: string;
  /** Tax rate in basis points for the project's tax location; null when the location is unknown. */
  taxRateBps: number | null;
  /** Credit on the project's balance, in minor units, consumed before the card is charged. */
  creditBalance: number;
}

export type { Preview, TierChangePreview } from './previewSchema';

/**
 * What creating a resource billed `monthly` charges today and each month after. Every domain's
 * preview endpoint and its create call use this one function, so the charge equals the preview.
 */
export function previewCreation(monthly: number, ctx: ChargeContext): Preview {
  return settle(prorate(monthly, ctx.now), monthly, ctx);
}

/**
 * Moving from `currentMonthly` to `monthly`: an upgrade is invoiced now for the prorated
 * difference; a downgrade charges nothing and credits the prorated difference back.
 */
export function previewTierChange(currentMonthly: number, monthly: number, ctx: ChargeContext): TierChangePreview {
  if (monthly >= currentMonthly) {
    return { ...settle(prorate(monthly - currentMonthly, ctx.now), monthly, ctx), direction: 'upgrade', creditBack: 0, currentMonthly };
  }
  return {
    subtotal: 0,
    tax: ctx.taxRateBps === null ? null : 0,
    creditApplied: 0,
    dueToday: 0,
    monthly,
    currency: ctx.currency,
    nextBillingDate: nextBillingDate(ctx.now).toISOString(),
    direction: 'downgrade',
    creditBack: prorate(currentMonthly - monthly, ctx.now),
    currentMonthly,
  };
}

export function taxOn(amount: number, taxRateBps: number | null): number | null {
  if (taxRateBps === null) return null;
  return Math.round((amount * taxRateBps) / 10_000);
}

function settle(subtotal: number, monthly: number, ctx: ChargeContext): Preview {
  const tax = taxOn(subtotal, ctx.taxRateBps);
  const total = subtotal + (tax ?? 0);
  const creditApplied = Math.min(Math.max(ctx.creditBalance, 0), total);
  return {
    subtotal,
    tax,
    creditApplied,
    dueToday: total - creditApplied,
    monthly,
    currency: ctx.currency,
    nextBillingDate: nextBillingDate(ctx.now).toISOString(),
  };
}

import type { Schema } from '@cloudpanel/sdk';
import { money, when, type Column } from './output.ts';

type ChargePreview = Schema<'ChargePreview'>;
type TierChangePreview = Schema<'TierChangePreview'>;

/** What buying something charges, as every `preview` command shows it. */
export const CHARGE_FIELDS: Column<ChargePreview>[] = [
  { header: 'Due today', value: (p) => money(p.dueToday, p.currency) },
  { header: 'Tax', value: (p) => (p.tax === null ? 'unknown (no tax location)' : money(p.tax, p.currency)) },
  { header: 'Credit applied', value: (p) => money(p.creditApplied, p.currency) },
  { header: 'Then monthly', value: (p) => money(p.monthly, p.currency) },
  { header: 'Next bill', value: (p) => when(p.nextBillingDate) },
];

/** What moving to another tier charges or credits; `change` names the move (`STARTER → GROWTH`). */
export const tierChangeFields = (change: string): Column<TierChangePreview>[] => [
  { header: 'Change', value: (p) => `${p.direction} ${change}` },
  ...CHARGE_FIELDS.slice(0, 3),
  { header: 'Credit back', value: (p) => money(p.creditBack, p.currency) },
  { header: 'Monthly now', value: (p) => money(p.currentMonthly, p.currency) },
  ...CHARGE_FIELDS.slice(3),
];

/** The note after a purchase, from the preview taken before it. */
export const chargeNote = (p: Pick<ChargePreview, 'dueToday' | 'monthly' | 'currency'>, more = '') =>
  `Charged ${money(p.dueToday, p.currency)} today, then ${money(p.monthly, p.currency)} a month${more}`;

/** The note after a tier change: an upgrade is charged, a downgrade credited to the project's balance. */
export const tierChangeNote = (p: TierChangePreview) =>
  p.direction === 'upgrade'
    ? chargeNote(p)
    : `Credited ${money(p.creditBack, p.currency)} to the project's balance; ${money(p.monthly, p.currency)} a month from now on`;

import type { SavedCard } from './types';

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

/** Billing months are UTC calendar months; formatted in UTC so no time zone shifts them to the month before. */
const periodFormat = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });

export function brandLabel(brand: string): string {
  return BRANDS[brand] ?? 'Card';
}

/** "Visa •••• 4242", the way the card is named everywhere on the page, in buttons' labels too. */
export function cardLabel(card: Pick<SavedCard, 'brand' | 'last4'>): string {
  return `${brandLabel(card.brand)} •••• ${card.last4}`;
}

export function cardExpiry(card: Pick<SavedCard, 'expMonth' | 'expYear'>): string {
  return `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;
}

/** A card stays valid through the last day of its expiry month. */
export function isCardExpired(card: Pick<SavedCard, 'expMonth' | 'expYear'>, now = new Date()): boolean {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return card.expYear < year || (card.expYear === year && card.expMonth < month);
}

/** "2026-11" → "November 2026". */
export function periodLabel(period: string): string {
  return periodFormat.format(new Date(`${period}-01T00:00:00Z`));
}

import { describe, expect, it } from 'vitest';
import { previewCreation, previewTierChange } from './preview';

const base = { now: new Date('2026-04-16T00:00:00Z'), currency: 'usd', taxRateBps: null, creditBalance: 0 };

describe('previewCreation', () => {
  it('prorates, leaves tax null when the location is unknown and charges the rest today', () => {
    expect(previewCreation(2400, base)).toEqual({
      subtotal: 1200,
      tax: null,
      creditApplied: 0,
      dueToday: 1200,
      monthly: 2400,
      currency: 'usd',
      nextBillingDate: '2026-05-01T00:00:00.000Z',
    });
  });

  it('adds tax at the configured rate and consumes credit before the card', () => {
    const preview = previewCreation(2400, { ...base, taxRateBps: 1900, creditBalance: 500 });
    expect(preview).toMatchObject({ subtotal: 1200, tax: 228, creditApplied: 500, dueToday: 928 });
  });

  it('never applies more credit than is due', () => {
    expect(previewCreation(2400, { ...base, creditBalance: 99_999 })).toMatchObject({ creditApplied: 1200, dueToday: 0 });
  });
});

describe('previewTierChange', () => {
  it('invoices the prorated difference of an upgrade', () => {
    expect(previewTierChange(500, 2000, base)).toMatchObject({
      direction: 'upgrade',
      subtotal: 750,
      dueToday: 750,
      creditBack: 0,
      currentMonthly: 500,
      monthly: 2000,
    });
  });

  it('charges nothing on a downgrade and credits the prorated difference back', () => {
    expect(previewTierChange(2000, 500, { ...base, taxRateBps: 1900 })).toMatchObject({
      direction: 'downgrade',
      subtotal: 0,
      tax: 0,
      creditApplied: 0,
      dueToday: 0,
      creditBack: 750,
    });
  });
});

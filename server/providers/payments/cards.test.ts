import { describe, expect, it } from 'vitest';
import { cardBehaviour, cardBrand, isExpired, normaliseCardNumber, passesLuhn } from './cards';

describe('card checks of the embedded ledger', () => {
  it('accepts the test cards and rejects numbers failing Luhn', () => {
    for (const n of ['4242 4242 4242 4242', '4000 0000 0000 0002', '4000 0000 0000 9995', '4000 0000 0000 0341', '5555 5555 5555 4444']) {
      expect(passesLuhn(normaliseCardNumber(n)), n).toBe(true);
    }
    expect(passesLuhn('4242424242424241')).toBe(false);
    expect(passesLuhn('42424242')).toBe(false);
    expect(passesLuhn('4242x24242424242')).toBe(false);
  });

  it('maps test numbers to their behaviour and brand', () => {
    expect(cardBehaviour('4242424242424242')).toBe('succeed');
    expect(cardBehaviour('4000000000000002')).toBe('decline');
    expect(cardBehaviour('4000000000009995')).toBe('insufficient_funds');
    expect(cardBehaviour('4000000000000341')).toBe('attach_then_decline');
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
  });

  it('treats a card as valid through the last day of its expiry month', () => {
    const now = new Date('2026-11-21T00:00:00Z');
    expect(isExpired(11, 2026, now)).toBe(false);
    expect(isExpired(10, 2026, now)).toBe(true);
    expect(isExpired(1, 2027, now)).toBe(false);
  });
});

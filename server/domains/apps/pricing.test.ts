import { describe, expect, it } from 'vitest';
import { appMonthlyPrice } from './pricing';

const sizes = [
  { slug: 'apps-s-1vcpu-0.5gb', priceMonthly: 500 },
  { slug: 'apps-s-1vcpu-1gb', priceMonthly: 1200 },
  { slug: 'apps-d-2vcpu-8gb', priceMonthly: 15_600 },
];

describe('appMonthlyPrice', () => {
  it('bills one instance of one service at its size price', () => {
    expect(appMonthlyPrice([{ instanceSize: 'apps-s-1vcpu-1gb', instances: 1 }], sizes)).toBe(1200);
  });

  it('bills every instance of every service', () => {
    const services = [
      { instanceSize: 'apps-s-1vcpu-1gb', instances: 3 },
      { instanceSize: 'apps-s-1vcpu-0.5gb', instances: 2 },
      { instanceSize: 'apps-d-2vcpu-8gb', instances: 1 },
    ];
    expect(appMonthlyPrice(services, sizes)).toBe(3 * 1200 + 2 * 500 + 15_600);
  });

  it('costs nothing without services', () => {
    expect(appMonthlyPrice([], sizes)).toBe(0);
  });

  it('refuses a size the catalogue does not hold rather than pricing it at 0', () => {
    expect(() => appMonthlyPrice([{ instanceSize: 'apps-huge', instances: 1 }], sizes)).toThrow(/apps-huge/);
  });
});

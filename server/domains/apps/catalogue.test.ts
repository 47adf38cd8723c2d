import { describe, expect, it } from 'vitest';
import { catalogueProblems, type AppCatalogue } from './catalogue';

const catalogue: AppCatalogue = {
  sizes: [
    { slug: 'apps-s-1vcpu-1gb', name: 'Shared 1 vCPU, 1 GB', cpus: 1, memoryMb: 1024, priceMonthly: 1200, priceHourly: 1.786 },
    { slug: 'apps-d-2vcpu-8gb', name: 'Dedicated 2 vCPUs, 8 GB', cpus: 2, memoryMb: 8192, priceMonthly: 15_600, priceHourly: 23.214 },
  ],
  regions: [
    { slug: 'nyc', name: 'New York', country: 'US', available: true },
    { slug: 'blr', name: 'Bangalore', country: 'IN', available: false },
  ],
};

describe('catalogueProblems', () => {
  it('finds nothing wrong with sizes and a region on sale', () => {
    expect(catalogueProblems([{ instanceSize: 'apps-s-1vcpu-1gb' }, { instanceSize: 'apps-d-2vcpu-8gb' }], 'nyc', catalogue)).toEqual([]);
  });

  it('names an unknown region with the ones to choose from', () => {
    const [problem] = catalogueProblems([{ instanceSize: 'apps-s-1vcpu-1gb' }], 'mars', catalogue);
    expect(problem).toEqual({ at: ['region'], message: expect.stringContaining('mars is not an app region') });
    expect(problem!.message).toContain('nyc, blr');
  });

  it('refuses a region that takes no new apps', () => {
    expect(catalogueProblems([{ instanceSize: 'apps-s-1vcpu-1gb' }], 'blr', catalogue)).toEqual([
      { at: ['region'], message: expect.stringContaining('takes no new apps') },
    ]);
  });

  it('names each service whose size is not sold, by its index', () => {
    const problems = catalogueProblems([{ instanceSize: 'apps-s-1vcpu-1gb' }, { instanceSize: 'apps-huge' }], 'nyc', catalogue);
    expect(problems).toEqual([{ at: [1, 'instanceSize'], message: expect.stringContaining('apps-huge is not an app size') }]);
  });
});

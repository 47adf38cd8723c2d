import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../../test/db';
import { AppError } from '../../platform/errors';
import { clearCatalogCache } from '../catalog';
import { knownPlan, listRedisPlans, listRedisRegions, monthlyPrice, sellablePlan } from './catalogue';
import type { CreateRedisInput } from './schema';

type Choice = Pick<CreateRedisInput, 'planSlug' | 'region' | 'replication' | 'dataPersistence'>;
const choice = (overrides: Partial<Choice> = {}): Choice => ({
  planSlug: 'redis-1gb',
  region: 'fra1',
  replication: false,
  dataPersistence: 'NONE',
  ...overrides,
});

/** The refusal's field and message, so a test names exactly which rule fired. */
async function refusal(input: Choice): Promise<{ field: string; message: string }> {
  try {
    await sellablePlan(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const app = err as AppError;
    expect(app.code).toBe('VALIDATION_ERROR');
    const [field] = Object.keys(app.fields ?? {});
    return { field: field!, message: app.message };
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

afterEach(async () => {
  await queryRows(sql`update redis_plans set available = true`);
  await queryRows(sql`update redis_regions set available = true`);
  await queryRows(sql`delete from redis_plans where slug = 'redis-test-lfu'`);
  clearCatalogCache();
});

describe('Redis prices', () => {
  it('turns whole currency units into cents and bills replication as a second unit', () => {
    expect(monthlyPrice({ priceMonthly: 15 }, false)).toBe(1500);
    expect(monthlyPrice({ priceMonthly: 15 }, true)).toBe(3000);
    expect(monthlyPrice({ priceMonthly: 0.5 }, false)).toBe(50);
    expect(monthlyPrice({ priceMonthly: 120 }, true)).toBe(24_000);
  });
});

describe('Redis catalogue lists', () => {
  it('lists the plans cheapest first with the regions each is sold in, in region order', async () => {
    const plans = await listRedisPlans();
    expect(plans.map((p) => p.slug)).toEqual(['redis-256mb', 'redis-1gb', 'redis-2gb', 'redis-4gb', 'redis-8gb']);
    expect(plans[0]).toEqual({
      slug: 'redis-256mb',
      name: 'Hobby 256 MB',
      provider: 'PLATFORM',
      engine: 'VALKEY',
      planType: 'RAM',
      memoryMb: 256,
      throughputOps: null,
      cpuMilli: 250,
      supportsReplication: false,
      supportsPersistence: false,
      priceMonthly: 5,
      regions: ['fra1', 'nyc1', 'sgp1'],
    });
    expect(plans.find((p) => p.slug === 'redis-8gb')!.regions).toEqual(['fra1', 'nyc1']);
  });

  it('leaves out a plan no longer sold, from the plans and from every region', async () => {
    await queryRows(sql`update redis_plans set available = false where slug = 'redis-8gb'`);
    clearCatalogCache();
    expect((await listRedisPlans()).map((p) => p.slug)).not.toContain('redis-8gb');
    const regions = await listRedisRegions();
    for (const region of regions) expect(region.plans).not.toContain('redis-8gb');
    // Without the one plan sgp1 lacked, every RAM plan is sold there: the family is fully purchasable.
    expect(regions.find((r) => r.slug === 'sgp1')!.planTypes).toEqual(['RAM']);
  });

  it('names a family in planTypes only where every plan of it is sold, and a closed region sells nothing', async () => {
    await queryRows(sql`update redis_regions set available = false where slug = 'nyc1'`);
    await queryRows(sql`insert into redis_plans (slug, name, provider, engine, plan_type, memory_mb, cpu_milli, supports_replication, supports_persistence, price_monthly, sort_order)
      values ('redis-test-lfu', 'Flash 1 GB', 'PLATFORM', 'VALKEY', 'FLASH', 1024, 500, false, false, 9, 9)`);
    await queryRows(sql`insert into redis_plan_regions (plan_slug, region_slug) values ('redis-test-lfu', 'fra1')`);
    clearCatalogCache();
    const regions = await listRedisRegions();
    expect(regions.map((r) => r.slug)).toEqual(['fra1', 'nyc1', 'sgp1']);
    expect(regions[0]).toMatchObject({ available: true, providers: ['PLATFORM'], planTypes: ['RAM', 'FLASH'] });
    expect(regions[1]).toEqual({ slug: 'nyc1', name: 'New York', country: 'US', available: false, providers: [], planTypes: [], plans: [] });
    expect(regions[2]).toMatchObject({ planTypes: [], plans: ['redis-256mb', 'redis-1gb', 'redis-2gb', 'redis-4gb'] });
  });
});

describe('what a creation may buy', () => {
  it('answers the plan for a choice that fits', async () => {
    expect((await sellablePlan(choice())).slug).toBe('redis-1gb');
    expect((await sellablePlan(choice({ replication: true, dataPersistence: 'AOF_EVERY_WRITE' }))).slug).toBe('redis-1gb');
    expect((await sellablePlan(choice({ planSlug: 'redis-256mb', region: 'sgp1' }))).slug).toBe('redis-256mb');
  });

  it('refuses an unknown plan or region, naming the catalogue to read', async () => {
    expect(await refusal(choice({ planSlug: 'redis-64tb' }))).toEqual({
      field: 'planSlug',
      message: 'planSlug: unknown plan "redis-64tb"; see GET /v1/redis/plans',
    });
    expect(await refusal(choice({ region: 'mars1' }))).toEqual({ field: 'region', message: 'region: unknown region "mars1"; see GET /v1/redis/regions' });
  });

  it('refuses a plan where it is not sold, saying where it is', async () => {
    expect(await refusal(choice({ planSlug: 'redis-8gb', region: 'sgp1' }))).toEqual({
      field: 'region',
      message: 'region: plan redis-8gb is not sold in sgp1; it is sold in fra1, nyc1',
    });
  });

  it('refuses a plan sold nowhere, and a closed region', async () => {
    await queryRows(sql`update redis_regions set available = false where slug in ('fra1', 'nyc1')`);
    clearCatalogCache();
    expect(await refusal(choice({ planSlug: 'redis-8gb', region: 'sgp1' }))).toEqual({
      field: 'region',
      message: 'region: plan redis-8gb is not sold in sgp1; it is sold in no region at the moment',
    });
    expect(await refusal(choice({ region: 'fra1' }))).toEqual({
      field: 'region',
      message: 'region: Frankfurt (fra1) is not taking new databases at the moment',
    });
  });

  it('refuses replication and persistence on a plan without them, and nothing else', async () => {
    const hobby = { planSlug: 'redis-256mb' };
    expect(await refusal(choice({ ...hobby, replication: true }))).toEqual({
      field: 'replication',
      message: 'replication: plan redis-256mb does not support replication; choose a plan that does',
    });
    for (const persistence of [
      'AOF_EVERY_WRITE',
      'AOF_EVERY_1_SECOND',
      'SNAPSHOT_EVERY_1_HOUR',
      'SNAPSHOT_EVERY_6_HOURS',
      'SNAPSHOT_EVERY_12_HOURS',
    ] as const) {
      expect(await refusal(choice({ ...hobby, dataPersistence: persistence }))).toEqual({
        field: 'dataPersistence',
        message: 'dataPersistence: plan redis-256mb does not support persistence; use NONE or choose a plan that does',
      });
    }
    expect((await sellablePlan(choice({ ...hobby, replication: false, dataPersistence: 'NONE' }))).slug).toBe('redis-256mb');
  });

  it('finds a plan for a preview wherever it is sold, and refuses an unknown one', async () => {
    expect((await knownPlan('redis-8gb')).memoryMb).toBe(8192);
    await expect(knownPlan('redis-64tb')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      fields: { planSlug: 'unknown plan "redis-64tb"; see GET /v1/redis/plans' },
    });
  });
});

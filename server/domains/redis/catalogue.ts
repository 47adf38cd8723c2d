import { asc } from 'drizzle-orm';
import { getDb } from '../../../db';
import { redisPlanRegions, redisPlans, redisRegions } from '../../../db/schema';
import { invalidField } from '../../platform/errors';
import { cachedCatalogue } from '../catalog';
import type { CreateRedisInput, RedisPlan, RedisRegion } from './schema';

/** Plans as they are sold: every SPEC field plus the regions each is sold in, cheapest first. */
export function listRedisPlans(): Promise<RedisPlan[]> {
  return cachedCatalogue('redis-plans', async () => {
    const { plans, soldIn } = await loadCatalogue();
    return plans
      .filter((p) => p.available)
      .map((p) => ({
        slug: p.slug,
        name: p.name,
        provider: p.provider,
        engine: p.engine,
        planType: p.planType,
        memoryMb: p.memoryMb,
        throughputOps: p.throughputOps,
        cpuMilli: p.cpuMilli,
        supportsReplication: p.supportsReplication,
        supportsPersistence: p.supportsPersistence,
        priceMonthly: p.priceMonthly,
        regions: soldIn.get(p.slug) ?? [],
      }));
  });
}

/**
 * Regions with what sells there. `planTypes` names a family only when every plan of it is sold in
 * the region ("fully purchasable"); `plans` lists the ones that are, for a region where a family is
 * sold in part.
 */
export function listRedisRegions(): Promise<RedisRegion[]> {
  return cachedCatalogue('redis-regions', async () => {
    const [{ regions }, plans] = await Promise.all([loadCatalogue(), listRedisPlans()]);
    const families = [...new Set(plans.map((p) => p.planType))];
    return regions.map((r) => {
      const sold = plans.filter((p) => p.regions.includes(r.slug));
      return {
        slug: r.slug,
        name: r.name,
        country: r.country,
        available: r.available,
        providers: [...new Set(sold.map((p) => p.provider))],
        planTypes: families.filter((family) => {
          const ofFamily = plans.filter((p) => p.planType === family);
          return ofFamily.length > 0 && ofFamily.every((p) => sold.includes(p));
        }),
        plans: sold.map((p) => p.slug),
      };
    });
  });
}

/**
 * The plan a creation buys, or the 422 that says why not: an unknown plan or region, a plan not
 * sold in the region (never moved to another), or an option the plan does not have.
 */
export async function sellablePlan(input: Pick<CreateRedisInput, 'planSlug' | 'region' | 'replication' | 'dataPersistence'>): Promise<RedisPlan> {
  const [plans, regions] = await Promise.all([listRedisPlans(), listRedisRegions()]);
  const plan = plans.find((p) => p.slug === input.planSlug);
  if (!plan) throw invalidField('planSlug', `unknown plan "${input.planSlug}"; see GET /v1/redis/plans`);
  const region = regions.find((r) => r.slug === input.region);
  if (!region) throw invalidField('region', `unknown region "${input.region}"; see GET /v1/redis/regions`);
  if (!region.available) throw invalidField('region', `${region.name} (${region.slug}) is not taking new databases at the moment`);
  if (!plan.regions.includes(region.slug)) {
    throw invalidField('region', `plan ${plan.slug} is not sold in ${region.slug}; it is sold in ${plan.regions.join(', ') || 'no region at the moment'}`);
  }
  if (input.replication && !plan.supportsReplication) {
    throw invalidField('replication', `plan ${plan.slug} does not support replication; choose a plan that does`);
  }
  if (input.dataPersistence !== 'NONE' && !plan.supportsPersistence) {
    throw invalidField('dataPersistence', `plan ${plan.slug} does not support persistence; use NONE or choose a plan that does`);
  }
  return plan;
}

/** A plan for a preview: it needs to exist, wherever it is sold. */
export async function knownPlan(planSlug: string): Promise<RedisPlan> {
  const plan = (await listRedisPlans()).find((p) => p.slug === planSlug);
  if (!plan) throw invalidField('planSlug', `unknown plan "${planSlug}"; see GET /v1/redis/plans`);
  return plan;
}

/** The monthly price in minor units: the plan's whole-unit price, twice with replication. */
export function monthlyPrice(plan: Pick<RedisPlan, 'priceMonthly'>, replication: boolean): number {
  return Math.round(plan.priceMonthly * 100) * (replication ? 2 : 1);
}

async function loadCatalogue() {
  const db = await getDb();
  const [plans, regions, pairs] = await Promise.all([
    db.select().from(redisPlans).orderBy(asc(redisPlans.sortOrder), asc(redisPlans.slug)),
    db.select().from(redisRegions).orderBy(asc(redisRegions.sortOrder), asc(redisRegions.slug)),
    db.select().from(redisPlanRegions),
  ]);
  // A closed region sells nothing, so it is not among the regions a plan is sold in.
  const order = new Map(regions.filter((r) => r.available).map((r, i) => [r.slug, i]));
  const soldIn = new Map<string, string[]>();
  const open = pairs.filter((pair) => order.has(pair.regionSlug));
  for (const pair of open.sort((a, b) => order.get(a.regionSlug)! - order.get(b.regionSlug)!)) {
    const list = soldIn.get(pair.planSlug) ?? [];
    list.push(pair.regionSlug);
    soldIn.set(pair.planSlug, list);
  }
  return { plans, regions, soldIn };
}

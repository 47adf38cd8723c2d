'use client';

import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { RedisDataPersistence } from '@/server/domains/redis/schema';
import type { AppRouter } from '@/server/app';
import type { RedisProvider } from '@/server/providers/redis/types';
import { useTRPC } from '../trpc/TrpcProvider';
import { formatMinorUnits } from '../ui/money';

type Outputs = inferRouterOutputs<AppRouter>;
export type RedisDatabase = Outputs['redis']['list'][number];
export type RedisDatabaseWithCredentials = Outputs['redis']['get'];
export type RedisPlan = Outputs['redis']['plans'][number];
export type RedisRegion = Outputs['redis']['regions'][number];
export type RedisUsage = Outputs['redis']['usage'];

/** What page.tsx reads from the provider on the server: the pages cannot ask the API which one runs. */
export interface RedisProviderInfo {
  kind: RedisProvider['kind'];
  description: string;
}

/** Reads are what settle a PROVISIONING database, and an embedded one is ready within seconds. */
export const PROVISIONING_POLL_MS = 2000;

/** The API takes a fresh reading once the last is a minute old; reading more often shows nothing new. */
export const USAGE_REFRESH_MS = 60_000;

/** The catalogue changes rarely and the API caches it for minutes; so does the page. */
const CATALOG_STALE_MS = 5 * 60_000;

export const PERSISTENCE_LABELS: Record<RedisDataPersistence, string> = {
  NONE: 'No persistence',
  AOF_EVERY_WRITE: 'Log every write',
  AOF_EVERY_1_SECOND: 'Log every second',
  SNAPSHOT_EVERY_1_HOUR: 'Snapshot every hour',
  SNAPSHOT_EVERY_6_HOURS: 'Snapshot every 6 hours',
  SNAPSHOT_EVERY_12_HOURS: 'Snapshot every 12 hours',
};

export function useRedisCatalog() {
  const trpc = useTRPC();
  const plans = useQuery(trpc.redis.plans.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  const regions = useQuery(trpc.redis.regions.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  return { plans, regions };
}

export function formatCpu(cpuMilli: number): string {
  return `${cpuMilli / 1000} vCPU`;
}

/**
 * Plans are priced in whole currency units; the API charges them as cents (server/domains/redis/catalogue.ts
 * monthlyPrice), and so the panel prints them, a replica billing a second unit.
 */
export function formatPlanPrice(plan: Pick<RedisPlan, 'priceMonthly'>, replication: boolean, currency: string): string {
  return formatMinorUnits(Math.round(plan.priceMonthly * 100) * (replication ? 2 : 1), currency);
}

/** Falls back to the slug: a database can outlive its region in the catalogue. */
export function regionName(slug: string, regions: readonly RedisRegion[] | undefined): string {
  return regions?.find((r) => r.slug === slug)?.name ?? slug;
}

export function planName(slug: string, plans: readonly RedisPlan[] | undefined): string {
  return plans?.find((p) => p.slug === slug)?.name ?? slug;
}

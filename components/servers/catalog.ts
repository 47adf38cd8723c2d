'use client';

import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import { formatMemory } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';

type Outputs = inferRouterOutputs<AppRouter>;
export type Server = Outputs['servers']['list'][number];
export type ServerWithKeys = Outputs['servers']['get'];
export type ServerSize = Outputs['catalog']['serverSizes'][number];
export type ServerRegion = Outputs['catalog']['serverRegions'][number];
export type OneClick = Outputs['catalog']['oneClicks'][number];

/** The one-click image every server is built from; the server type it sets up is LAMP. */
export const LAMP_IMAGE_SLUG = 'lamp';

/** How often a page re-reads servers while one of them is PROVISIONING; reads are what settle them. */
export const PROVISIONING_POLL_MS = 3000;

/** The server catalogue changes rarely and the API caches it for minutes; so does the page. */
const CATALOG_STALE_MS = 5 * 60_000;

export function useServerCatalog() {
  const trpc = useTRPC();
  const regions = useQuery(trpc.catalog.serverRegions.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  const sizes = useQuery(trpc.catalog.serverSizes.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  const oneClicks = useQuery(trpc.catalog.oneClicks.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  return { regions, sizes, oneClicks };
}

export function formatTransfer(transferTb: number): string {
  return transferTb < 1 ? `${transferTb * 1000} GB` : `${transferTb} TB`;
}

/** Falls back to the slug: a server can outlive its size in the catalogue. */
export function sizeSummary(slug: string, sizes: readonly ServerSize[] | undefined): string {
  const size = sizes?.find((s) => s.slug === slug);
  if (!size) return slug;
  return `${size.vcpus} vCPU${size.vcpus === 1 ? '' : 's'} · ${formatMemory(size.memoryMb)} · ${size.diskGb} GB disk`;
}

export function regionName(slug: string, regions: readonly ServerRegion[] | undefined): string {
  return regions?.find((r) => r.slug === slug)?.name ?? slug;
}

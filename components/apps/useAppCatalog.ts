'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc/TrpcProvider';

/** The app catalogue changes rarely and the API caches it for minutes; so does the panel. */
const CATALOG_STALE_MS = 5 * 60_000;

/** The app sizes and regions on sale. */
export function useAppCatalog() {
  const trpc = useTRPC();
  const sizes = useQuery(trpc.catalog.appSizes.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  const regions = useQuery(trpc.catalog.appRegions.queryOptions({}, { staleTime: CATALOG_STALE_MS }));
  return { sizes, regions };
}

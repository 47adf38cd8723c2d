import { getConfig } from '../../platform/config';
import { getInfraProvider, type InfraImage, type InfraRegion, type InfraSize } from '../../providers/infra';
import type { AppRegion, AppSize, OneClick, ServerRegion, ServerSize } from './schema';

/** How long the catalogue is kept in memory, and what Cache-Control promises clients. */
export const CATALOG_TTL_SECONDS = 300;
export const CATALOG_CACHE_CONTROL = `public, max-age=${CATALOG_TTL_SECONDS}`;

/** What server creation checks a purchase against: the provider's own lists, unshaped. */
export interface ServerCatalog {
  sizes: InfraSize[];
  regions: InfraRegion[];
  images: InfraImage[];
}

export async function serverCatalog(): Promise<ServerCatalog> {
  return cached('server-catalog', async () => {
    const provider = getInfraProvider();
    const [sizes, regions, images] = await Promise.all([provider.listSizes(), provider.listRegions(), provider.listImages()]);
    return { sizes, regions, images };
  });
}

/** Server sizes, cheapest first. */
export async function listServerSizes(): Promise<ServerSize[]> {
  return cached('server-sizes', async () => {
    const { sizes } = await serverCatalog();
    const currency = getConfig().BILLING_CURRENCY;
    return [...sizes]
      .sort((a, b) => a.priceMonthly - b.priceMonthly || a.slug.localeCompare(b.slug))
      .map((s) => ({
        slug: s.slug,
        description: s.description,
        vcpus: s.vcpus,
        memoryMb: s.memoryMb,
        diskGb: s.diskGb,
        transferTb: s.transferTb,
        priceMonthly: s.priceMonthly,
        priceHourly: s.priceHourly,
        currency,
        regions: [...s.regions],
        available: s.available,
      }));
  });
}

export async function listServerRegions(): Promise<ServerRegion[]> {
  return cached('server-regions', async () => {
    const { sizes, regions } = await serverCatalog();
    return regions.map((r) => ({
      slug: r.slug,
      name: r.name,
      country: r.country,
      available: r.available,
      sizes: sizes.filter((s) => s.available && s.regions.includes(r.slug)).map((s) => s.slug),
    }));
  });
}

export async function listOneClickApplications(): Promise<OneClick[]> {
  return cached('one-clicks', async () => {
    const { images } = await serverCatalog();
    return images
      .filter((i) => i.type === 'application')
      .map((i) => ({ slug: i.slug, name: i.name, description: i.description, distribution: i.distribution, minDiskGb: i.minDiskGb, regions: [...i.regions] }));
  });
}

export async function listAppSizes(): Promise<AppSize[]> {
  return cached('app-sizes', async () => {
    const sizes = await getInfraProvider().listAppSizes();
    const currency = getConfig().BILLING_CURRENCY;
    return [...sizes]
      .sort((a, b) => a.priceMonthly - b.priceMonthly || a.slug.localeCompare(b.slug))
      .map((s) => ({ slug: s.slug, name: s.name, cpus: s.cpus, memoryMb: s.memoryMb, priceMonthly: s.priceMonthly, priceHourly: s.priceHourly, currency }));
  });
}

export async function listAppRegions(): Promise<AppRegion[]> {
  return cached('app-regions', async () => {
    const regions = await getInfraProvider().listAppRegions();
    return regions.map((r) => ({ slug: r.slug, name: r.name, country: r.country, available: r.available }));
  });
}

/** Test hook: forget every cached list so the next read asks the provider again. */
export function clearCatalogCache(): void {
  cache.clear();
}

interface CacheEntry {
  value: Promise<unknown>;
  expiresAt: number;
}

const cache = new Map<string, CacheEntry>();

/**
 * The catalogue is the same for every caller and changes rarely, so each list is fetched once per
 * TTL per process. The promise is cached, so a burst of first requests makes one upstream call; a
 * failed fetch is forgotten at once so the next request tries again. Other domains' catalogues
 * (Redis plans) use it too, so one `clearCatalogCache` forgets them all.
 */
export function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now) return hit.value as Promise<T>;
  const value = load();
  const entry: CacheEntry = { value, expiresAt: now + CATALOG_TTL_SECONDS * 1000 };
  cache.set(key, entry);
  value.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return value;
}

import { getInfraProvider } from '../../providers/infra';
import type { InfraAppSize, InfraRegion } from '../../providers/infra/types';
import { cachedCatalogue } from '../catalog';

/** The app sizes and regions on sale, as the catalogue endpoints list them (cached with them). */
export interface AppCatalogue {
  sizes: InfraAppSize[];
  regions: InfraRegion[];
}

export function appCatalogue(): Promise<AppCatalogue> {
  return cachedCatalogue('apps-domain-catalogue', async () => {
    const provider = getInfraProvider();
    const [sizes, regions] = await Promise.all([provider.listAppSizes(), provider.listAppRegions()]);
    return { sizes, regions };
  });
}

/** A service's field or the app's region that cannot be bought: `['region']` or `[serviceIndex, 'instanceSize']`. */
export interface CatalogueProblem {
  at: ['region'] | [number, 'instanceSize'];
  message: string;
}

/** Why an app of these services in `region` cannot be bought from the catalogue; empty when it can. */
export function catalogueProblems(services: readonly { instanceSize: string }[], region: string, catalogue: AppCatalogue): CatalogueProblem[] {
  const problem = regionProblem(region, catalogue);
  return [...(problem ? [{ at: ['region'] as ['region'], message: problem }] : []), ...sizeProblems(services, catalogue)];
}

/** Why the region takes no apps, or null when it does. */
export function regionProblem(region: string, catalogue: AppCatalogue): string | null {
  const known = catalogue.regions.find((r) => r.slug === region);
  if (!known) return `${region} is not an app region; choose one of ${catalogue.regions.map((r) => r.slug).join(', ')}`;
  if (!known.available) return `${region} takes no new apps at the moment; choose another region`;
  return null;
}

/** The services whose size is not sold, by index. */
export function sizeProblems(services: readonly { instanceSize: string }[], catalogue: AppCatalogue): CatalogueProblem[] {
  const sizes = new Set(catalogue.sizes.map((s) => s.slug));
  return services.flatMap((service, index) =>
    sizes.has(service.instanceSize)
      ? []
      : [
          {
            at: [index, 'instanceSize'] as [number, 'instanceSize'],
            message: `${service.instanceSize} is not an app size; choose one of ${[...sizes].join(', ')}`,
          },
        ],
  );
}

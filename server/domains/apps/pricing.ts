/**
 * What an app costs a month: every instance of every service is billed at its size's catalogue
 * price, so the preview, the charge and the billing item all come from this one sum.
 */

export interface PricedSize {
  slug: string;
  /** Minor units a month. */
  priceMonthly: number;
}

export interface SizedService {
  instanceSize: string;
  instances: number;
}

/** Σ size price × instances, in minor units. Every size must be in `sizes`: services are checked against the catalogue first. */
export function appMonthlyPrice(services: readonly SizedService[], sizes: readonly PricedSize[]): number {
  const priceOf = new Map(sizes.map((size) => [size.slug, size.priceMonthly]));
  return services.reduce((total, service) => {
    const price = priceOf.get(service.instanceSize);
    if (price === undefined) throw new Error(`App size ${service.instanceSize} is not in the catalogue given`);
    return total + price * service.instances;
  }, 0);
}

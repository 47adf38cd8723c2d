import { defineDomain } from '../../platform/domain';
import { catalogRouter, infraCatalogRouter } from './router';

export { cached as cachedCatalogue, CATALOG_CACHE_CONTROL, clearCatalogCache, serverCatalog, type ServerCatalog } from './service';

/** What can be bought and where: the same for every customer. */
export const catalogDomain = defineDomain({
  name: 'catalog',
  routers: { catalog: catalogRouter, infraCatalog: infraCatalogRouter },
});

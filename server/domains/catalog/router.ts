import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import type { ProcedureMeta } from '../../platform/trpc';
import { appRegionSchema, appSizeSchema, oneClickSchema, serverRegionSchema, serverSizeSchema } from './schema';
import { INFRA_PROVIDER_NAME } from '../../../db/schema/servers';
import * as catalog from './service';
import { authedProcedure, publicProcedure, router } from '../../platform/trpc';

const TAGS = ['Catalogue'];
const SERVERS: Scope[] = ['servers:read'];
const APPS: Scope[] = ['apps:read'];
const CACHING = `Identical for every caller and cached for ${catalog.CATALOG_TTL_SECONDS / 60} minutes (\`Cache-Control: ${catalog.CATALOG_CACHE_CONTROL}\`).`;
const servedTwice = (path: string) => `The same list is served at \`/catalog/${path}\` and \`/${INFRA_PROVIDER_NAME}/${path}\`.`;

type Family = 'catalog' | typeof INFRA_PROVIDER_NAME;

function catalogMeta(family: Family, path: string, summary: string, description: string, scopes: Scope[], isPublic = false): ProcedureMeta {
  return {
    openapi: {
      method: 'GET',
      path: `/${family}/${path}`,
      tags: TAGS,
      summary,
      description: `${description} ${CACHING} ${servedTwice(path)}${isPublic ? ' Public: no credential needed.' : ''}`,
      ...(isPublic ? { protect: false } : {}),
    },
    ...(isPublic ? {} : { scopes }),
    cacheControl: catalog.CATALOG_CACHE_CONTROL,
  };
}

const SIZES = 'Server sizes with monthly and hourly prices in minor units, vCPUs, memory, disk, included transfer and the regions where each is sold; cheapest first.';
const REGIONS = 'Server regions with their country, availability and the sizes sold there.';
const ONE_CLICKS = 'One-click applications a server can be built from, with the disk each needs.';
const APP_SIZES = 'App instance sizes with monthly and hourly prices in minor units; cheapest first.';
const APP_REGIONS = 'Regions where apps can be deployed.';

const empty = z.object({});

/** Both path families of the specification, served by the same service calls. */
function familyRouter(family: Family) {
  return router({
    serverSizes: (family === INFRA_PROVIDER_NAME ? publicProcedure : authedProcedure)
      .meta(catalogMeta(family, 'servers/sizes', 'Server sizes', SIZES, SERVERS, family === INFRA_PROVIDER_NAME))
      .input(empty)
      .output(z.array(serverSizeSchema))
      .query(() => catalog.listServerSizes()),

    serverRegions: authedProcedure
      .meta(catalogMeta(family, 'servers/regions', 'Server regions', REGIONS, SERVERS))
      .input(empty)
      .output(z.array(serverRegionSchema))
      .query(() => catalog.listServerRegions()),

    oneClicks: authedProcedure
      .meta(catalogMeta(family, 'servers/1-clicks', 'One-click applications', ONE_CLICKS, SERVERS))
      .input(empty)
      .output(z.array(oneClickSchema))
      .query(() => catalog.listOneClickApplications()),

    appSizes: authedProcedure
      .meta(catalogMeta(family, 'apps/sizes', 'App sizes', APP_SIZES, APPS))
      .input(empty)
      .output(z.array(appSizeSchema))
      .query(() => catalog.listAppSizes()),

    appRegions: authedProcedure
      .meta(catalogMeta(family, 'apps/regions', 'App regions', APP_REGIONS, APPS))
      .input(empty)
      .output(z.array(appRegionSchema))
      .query(() => catalog.listAppRegions()),
  });
}

export const catalogRouter = familyRouter('catalog');
export const infraCatalogRouter = familyRouter(INFRA_PROVIDER_NAME);

import { z } from 'zod';
import type { ProcedureMeta } from '../../platform/trpc';
import { APP_REGIONS, APP_SIZES, catalogDescription, ONE_CLICKS, SERVER_REGIONS, SERVER_SIZES } from './docs';
import { appRegionSchema, appSizeSchema, oneClickSchema, serverRegionSchema, serverSizeSchema } from './schema';
import { INFRA_PROVIDER_NAME } from '../../../db/schema/servers';
import * as catalog from './service';
import { authedProcedure, publicProcedure, router } from '../../platform/trpc';

const TAGS = ['Catalogue'];

type Family = 'catalog' | typeof INFRA_PROVIDER_NAME;

/** The catalogue is the same for every customer, so no scope guards it: any credential reads it, or none where it is public. */
function catalogMeta(family: Family, path: string, summary: string, description: string, isPublic = false): ProcedureMeta {
  return {
    openapi: {
      method: 'GET',
      path: `/${family}/${path}`,
      tags: TAGS,
      summary,
      description: catalogDescription(description, path, isPublic),
      ...(isPublic ? { protect: false } : {}),
    },
    ...(isPublic ? {} : { anyCredential: true }),
    cacheControl: catalog.CATALOG_CACHE_CONTROL,
    errors: ['UPSTREAM_ERROR'],
  };
}

const empty = z.object({});

/** Both path families of the specification, served by the same service calls. */
function familyRouter(family: Family) {
  return router({
    serverSizes: (family === INFRA_PROVIDER_NAME ? publicProcedure : authedProcedure)
      .meta(catalogMeta(family, 'servers/sizes', 'Server sizes', SERVER_SIZES, family === INFRA_PROVIDER_NAME))
      .input(empty)
      .output(z.array(serverSizeSchema))
      .query(() => catalog.listServerSizes()),

    serverRegions: authedProcedure
      .meta(catalogMeta(family, 'servers/regions', 'Server regions', SERVER_REGIONS))
      .input(empty)
      .output(z.array(serverRegionSchema))
      .query(() => catalog.listServerRegions()),

    oneClicks: authedProcedure
      .meta(catalogMeta(family, 'servers/1-clicks', 'One-click applications', ONE_CLICKS))
      .input(empty)
      .output(z.array(oneClickSchema))
      .query(() => catalog.listOneClickApplications()),

    appSizes: authedProcedure
      .meta(catalogMeta(family, 'apps/sizes', 'App sizes', APP_SIZES))
      .input(empty)
      .output(z.array(appSizeSchema))
      .query(() => catalog.listAppSizes()),

    appRegions: authedProcedure
      .meta(catalogMeta(family, 'apps/regions', 'App regions', APP_REGIONS))
      .input(empty)
      .output(z.array(appRegionSchema))
      .query(() => catalog.listAppRegions()),
  });
}

export const catalogRouter = familyRouter('catalog');
export const infraCatalogRouter = familyRouter(INFRA_PROVIDER_NAME);

import { forEachOpenApiProcedure, getPathRegExp, normalizePath, type OpenApiRouter } from 'trpc-to-openapi';
import type { ProcedureMeta } from '../trpc';

export interface RouteEntry {
  method: string;
  path: string;
  pattern: RegExp;
  procedurePath: string;
  meta: ProcedureMeta;
}

/** Every REST operation of the router, for 404/405 answers and the success status of each call. */
export function buildRouteTable(router: OpenApiRouter): RouteEntry[] {
  const routes: RouteEntry[] = [];
  forEachOpenApiProcedure(router._def.procedures as never, ({ path, meta }) => {
    const openapi = meta.openapi;
    const normalized = normalizePath(openapi.path);
    routes.push({
      method: openapi.method,
      path: normalized,
      pattern: getPathRegExp(normalized),
      procedurePath: path,
      meta: meta as ProcedureMeta,
    });
  });
  return routes;
}

export function findRoutes(routes: RouteEntry[], path: string): RouteEntry[] {
  return routes.filter((r) => r.pattern.test(path));
}

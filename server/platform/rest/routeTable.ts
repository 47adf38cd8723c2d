import type { AnyRouter, TRPCProcedureType } from '@trpc/server';
import {
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
} from 'trpc-to-openapi';
import { ZodArray, type ZodObject } from 'zod/v4';
import type { ProcedureMeta } from '../trpc';
import type { RawRoute } from './rawRoutes';

interface RouteBase {
  method: string;
  /** Normalised OpenAPI path below /v1, e.g. `/projects/{projectId}`. */
  path: string;
  pattern: RegExp;
}

/**
 * What calling one REST operation takes, worked out once at start. The request semantics stay
 * trpc-to-openapi's (its path matching, input assembly and query coercion, through its own
 * helpers), but not its Node adapter: per request, that one builds a fetch Request, a caller proxy
 * and the input parsers again, and its error answers reached the envelope only through a JSON
 * round trip.
 */
export interface ProcedureRoute extends RouteBase {
  kind: 'procedure';
  procedurePath: string;
  type: TRPCProcedureType;
  meta: ProcedureMeta;
  successStatus: number;
  /** False for z.void()-like inputs: the procedure then gets no input at all. */
  takesInput: boolean;
  /**
   * Object inputs get trpc-to-openapi's coercion (numbers, booleans, dates from strings). It
   * mutates the shared schema, so like trpc-to-openapi it happens on the operation's first call.
   */
  objectSchema: ZodObject | undefined;
  coerced: boolean;
  /** Keys of array fields: one query value is wrapped into an array, as trpc-to-openapi does. */
  arrayKeys: string[];
}

export interface RawRouteEntry extends RouteBase {
  kind: 'raw';
  route: RawRoute;
}

export type Route = ProcedureRoute | RawRouteEntry;

/**
 * The one table of /v1: every procedure with `meta.openapi` and every raw route, in that order
 * (literal paths such as `/servers/preview` are declared before their `{id}` siblings).
 */
export function buildRouteTable(router: AnyRouter, rawRoutes: readonly RawRoute[] = []): Route[] {
  const routes: Route[] = [];
  forEachOpenApiProcedure(router._def.procedures as never, ({ path, type, procedure, meta }) => {
    if (type === 'subscription') return;
    const normalized = normalizePath(meta.openapi.path);
    const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
    const objectSchema = instanceofZodTypeObject(schema) ? (schema as unknown as ZodObject) : undefined;
    const arrayKeys = objectSchema
      ? Object.entries(objectSchema.shape)
          .filter(([, field]) => field instanceof ZodArray || (instanceofZodTypeOptional(field) && field.unwrap() instanceof ZodArray))
          .map(([key]) => key)
      : [];
    const trailing = (meta as ProcedureMeta).trailingPathParam;
    routes.push({
      kind: 'procedure',
      method: meta.openapi.method,
      path: normalized,
      pattern: trailing ? trailingPathRegExp(normalized, trailing) : getPathRegExp(normalized),
      procedurePath: path,
      type,
      meta: meta as ProcedureMeta,
      successStatus: (meta as ProcedureMeta).successStatus ?? 200,
      takesInput: !instanceofZodTypeLikeVoid(schema),
      objectSchema,
      coerced: false,
      arrayKeys,
    });
  });
  for (const route of rawRoutes) {
    const normalized = normalizePath(route.path);
    routes.push({ kind: 'raw', method: route.method, path: normalized, pattern: getPathRegExp(normalized), route });
  }
  return routes;
}

/**
 * The routes whose path matches with the fewest parameters. A literal segment
 * (`/projects/create`, `…/servers/preview`) names its own resource: where one matches, its `{id}`
 * siblings do not, so a method it lacks is 405 and never reaches a sibling with the literal as an id.
 */
export function findRoutes(routes: readonly Route[], path: string): Route[] {
  const matching = routes.filter((r) => r.pattern.test(path));
  const fewestParams = Math.min(...matching.map(paramCount));
  return matching.filter((r) => paramCount(r) === fewestParams);
}

function paramCount(route: Route): number {
  return route.path.split('{').length - 1;
}

/** As trpc-to-openapi's pattern, but the final `{name}` matches the rest of the path (or nothing). */
function trailingPathRegExp(path: string, name: string): RegExp {
  const suffix = `/{${name}}`;
  if (!path.endsWith(suffix)) throw new Error(`${path}: trailingPathParam ${name} must be the last segment`);
  const head = getPathRegExp(path.slice(0, -suffix.length)).source.slice(0, -1);
  return new RegExp(`${head}(?:/(?<${name}>.*))?$`, 'i');
}

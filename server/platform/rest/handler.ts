import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { callTRPCProcedure, type AnyRouter } from '@trpc/server';
import { coerceSchema, normalizePath } from 'trpc-to-openapi';
import { auditMutation, type AuditedMutation } from '../audit';
import { requireAuthenticated, requireCallerRules, requireProjectRole } from '../auth/access';
import { createRequestContext, INTERNAL_HEADERS, type Caller, type HeaderSource, type RequestContext } from '../context';
import { AppError, toAppError, type FieldErrors } from '../errors';
import { getLogger } from '../logger';
import { refuseUnstorableText } from '../storableText';
import { decodePathParam, projectRefOf } from '../trpc';
import { createOpenApiDocument, type OpenAPIObject } from './openapi';
import type { HttpMethod, RawRoute, RawRouteCaller, RequestBody } from './rawRoutes';
import { identifyAndSpend, withRefusalBudget } from './requestBudget';
import { buildRouteTable, findRoutes, type ProcedureRoute, type RawRouteEntry, type Route } from './routeTable';

export const REST_PREFIX = '/v1';
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RestRequest {
  method: string;
  /** Path and query, starting with /v1. */
  url: string;
  /** Lower-case header names; repeated headers may come as arrays (Node's IncomingMessage). */
  headers: Record<string, string | string[] | undefined>;
  body: RequestBody;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer | Readable | null;
}

export interface RestApi {
  /** Answers one /v1 request: the route's procedure or raw handler, wrapped in the envelope. */
  handle(request: RestRequest): Promise<RestResponse>;
  /** Fetch-API face, for tests and Next route handlers. */
  handleFetch(req: Request): Promise<Response>;
  /** Node face, used by the production entry point. */
  handleNode(req: IncomingMessage, res: ServerResponse): Promise<void>;
  openApiDocument(): OpenAPIObject;
  routes: readonly Route[];
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const NO_BODY: RequestBody = { read: async () => Buffer.alloc(0), stream: () => Readable.from([]) };

/**
 * The /v1 bridge over one route table: procedures are called directly through tRPC, raw routes
 * through their handler, and every answer, success or failure, is the envelope. Unknown paths,
 * wrong methods and bodies that are not JSON are answered here with the same envelope.
 */
export function createRestApi(options: { router: AnyRouter; rawRoutes?: readonly RawRoute[] }): RestApi {
  const { router } = options;
  const routes = buildRouteTable(router, options.rawRoutes);
  let documentJson: string | undefined;
  const openApiDocument = () => createOpenApiDocument(router, routes);

  async function handle(request: RestRequest): Promise<RestResponse> {
    const requestId = header(request.headers, INTERNAL_HEADERS.requestId) ?? randomUUID();
    const baseHeaders: Record<string, string> = { 'x-request-id': requestId };
    const queryStart = request.url.indexOf('?');
    const fullPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const path = fullPath.slice(REST_PREFIX.length) || '/';
    const method = request.method.toUpperCase();
    let context: RequestContext | undefined;

    try {
      const candidates = findRoutes(routes, path.replace(/\/+$/, '') || '/');
      const route = candidates.find((r) => r.method === method);
      const { caller, fields } = await identifyAndSpend(headerSource(request.headers, requestId, 'GET'), route);
      Object.assign(baseHeaders, fields);
      if (path === '/openapi.json' && (method === 'GET' || method === 'HEAD')) {
        documentJson ??= JSON.stringify(openApiDocument());
        return {
          status: 200,
          headers: { ...baseHeaders, 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
          body: documentJson,
        };
      }
      refuseDotSegments(path);
      if (candidates.length === 0) throw new AppError('NOT_FOUND', `No endpoint at ${method} ${fullPath}`);
      if (!route) {
        const allow = [...new Set(candidates.map((r) => r.method))].join(', ');
        throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${fullPath}; allowed: ${allow}`, {
          headers: { allow },
        });
      }
      // Parsed exactly as trpc-to-openapi does (a path starting with // stays a path).
      const url = new URL(`http://127.0.0.1${request.url.slice(REST_PREFIX.length)}`);
      const routePath = normalizePath(url.pathname);
      if (route.kind === 'raw') return await invokeRaw(route, method as HttpMethod, routePath, url, request, caller, requestId, baseHeaders);
      const body = await parseJsonBody(method, request);
      context = await createRequestContext(headerSource(request.headers, requestId, method), method, 'rest', caller);
      return await invokeProcedure(route, routePath, url, body, context, baseHeaders);
    } catch (err) {
      const app = toAppError(err);
      if (app.status >= 500) getLogger().error({ err: app.cause ?? err, code: app.code, reqId: requestId }, 'request failed');
      return errorResponse(app, context ? { ...baseHeaders, ...context.responseHeaders } : baseHeaders);
    }
  }

  async function invokeProcedure(
    route: ProcedureRoute,
    path: string,
    url: URL,
    body: unknown,
    context: RequestContext,
    baseHeaders: Record<string, string>,
  ): Promise<RestResponse> {
    const params: Record<string, string> = {};
    const groups = matchedParams(route.pattern, path);
    for (const [name, value] of Object.entries(groups)) params[name] = decodePathParam(value);
    refuseUnstorableText(params);
    let input: Record<string, unknown> | undefined;
    if (route.takesInput) {
      const useBody = BODY_METHODS.has(route.method);
      input = { ...((useBody ? body : queryInput(url)) as object), ...groups };
      if (!useBody) {
        for (const key of route.arrayKeys) {
          if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
        }
      }
    }
    if (route.objectSchema && !route.coerced) {
      coerceSchema(route.objectSchema);
      route.coerced = true;
    }
    const data = await callTRPCProcedure({
      router,
      path: route.procedurePath,
      getRawInput: async () => input,
      ctx: context,
      type: route.type,
      signal: undefined,
      batchIndex: 0,
    });
    const json = JSON.stringify(data);
    const headers = { ...baseHeaders, ...context.responseHeaders };
    if (route.successStatus === 204 || json === undefined) {
      return { status: route.successStatus === 200 ? 204 : route.successStatus, headers, body: null };
    }
    const cacheControl = route.meta.cacheControl;
    // The procedure's JSON is spliced in as text: building an object only to serialise it again costs CPU.
    return {
      status: route.successStatus,
      headers: cacheControl
        ? { 'content-type': 'application/json', 'cache-control': cacheControl, ...headers }
        : { 'content-type': 'application/json', ...headers },
      body: `{"success":true,"data":${json}}`,
    };
  }

  async function invokeRaw(
    entry: RawRouteEntry,
    method: HttpMethod,
    path: string,
    url: URL,
    request: RestRequest,
    requester: Caller,
    requestId: string,
    baseHeaders: Record<string, string>,
  ): Promise<RestResponse> {
    const { route } = entry;
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(matchedParams(entry.pattern, path))) params[name] = decodePathParam(value);
    refuseUnstorableText(params);
    const ctx = await createRequestContext(headerSource(request.headers, requestId, 'GET'), route.access.kind === 'public' ? 'GET' : method, 'rest', requester);
    const caller: RawRouteCaller = { actor: null, grant: null };
    const headers: Record<string, string> = {};
    for (const name of Object.keys(request.headers)) {
      const value = header(request.headers, name);
      if (value !== undefined) headers[name] = value;
    }
    const { access } = route;
    const run = async (audit?: AuditedMutation) => {
      if (caller.actor && access.kind !== 'public') requireCallerRules(ctx, caller.actor, access);
      if (caller.actor && access.kind === 'project') {
        if (!params.projectId) throw new AppError('INTERNAL_ERROR', `Raw route ${route.path} is project-scoped without {projectId}`);
        caller.grant = await requireProjectRole(caller.actor, projectRefOf(entry.pattern.exec(path)?.groups), access, (projectId) => {
          if (audit) audit.projectId = projectId;
        });
      }
      await audit?.writeAhead();
      const answer = await route.handle({ method, path, params, query: url.searchParams, headers, body: request.body, ctx }, caller);
      return { status: answer.status, headers: { ...answer.headers, ...baseHeaders }, body: answer.body };
    };
    if (route.access.kind === 'public') return run();
    caller.actor = requireAuthenticated(ctx);
    if (method === 'GET') return run();
    // A signed-in caller's write is recorded whatever happens next, its refusals included, as procedures' are.
    const action = route.docs?.operationId.replace('-', '.') ?? `${method} ${route.path}`;
    const outcome = await auditMutation({ ctx, actor: caller.actor, action, rawInput: params }, async (audit) => {
      try {
        return { ok: true as const, data: await run(audit) };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.data;
  }

  async function handleFetch(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const result = await handle({ method: req.method, url: url.pathname + url.search, headers, body: fetchBody(req) });
    const body =
      result.body instanceof Readable
        ? (Readable.toWeb(result.body) as ReadableStream)
        : Buffer.isBuffer(result.body)
          ? new Uint8Array(result.body)
          : result.body;
    return new Response(body, { status: result.status, headers: result.headers });
  }

  async function handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const result = await handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: nodeBody(req) });
    res.writeHead(result.status, result.headers);
    if (result.body instanceof Readable) {
      result.body.on('error', (err) => {
        getLogger().error({ err, reqId: result.headers['x-request-id'] }, 'streamed answer failed');
        res.destroy(err);
      });
      result.body.pipe(res);
    } else {
      res.end(result.body ?? undefined);
    }
    // A body nobody read (a refusal before parsing) is drained so the connection can be reused.
    if (!req.readableEnded) req.resume();
  }

  return { handle, handleFetch, handleNode, openApiDocument, routes };
}

/** `.` and `..` in any percent-encoding: URL parsing would resolve them into another route. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * A path parameter that is a dot segment would be resolved by URL parsing into the parent route
 * (`DELETE …/ssh-keys/%2e%2e` into `DELETE /projects/{id}`), so such paths are refused before routing.
 */
function refuseDotSegments(path: string): void {
  for (const segment of path.split('/')) {
    if (DOT_SEGMENT.test(segment)) {
      throw new AppError('VALIDATION_ERROR', `Path segment "${segment}" is not allowed: no id is "." or ".."`);
    }
  }
}

async function parseJsonBody(method: string, request: RestRequest): Promise<unknown> {
  if (!BODY_METHODS.has(method)) return undefined;
  const text = (await request.body.read(MAX_BODY_BYTES)).toString('utf8');
  if (text.trim() === '') return undefined;
  const contentType = header(request.headers, 'content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON (Content-Type: application/json)');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Request body is not valid JSON');
  }
}

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');

function nodeBody(req: IncomingMessage): RequestBody {
  return {
    read(maxBytes) {
      if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.reject(tooLarge());
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            reject(tooLarge());
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        req.on('end', () => resolve(Buffer.concat(chunks)));
        req.on('error', reject);
      });
    },
    stream: () => req,
  };
}

function fetchBody(req: Request): RequestBody {
  if (!req.body) return NO_BODY;
  return {
    async read(maxBytes) {
      if (Number(req.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
      const bytes = Buffer.from(await req.arrayBuffer());
      if (bytes.length > maxBytes) throw tooLarge();
      return bytes;
    },
    stream: () => Readable.fromWeb(req.body as never),
  };
}

/** Query parameters as trpc-to-openapi reads them: a repeated name gives an array, a single one a string. */
function queryInput(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!url.search) return query;
  const seen: Record<string, string[]> = {};
  url.searchParams.forEach((value, key) => {
    (seen[key] ??= []).push(value);
  });
  for (const [key, values] of Object.entries(seen)) query[key] = values.length === 1 ? values[0]! : values;
  return query;
}

export function errorResponse(app: AppError, baseHeaders: Record<string, string>): RestResponse & { body: string } {
  const error: { code: string; message: string; docsUrl?: string; fields?: FieldErrors } = { code: app.code, message: app.message };
  if (app.docsUrl) error.docsUrl = app.docsUrl;
  const fields = app.reportedFields;
  if (fields) error.fields = fields;
  return {
    status: app.status,
    headers: { ...withRefusalBudget(baseHeaders, app.headers), 'content-type': 'application/json' },
    body: JSON.stringify({ success: false, error }),
  };
}

function header(headers: RestRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The request's headers as the context reads them: the request id is the one the bridge answers
 * with, and a body method's content type reads as JSON (the body parser has refused anything else).
 */
function headerSource(headers: RestRequest['headers'], requestId: string, method: string): HeaderSource {
  const jsonBody = BODY_METHODS.has(method);
  return {
    get(name: string) {
      const key = name.toLowerCase();
      if (key === INTERNAL_HEADERS.requestId) return requestId;
      if (jsonBody && key === 'content-type') return 'application/json';
      return header(headers, key) ?? null;
    },
  };
}

/** The path's parameters; an optional trailing one that did not match is left out rather than undefined. */
function matchedParams(pattern: RegExp, path: string): Record<string, string> {
  const groups = pattern.exec(path)?.groups ?? {};
  return Object.fromEntries(Object.entries(groups).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

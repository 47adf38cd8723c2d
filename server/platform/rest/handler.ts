import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callTRPCProcedure, type TRPCProcedureType } from '@trpc/server';
import {
  coerceSchema,
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
import { createRequestContext, INTERNAL_HEADERS, type HeaderSource, type RequestContext } from '../context';
import { AppError, toAppError } from '../errors';
import { getLogger } from '../logger';
import { appRouter } from '../../app';
import type { ProcedureMeta } from '../trpc';
import { getOpenApiDocumentJson } from './openapi';
import { buildRouteTable, findRoutes } from './routeTable';

export const REST_PREFIX = '/v1';
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RestRequest {
  method: string;
  /** Path and query, starting with /v1. */
  url: string;
  /** Lower-case header names; repeated headers may come as arrays (Node's IncomingMessage). */
  headers: Record<string, string | string[] | undefined>;
  body: string | undefined;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

const routes = buildRouteTable(appRouter);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * What calling one REST operation takes, worked out once at start. The request semantics stay
 * trpc-to-openapi's (its path matching, input assembly and query coercion, through its own
 * helpers), but not its Node adapter: per request, that one builds a fetch Request (with Headers
 * and an AbortSignal nobody reads here), a caller proxy and the input parsers again, and its error
 * answers reached the envelope only through a JSON round trip.
 */
interface Operation {
  method: string;
  pattern: RegExp;
  procedurePath: string;
  type: TRPCProcedureType;
  successStatus: number;
  /** From meta: set on successful answers that are the same for every caller. */
  cacheControl: string | undefined;
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

const operations = buildOperations();

function buildOperations(): Operation[] {
  const out: Operation[] = [];
  forEachOpenApiProcedure(appRouter._def.procedures as never, ({ path, type, procedure, meta }) => {
    if (type === 'subscription') return;
    const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
    const objectSchema = instanceofZodTypeObject(schema) ? (schema as unknown as ZodObject) : undefined;
    const arrayKeys = objectSchema
      ? Object.entries(objectSchema.shape)
          .filter(([, field]) => field instanceof ZodArray || (instanceofZodTypeOptional(field) && field.unwrap() instanceof ZodArray))
          .map(([key]) => key)
      : [];
    out.push({
      method: meta.openapi.method,
      pattern: getPathRegExp(normalizePath(meta.openapi.path)),
      procedurePath: path,
      type,
      successStatus: (meta as ProcedureMeta).successStatus ?? 200,
      cacheControl: (meta as ProcedureMeta).cacheControl,
      takesInput: !instanceofZodTypeLikeVoid(schema),
      objectSchema,
      coerced: false,
      arrayKeys,
    });
  });
  return out;
}

/**
 * The /v1 bridge: calls the operation's tRPC procedure and wraps every answer, success or
 * failure, in the envelope. Unknown paths, wrong methods and bodies that are not JSON are answered
 * here with the same envelope.
 */
export async function handleRestRequest(request: RestRequest): Promise<RestResponse> {
  const requestId = header(request.headers, INTERNAL_HEADERS.requestId) ?? randomUUID();
  const baseHeaders = { 'x-request-id': requestId };
  const queryStart = request.url.indexOf('?');
  const fullPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const path = fullPath.slice(REST_PREFIX.length) || '/';
  const method = request.method.toUpperCase();

  try {
    if (path === '/openapi.json' && (method === 'GET' || method === 'HEAD')) {
      return {
        status: 200,
        headers: { ...baseHeaders, 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
        body: getOpenApiDocumentJson(),
      };
    }
    const candidates = findRoutes(routes, path.replace(/\/+$/, '') || '/');
    if (candidates.length === 0) throw new AppError('NOT_FOUND', `No endpoint at ${method} ${fullPath}`);
    if (!candidates.some((r) => r.method === method)) {
      const allow = [...new Set(candidates.map((r) => r.method))].join(', ');
      throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${fullPath}; allowed: ${allow}`, {
        headers: { allow },
      });
    }
    const body = parseBody(method, request);
    const context = await createRequestContext(headerSource(request.headers, requestId, method), method, 'rest');
    return await invoke(method, request.url.slice(REST_PREFIX.length), body, context, baseHeaders);
  } catch (err) {
    const app = toAppError(err);
    if (app.status >= 500) getLogger().error({ err, reqId: requestId }, 'request failed');
    return errorResponse(app, baseHeaders);
  }
}

/** Fetch-API face of the bridge, for tests and route handlers. */
export async function handleV1(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const text = req.body ? await req.text() : undefined;
  const result = await handleRestRequest({ method: req.method, url: url.pathname + url.search, headers, body: text });
  return new Response(result.body, { status: result.status, headers: result.headers });
}

/** Node face of the bridge, used by the production entry point. */
export async function handleV1Node(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: string | undefined;
  try {
    body = await readBody(req);
  } catch (err) {
    const app = toAppError(err);
    const out = errorResponse(app, { 'x-request-id': String(req.headers[INTERNAL_HEADERS.requestId] ?? randomUUID()) });
    res.writeHead(out.status, out.headers).end(out.body);
    req.resume();
    return;
  }
  const result = await handleRestRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
  res.writeHead(result.status, result.headers);
  res.end(result.body ?? undefined);
}

function parseBody(method: string, request: RestRequest): unknown {
  if (!BODY_METHODS.has(method)) return undefined;
  const text = request.body;
  if (text === undefined || text.trim() === '') return undefined;
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

function readBody(req: IncomingMessage): Promise<string | undefined> {
  const method = (req.method ?? 'GET').toUpperCase();
  if (!BODY_METHODS.has(method)) return Promise.resolve(undefined);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

/** Calls the operation's procedure and wraps its answer, or its error, in the envelope. */
async function invoke(
  method: string,
  pathAndQuery: string,
  body: unknown,
  context: RequestContext,
  baseHeaders: Record<string, string>,
): Promise<RestResponse> {
  // Parsed exactly as trpc-to-openapi does (a path starting with // stays a path).
  const url = new URL(`http://127.0.0.1${pathAndQuery}`);
  const path = normalizePath(url.pathname);
  const operation = operations.find((op) => op.method === method && op.pattern.test(path));
  if (!operation) throw new AppError('NOT_FOUND', 'Resource not found');
  const useBody = BODY_METHODS.has(method);
  let input: Record<string, unknown> | undefined;
  if (operation.takesInput) {
    input = { ...((useBody ? body : queryInput(url)) as object), ...operation.pattern.exec(path)?.groups };
    if (!useBody) {
      for (const key of operation.arrayKeys) {
        if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
      }
    }
  }
  if (operation.objectSchema && !operation.coerced) {
    coerceSchema(operation.objectSchema);
    operation.coerced = true;
  }

  let data: unknown;
  try {
    data = await callTRPCProcedure({
      router: appRouter,
      path: operation.procedurePath,
      getRawInput: async () => input,
      ctx: context,
      type: operation.type,
      signal: undefined,
      batchIndex: 0,
    });
  } catch (err) {
    const app = toAppError(err);
    if (app.status >= 500) context.log.error({ err: app.cause ?? err, code: app.code }, 'request failed');
    return errorResponse(app, baseHeaders);
  }
  const json = JSON.stringify(data);
  if (operation.successStatus === 204 || json === undefined) {
    return { status: operation.successStatus === 200 ? 204 : operation.successStatus, headers: baseHeaders, body: null };
  }
  // The procedure's JSON is spliced in as text: building an object only to serialise it again costs CPU.
  return {
    status: operation.successStatus,
    headers: operation.cacheControl
      ? { 'content-type': 'application/json', 'cache-control': operation.cacheControl, ...baseHeaders }
      : { 'content-type': 'application/json', ...baseHeaders },
    body: `{"success":true,"data":${json}}`,
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

export function errorResponse(app: AppError, baseHeaders: Record<string, string>): RestResponse {
  const error: { code: string; message: string; docsUrl?: string } = { code: app.code, message: app.message };
  if (app.docsUrl) error.docsUrl = app.docsUrl;
  return {
    status: app.status,
    headers: { ...baseHeaders, ...app.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ success: false, error }),
  };
}

function header(headers: RestRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The request's headers as the context reads them: the request id is the one the bridge answers
 * with, and a body method's content type reads as JSON (parseBody has refused anything else).
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

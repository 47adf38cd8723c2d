import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { createRequestContext, INTERNAL_HEADERS, type RequestContext } from '../context';
import { AppError, toAppError } from '../errors';
import { getLogger } from '../logger';
import { appRouter } from '../routers/_app';
import { getOpenApiDocumentJson } from './openapi';
import { buildRouteTable, findRoutes } from './routeTable';

export const REST_PREFIX = '/v1';
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RestRequest {
  method: string;
  /** Path and query, starting with /v1. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: string | undefined;
}

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

const routes = buildRouteTable(appRouter);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const openApiHandler = createOpenApiNodeHttpHandler({
  router: appRouter,
  createContext: ({ req }) => {
    const fake = req as unknown as FakeRequest;
    return fake.context;
  },
  responseMeta: ({ errors, paths }) => {
    if (errors.length > 0) {
      const app = toAppError(errors[0]);
      return { status: app.status, headers: app.headers };
    }
    const route = routes.find((r) => r.procedurePath === paths?.[0]);
    return { status: route?.meta.successStatus ?? 200 };
  },
  onError: ({ error, ctx }) => {
    const app = toAppError(error);
    if (app.status >= 500) {
      const log = (ctx as RequestContext | undefined)?.log ?? getLogger();
      log.error({ err: app.cause ?? error, code: app.code }, 'request failed');
    }
  },
});

/**
 * The /v1 bridge: routes to the trpc-to-openapi handler and wraps every answer, success or
 * failure, in the envelope. Unknown paths, wrong methods and bodies that are not JSON are answered
 * here with the same envelope.
 */
export async function handleRestRequest(request: RestRequest): Promise<RestResponse> {
  const requestId = request.headers[INTERNAL_HEADERS.requestId] ?? randomUUID();
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
    const headers: Record<string, string | undefined> = { ...request.headers, [INTERNAL_HEADERS.requestId]: requestId };
    if (BODY_METHODS.has(method)) headers['content-type'] = 'application/json';
    const context = await createRequestContext(headerSource(headers), method, 'rest');
    const url = request.url.slice(REST_PREFIX.length);
    const result = await invoke({ method, url, headers, body, context });
    return wrap(result, baseHeaders);
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
  const headers: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.headers)) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  const result = await handleRestRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers, body });
  res.writeHead(result.status, result.headers);
  res.end(result.body ?? undefined);
}

function parseBody(method: string, request: RestRequest): unknown {
  if (!BODY_METHODS.has(method)) return undefined;
  const text = request.body;
  if (text === undefined || text.trim() === '') return undefined;
  const contentType = request.headers['content-type'] ?? '';
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

interface FakeRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: unknown;
  context: RequestContext;
  readableEnded: boolean;
  once(): void;
  off(): void;
}

interface Captured {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Runs the trpc-to-openapi handler against in-memory request and response objects. */
function invoke(input: {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: unknown;
  context: RequestContext;
}): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const captured: Captured = { status: 200, headers: {}, body: undefined };
    const req: FakeRequest = {
      method: input.method,
      url: input.url,
      headers: input.headers,
      body: input.body,
      context: input.context,
      readableEnded: true,
      once() {},
      off() {},
    };
    const res = {
      writableEnded: false,
      get statusCode() {
        return captured.status;
      },
      set statusCode(code: number) {
        captured.status = code;
      },
      setHeader(key: string, value: string | string[]) {
        captured.headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      },
      end(body?: string) {
        res.writableEnded = true;
        captured.body = body;
        resolve(captured);
      },
      once() {},
      off() {},
    };
    openApiHandler(req as never, res as never).catch(reject);
  });
}

function wrap(result: Captured, baseHeaders: Record<string, string>): RestResponse {
  const headers = { ...result.headers, ...baseHeaders };
  if (result.status >= 400) {
    const app = appErrorFromBody(result.body, result.status);
    return errorResponse(app, { ...baseHeaders, ...pick(result.headers, ['retry-after', 'allow']), ...app.headers });
  }
  if (result.status === 204 || result.body === undefined) {
    delete headers['content-type'];
    return { status: result.status === 200 ? 204 : result.status, headers, body: null };
  }
  // The procedure's JSON is spliced in as text: parsing it again only to wrap it would cost CPU.
  headers['content-type'] = 'application/json';
  return { status: result.status, headers, body: `{"success":true,"data":${result.body}}` };
}

function appErrorFromBody(body: string | undefined, status: number): AppError {
  try {
    const parsed = JSON.parse(body ?? '{}') as { data?: { appError?: { code?: string; message?: string; docsUrl?: string; headers?: Record<string, string> } } };
    const info = parsed.data?.appError;
    if (info?.code && info.message) {
      return new AppError(info.code as AppError['code'], info.message, { docsUrl: info.docsUrl, headers: info.headers });
    }
  } catch {
    // fall through to a generic error of the same status class
  }
  return status >= 500 ? new AppError('INTERNAL_ERROR', 'Internal server error') : new AppError('BAD_REQUEST', 'Bad request');
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

function pick(source: Record<string, string>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

function headerSource(headers: Record<string, string | undefined>) {
  return { get: (name: string) => headers[name.toLowerCase()] ?? null };
}

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What every loopback fake of an upstream HTTP API stands on: the server, body decoding, routing,
 * credentials, the request log and injected faults. A fake built on it keeps only its upstream's
 * model (state and resources) and wire format (bodies and error shapes).
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `METHOD /path/:param`, as API references name an endpoint; a fault targets a route by the same key. */
export type RouteKey = `${HttpMethod} /${string}`;

type ParamNames<Pattern extends string> = Pattern extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Pattern extends `${string}:${infer Name}`
    ? Name
    : never;

/** `{ id: string }` for `GET /v2/droplets/:id`, so a handler reads its params without assertions. */
export type RouteParams<Key extends string> = { [Name in ParamNames<Key>]: string };

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormFields = { [key: string]: FormValue };

export type BodyFormat = 'json' | 'form' | 'raw';

/** JSON as parsed (undefined when empty); a form with bracket nesting decoded; raw bytes untouched. */
export type ParsedBody<Format extends BodyFormat> = Format extends 'json' ? unknown : Format extends 'form' ? FormFields : Buffer;

export interface RecordedRequest<Body> {
  method: string;
  path: string;
  /** Decoded like a form body, so `expand[]=a&expand[]=b` arrives as a list. */
  query: FormFields;
  /** Lower-case names, as Node delivers them. */
  headers: IncomingHttpHeaders;
  /** Undefined when the body could not be decoded (the request was answered 400). */
  body: Body | undefined;
}

export interface FakeRequest<Body, Params = Record<string, string>> extends RecordedRequest<Body> {
  body: Body;
  params: Params;
  /** Absolute, on the fake's own origin, for answers that link back to it. */
  url: URL;
  rawBody: Buffer;
}

export interface FakeResponse {
  /** 200 unless given. */
  status?: number;
  /** Sent as JSON, except a string or bytes, which go out as they are (XML, blobs). None when undefined. */
  body?: unknown;
  headers?: Record<string, string>;
}

export type RouteHandler<Body, Params = Record<string, string>> = (request: FakeRequest<Body, Params>) => FakeResponse | Promise<FakeResponse>;

/** Thrown by a handler to answer with an upstream error; the body is already in the upstream's format. */
export class FakeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`answered ${status}`);
  }
}

/** An answer the scaffold gives without a handler, for the fake to put in its upstream's error format. */
export interface ScaffoldError {
  status: number;
  reason: 'unauthorized' | 'no_route' | 'method_not_allowed' | 'malformed' | 'injected';
  /** The scaffold's own wording; a fake may prefer its upstream's. */
  message: string;
  method: string;
  path: string;
}

export interface Fault<Body> {
  /** Only requests to this route; requests to any route unless given. */
  route?: RouteKey;
  /** Only the requests this accepts. */
  when?: (request: FakeRequest<Body>) => boolean;
  /** Answered instead of the handler's response; without it the request is served normally, late. */
  status?: number;
  /** The fake's error body for the status unless given. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Holds the answer back this long (a client with a shorter timeout gives up first). */
  delayMs?: number;
  /** How many matching requests it affects; 1 unless given. */
  times?: number;
  /** Lets this many matching requests through first (to fail a later page of a listing). */
  after?: number;
}

export interface HttpFakeOptions<Format extends BodyFormat> {
  /** Names the fake in what it says about itself (crashes, misuse). */
  name: string;
  parseBody: Format;
  /** A request it refuses is answered 401 before routing. */
  auth?: { bearer: string } | ((request: RecordedRequest<ParsedBody<Format>>) => boolean);
  /** The upstream's body for the scaffold's own answers; `{ error: message }` unless given. */
  errorBody?: (error: ScaffoldError) => unknown;
  /** Sent with every answer (request ids, echoed keys); a response's own headers win. */
  responseHeaders?: (request: RecordedRequest<ParsedBody<Format>>) => Record<string, string>;
}

export interface HttpFake<Body> {
  /** Every request received, in order, however it was answered. */
  readonly requests: RecordedRequest<Body>[];
  /** The first registered route whose pattern and method match serves a request. */
  route<Key extends RouteKey>(key: Key, handler: RouteHandler<Body, RouteParams<Key>>): void;
  /** Faults apply in the order given; the first whose route and `when` match a request decides it. */
  fail(fault: Fault<Body>): void;
  listen(): Promise<{ url: string }>;
  /** Idempotent, so a test can take the server down early to simulate an unreachable upstream. */
  close(): Promise<void>;
}

interface Route<Body> {
  key: RouteKey;
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler<Body>;
}

interface ArmedFault<Body> extends Fault<Body> {
  skip: number;
  remaining: number;
}

export function createHttpFake<Format extends BodyFormat>(options: HttpFakeOptions<Format>): HttpFake<ParsedBody<Format>> {
  type Body = ParsedBody<Format>;
  const requests: RecordedRequest<Body>[] = [];
  const routes: Route<Body>[] = [];
  const faults: ArmedFault<Body>[] = [];
  const waits = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const errorBody = options.errorBody ?? ((error: ScaffoldError) => ({ error: error.message }));
  const auth = options.auth;
  const authorized =
    auth === undefined
      ? () => true
      : typeof auth === 'function'
        ? auth
        : (request: RecordedRequest<Body>) => request.headers.authorization === `Bearer ${auth.bearer}`;
  let origin = '';

  function decodeBody(raw: Buffer): Body {
    if (options.parseBody === 'raw') return raw as Body;
    if (options.parseBody === 'form') return decodeForm(raw.toString('utf8')) as Body;
    return (raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'))) as Body;
  }

  function findRoute(method: string, path: string): { route: Route<Body>; params: Record<string, string> } | { allow: string[] } | undefined {
    const allow: string[] = [];
    for (const route of routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      if (route.method !== method) {
        allow.push(route.method);
        continue;
      }
      const values = found.slice(1).map(decodeSegment);
      if (values.some((value) => value === undefined)) continue;
      return { route, params: Object.fromEntries(route.names.map((name, i) => [name, values[i]!])) };
    }
    return allow.length > 0 ? { allow } : undefined;
  }

  function takeFault(route: RouteKey, request: FakeRequest<Body>): ArmedFault<Body> | undefined {
    const fault = faults.find((candidate) => (candidate.route === undefined || candidate.route === route) && (candidate.when?.(request) ?? true));
    if (!fault) return undefined;
    if (fault.skip > 0) {
      fault.skip -= 1;
      return undefined;
    }
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults.splice(faults.indexOf(fault), 1);
    return fault;
  }

  function wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          waits.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      waits.add(entry);
    });
  }

  async function respond(recorded: RecordedRequest<Body>, url: URL, rawBody: Buffer, malformed: string | undefined): Promise<FakeResponse> {
    const { method, path } = recorded;
    const scaffoldAnswer = (status: number, reason: ScaffoldError['reason'], message: string, headers?: Record<string, string>): FakeResponse => ({
      status,
      body: errorBody({ status, reason, message, method, path }),
      headers,
    });
    if (!authorized(recorded)) return scaffoldAnswer(401, 'unauthorized', 'Missing or rejected credentials');
    const found = findRoute(method, path);
    if (!found) return scaffoldAnswer(404, 'no_route', `No route for ${method} ${path}`);
    if ('allow' in found) return scaffoldAnswer(405, 'method_not_allowed', `${path} does not take ${method}`, { allow: found.allow.join(', ') });
    // A form or raw body is undefined only when it failed to decode, and such a request never reaches a handler.
    const request: FakeRequest<Body> = { ...recorded, body: recorded.body as Body, params: found.params, url, rawBody };
    const fault = takeFault(found.route.key, request);
    if (fault?.delayMs) await wait(fault.delayMs);
    if (fault?.status !== undefined) {
      return fault.body === undefined
        ? { ...scaffoldAnswer(fault.status, 'injected', 'Injected failure'), headers: fault.headers }
        : { status: fault.status, body: fault.body, headers: fault.headers };
    }
    if (malformed !== undefined) return scaffoldAnswer(400, 'malformed', malformed);
    try {
      return await found.route.handler(request);
    } catch (err) {
      if (err instanceof FakeHttpError) return { status: err.status, body: err.body, headers: err.headers };
      // A bug in the fake, not upstream behaviour: said plainly rather than in the upstream's format.
      return { status: 500, body: { error: `${options.name} fake crashed: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', origin);
    let malformed: string | undefined;
    const decode = <T>(parse: () => T): T | undefined => {
      try {
        return parse();
      } catch (err) {
        malformed ??= err instanceof Error ? err.message : String(err);
        return undefined;
      }
    };
    const recorded: RecordedRequest<Body> = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: decode(() => decodeForm(url.search.slice(1))) ?? {},
      headers: req.headers,
      body: decode(() => decodeBody(rawBody)),
    };
    requests.push(recorded);
    const { status = 200, body, headers } = await respond(recorded, url, rawBody, malformed);
    // A client that timed out has gone; there is no one left to answer.
    if (res.destroyed) return;
    const common = { ...options.responseHeaders?.(recorded), ...headers };
    if (body === undefined) {
      res.writeHead(status, common).end();
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      res.writeHead(status, common).end(body);
    } else {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...common }).end(JSON.stringify(body));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.destroyed && !res.headersSent) res.writeHead(500).end();
    });
  });

  return {
    requests,
    route(key, handler) {
      const space = key.indexOf(' ');
      const names: string[] = [];
      const source = key
        .slice(space + 1)
        .split('/')
        .map((segment) => {
          if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(segment.slice(1));
          return '([^/]+)';
        })
        .join('/');
      routes.push({ key, method: key.slice(0, space), pattern: new RegExp(`^${source}$`), names, handler: handler as RouteHandler<Body> });
    },
    fail(fault) {
      if (fault.route !== undefined && !routes.some((route) => route.key === fault.route)) {
        throw new Error(`${options.name} fake has no route ${fault.route} to fail`);
      }
      faults.push({ ...fault, skip: fault.after ?? 0, remaining: fault.times ?? 1 });
    },
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return { url: origin };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const entry of waits) {
          clearTimeout(entry.timer);
          entry.resolve();
        }
        waits.clear();
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function decodeSegment(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Decodes `a[b][c]=1&list[0]=x&list[]=y` into nested objects and lists, as Rack, PHP and Stripe do. */
function decodeForm(encoded: string): FormFields {
  const root: FormFields = {};
  for (const pair of encoded.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
    if (!match) throw new Error(`Invalid parameter name: ${name}`);
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((segment) => segment[1]!)];
    let node: FormFields = root;
    for (let i = 0; i < path.length; i += 1) {
      const segment = path[i] === '' ? String(Object.keys(node).length) : path[i]!;
      if (i === path.length - 1) {
        node[segment] = value;
      } else {
        const next = node[segment];
        if (typeof next !== 'object' || Array.isArray(next)) node[segment] = {};
        node = node[segment] as FormFields;
      }
    }
  }
  return listsFromIndices(root) as FormFields;
}

function listsFromIndices(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: FormFields = {};
  for (const key of keys) converted[key] = listsFromIndices(value[key]!);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => converted[key]!);
  }
  return converted;
}

function decodeFormComponent(part: string): string {
  return decodeURIComponent(part.replace(/\+/g, ' '));
}

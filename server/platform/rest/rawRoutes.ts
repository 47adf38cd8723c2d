import type { Readable } from 'node:stream';
import type { AccessRules, ProjectGrant, SignedInActor } from '../auth/access';
import type { RequestContext } from '../context';
import type { ErrorCode } from '../errors';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The body of a request as it arrived, read only by the route that wants it and only as far as its cap. */
export interface RequestBody {
  /** The whole body (empty when none), refused with 413 past `maxBytes`. */
  read(maxBytes: number): Promise<Buffer>;
  /** The body as a stream, for uploads the route writes somewhere as they arrive. */
  stream(): Readable;
}

export interface RawRequest {
  method: HttpMethod;
  /** Path below /v1, decoded parameters in `params`. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Lower-case names; a repeated header joined with ", ". */
  headers: Record<string, string>;
  body: RequestBody;
  ctx: RequestContext;
}

export interface RawResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string or buffer, a stream for downloads, or nothing. */
  body: string | Buffer | Readable | null;
}

/**
 * Who may call a raw route. `public` routes prove the caller themselves (an inbound webhook's
 * signature); the other two apply the same checks, in the same order, as procedures do.
 */
export type RawRouteAccess = { kind: 'public' } | ({ kind: 'signedIn' } & AccessRules) | ({ kind: 'project' } & AccessRules);

export interface RawRouteCaller {
  actor: SignedInActor | null;
  /** Set for `project` routes: the project of `{projectId}` and the caller's role in it. */
  grant: ProjectGrant | null;
}

/**
 * A `/v1` route that is not a tRPC procedure: inbound webhooks verified over the raw body, OAuth
 * redirects and callbacks, octet-stream uploads, streamed downloads. Registered by a domain's
 * manifest and routed from the same table as procedures, so 404/405 answers, the request id, the
 * error envelope and authorization work the same.
 */
export interface RawRoute {
  method: HttpMethod;
  /** Below /v1, with `{name}` parameters, e.g. `/projects/{projectId}/files/{path}`. */
  path: string;
  access: RawRouteAccess;
  /**
   * The route's own /v1 budget instead of its caller's: `inboundWebhook` for deliveries from an
   * upstream system, limited per sending address under RATE_LIMIT_WEBHOOK_PER_MINUTE.
   */
  budget?: 'inboundWebhook';
  /** How the OpenAPI document shows the route; a route without it is left out (an internal forward). */
  docs?: RawRouteDocs;
  handle(request: RawRequest, caller: RawRouteCaller): Promise<RawResponse>;
}

/** A raw route's operation in the OpenAPI document. */
export interface RawRouteDocs {
  /** The operation's stable name in the document (`gitHost1-webhook`), as procedures are named `<domain>-<procedure>`; generated clients name their calls by it. */
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** Query parameters, by name. */
  query?: Record<string, { description: string; required?: boolean }>;
  /** Request headers the route reads (a webhook's signature), by name. */
  headers?: Record<string, { description: string; required?: boolean }>;
  /** A JSON request body's schema and what it is. */
  body?: { description: string; contentType: string };
  /** Successful answers by status: 302 redirects name their `Location`; JSON answers give their `data` schema; others (a file) their content type. */
  responses: Record<number, { description: string; data?: Record<string, unknown>; contentType?: string }>;
  /** The codes the route's own rules answer with, beside those of its access rules. */
  errors?: readonly ErrorCode[];
}

/** A success in the API's envelope, for raw routes that answer JSON. */
export function envelope(data: unknown, status = 200, headers: Record<string, string> = {}): RawResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ success: true, data }) };
}

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AuditedMutation } from './audit';
import { resolveActor, type Actor } from './auth/actor';
import { getConfig } from './config';
import { getLogger } from './logger';

export interface RequestContext {
  actor: Actor;
  requestId: string;
  /** Client address as the entry server saw it (or X-Forwarded-For when TRUST_PROXY is set). */
  ip: string;
  transport: 'rest' | 'trpc' | 'internal';
  /** Set when a cookie-authenticated write comes from another origin or without a JSON body. */
  crossSiteWrite: boolean;
  /** The `Idempotency-Key` header as sent (validated only where a write uses it); null when absent. */
  idempotencyKey: string | null;
  /** Headers the answer carries besides the transport's own (such as Idempotent-Replayed); written by middlewares. */
  responseHeaders: Record<string, string>;
  log: RequestLog;
  /** Inside a mutation's chain: the audit entry being recorded, which the project check tells where it belongs. */
  audit?: AuditedMutation;
}

export type HeaderSource = { get(name: string): string | null };

/** The request's logger: lines carry its request id. */
export interface RequestLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** Made on first use: most requests never log, and a pino child (its bindings serialised and redacted) costs every request. */
export function requestLog(requestId: string): RequestLog {
  let child: Logger | undefined;
  const logger = () => (child ??= getLogger().child({ reqId: requestId }));
  return {
    error: (details, message) => logger().error(details, message),
    warn: (details, message) => logger().warn(details, message),
    info: (details, message) => logger().info(details, message),
  };
}

/** Header names the entry server sets itself after dropping any value a client sent. */
export const INTERNAL_HEADERS = { requestId: 'x-request-id', clientIp: 'x-client-ip' } as const;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who is calling: the credential's actor and the client address. */
export interface Caller {
  actor: Actor;
  ip: string;
}

/** Reads the caller from the request; the /v1 bridge does it once, before routing, to spend the caller's budget. */
export async function identifyCaller(headers: HeaderSource): Promise<Caller> {
  const credential = { authorization: headers.get('authorization'), apiKey: headers.get('x-api-key'), cookie: headers.get('cookie') };
  return { actor: await resolveActor(credential), ip: headers.get(INTERNAL_HEADERS.clientIp) ?? 'unknown' };
}

export async function createRequestContext(
  headers: HeaderSource,
  method: string,
  transport: RequestContext['transport'],
  caller?: Caller,
): Promise<RequestContext> {
  const requestId = headers.get(INTERNAL_HEADERS.requestId) ?? randomUUID();
  const { actor, ip } = caller ?? (await identifyCaller(headers));
  const crossSiteWrite = actor.kind === 'session' && !SAFE_METHODS.has(method.toUpperCase()) && !isSameOriginWrite(method, headers);
  return {
    actor,
    requestId,
    ip,
    transport,
    crossSiteWrite,
    idempotencyKey: headers.get('idempotency-key'),
    responseHeaders: {},
    log: requestLog(requestId),
  };
}

/** The body types a cross-site page can send without a CORS preflight (HTML forms among them). */
const CROSS_SITE_BODY_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/**
 * A body type that only a preflighted request can carry (JSON, or an octet-stream upload to a raw
 * route) plus our own Origin rules out requests forged by another site.
 */
function isSameOriginWrite(method: string, headers: HeaderSource): boolean {
  const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (method.toUpperCase() !== 'DELETE' && (contentType === '' || CROSS_SITE_BODY_TYPES.includes(contentType))) return false;
  const origin = headers.get('origin');
  if (!origin) return false;
  const allowed = new URL(getConfig().APP_URL).origin;
  const host = headers.get('host');
  return origin === allowed || (host !== null && (origin === `http://${host}` || origin === `https://${host}`));
}

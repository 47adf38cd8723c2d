import { STATUS_CODES } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { createSchema } from 'zod-openapi';
import { getConfig } from '../config';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import type { ProcedureRoute, RawRouteEntry, Route } from './routeTable';

export type { OpenAPIObject };

type Json = Record<string, unknown>;

/** What each code tells a client; every error response of the document lists its codes with these. */
const CODE_MEANINGS: Record<ErrorCode, string> = {
  BAD_REQUEST: "the request cannot be served as sent; the operation's description says when",
  LINK_EXPIRED: 'the emailed link has expired; ask for a new one',
  UNAUTHORIZED: 'no credential, or an invalid, revoked or expired one',
  ORG_PAYMENT_METHOD_REQUIRED: 'the caller holds billing for the project and must add a payment card',
  BILLER_PAYMENT_METHOD_REQUIRED: 'the member who holds billing for the project must add a payment card',
  CARD_DECLINED: 'the card was declined; nothing was bought',
  PROJECT_BLOCKED: 'the project is blocked by an unpaid invoice; pay it first',
  PROJECT_SUSPENDED: "the project's paid resources are suspended over an invoice unpaid past its grace period; pay it and they come back",
  SECRET_LIMIT_REACHED: 'the project holds as many secrets as its limit allows; buy a pack of secrets or delete one first',
  FORBIDDEN:
    'not a member of the project, a role too low, an API key lacking a scope or calling a session-only operation, or a cookie-authenticated write without a same-origin Origin',
  NOT_FOUND: 'the project or resource does not exist, or the caller may not see it',
  METHOD_NOT_ALLOWED: 'the path does not take this method; the Allow header names those it takes',
  CONFLICT: 'the request conflicts with the current state (a name taken, resources left, an action that does not fit); the message says how',
  SECRET_PACKS_NOT_SOLD: 'this deployment sells no packs of secrets (no pack price is configured)',
  EMAIL_NOT_VERIFIED: "the account's email address must be verified first (the link in the verification email), or the invitation link's secret sent",
  IDEMPOTENCY_IN_PROGRESS: 'a request with the same Idempotency-Key is still running; retry once it has finished',
  VARIABLE_LIMIT_REACHED: 'the project holds as many variables as it may (all environments together); delete some first',
  DNS_PROVIDER_NOT_CONNECTED: 'the project has no DNS provider connected; connect one with an API token (or OAuth) first',
  DNS_CREDENTIAL_INVALID: 'the DNS provider refused the stored credential (revoked or expired); connect again',
  GIT_HOST_NOT_CONNECTED: 'the project has no connection to this git host (or no linked installation); connect it first',
  GIT_CREDENTIAL_INVALID: 'the git host refused the stored grant or installation (revoked, expired or uninstalled); connect again',
  IMAGE_HUB_NOT_CONNECTED: 'the project has no image hub account connected; connect one with a username and access token first',
  IMAGE_HUB_CREDENTIAL_INVALID: 'the image hub refused the stored access token (revoked or expired); connect again',
  SIGNATURE_INVALID: 'an inbound webhook without a valid signature or token for its repository (missing header, wrong secret, altered body)',
  PAYLOAD_TOO_LARGE: 'the body is too large',
  UNSUPPORTED_MEDIA_TYPE: 'the body is not JSON (send Content-Type: application/json)',
  VALIDATION_ERROR: 'the body, path or query failed validation; `fields` names each failing field',
  IDEMPOTENCY_KEY_REUSED: 'the Idempotency-Key was already used with another method, path or body',
  URL_NOT_ALLOWED:
    'the URL cannot be called: not https, or its host resolves to a loopback, private, link-local, multicast, unspecified or metadata address; `fields` names the field',
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 'the project already has the most webhook endpoints it can hold; delete one first',
  RATE_LIMITED: 'too many requests; try again after the seconds of Retry-After',
  INTERNAL_ERROR: 'an unexpected error; quote the X-Request-Id header when reporting it',
  UPSTREAM_ERROR: 'a provider the operation calls (infrastructure, payment processor) failed or could not be reached; try again',
  SERVICE_UNAVAILABLE: 'this deployment is not set up for the operation (a backend is not configured); the message names the setting',
};

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);
const codesOfStatus = (status: number) => ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);

const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?$';

const COMPONENT_HEADERS: Json = {
  RateLimitPolicy: {
    description:
      'The rate limit that applies to the caller (IETF ratelimit-headers, structured-field form): `"default";q=600;w=60` is 600 requests per 60-second window',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'What is left of the current window: `"default";r=598;t=42` is 598 requests left, the window resetting in 42 seconds',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  RequestId: { description: 'Identifies the request in our logs; quote it when reporting a problem', schema: { type: 'string' } },
  IdempotentReplayed: {
    description: 'Present when the answer is the stored one of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The longest rest-of-path parameter (a file path in a repository). */
const MAX_TRAILING_PATH_LENGTH = 1024;

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
/** A body that is bytes as they are (a file), not JSON. */
const BINARY = { type: 'string', format: 'binary' };
/** Every /v1 answer carries these. */
const ANSWER_HEADERS = { 'RateLimit-Policy': headerRef('RateLimitPolicy'), RateLimit: headerRef('RateLimit'), 'X-Request-Id': headerRef('RequestId') };

/** The OpenAPI 3.1 document of /v1, generated from the router and rewritten to show the envelope, every answer and its headers. */
export function createOpenApiDocument(router: AnyRouter, routes: readonly Route[]): OpenAPIObject {
  const config = getConfig();
  const doc = generateOpenApiDocument(router as never, {
    title: 'Cloud Panel API',
    description: [
      'REST API of the hosting platform. Every response is an envelope: `{ success: true, data }` or',
      '`{ success: false, error: { code, message, docsUrl?, fields? } }`; clients branch on `error.code`.',
      'Authenticate with a project API key (`Authorization: Bearer <key>` or `X-API-Key: <key>`) or the',
      "panel's session cookie. A key reaches one project, holds `<resource>:read|write` scopes and acts",
      "with its creator's current role. Cookie-authenticated writes need a same-origin `Origin` header.",
      'Every POST, PATCH and DELETE takes an `Idempotency-Key` header: repeating the request with the same key',
      'within 24 hours answers what the first one answered, marked `Idempotent-Replayed: true`. Every answer',
      'carries `RateLimit-Policy` and `RateLimit`; past the limit the answer is 429 with `Retry-After`.',
      'Money is in integer minor units; times are UTC ISO 8601.',
    ].join(' '),
    version: '1.0.0',
    baseUrl: `${config.APP_URL}/v1`,
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'Project API key' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Project API key' },
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'panel.session-token',
        description: "The panel's session (served over https as __Secure-panel.session-token)",
      },
    },
  });
  const rewritten = rewrite(
    doc,
    routes.filter((r): r is ProcedureRoute => r.kind === 'procedure'),
  );
  for (const entry of routes) if (entry.kind === 'raw' && entry.route.docs) addRawOperation(rewritten, entry);
  return rewritten;
}

/**
 * A raw route (redirect, callback, webhook) in the document: its access rules, parameters and
 * answers as its `docs` describe them, with the same error responses and markers as procedures.
 */
function addRawOperation(doc: OpenAPIObject, entry: RawRouteEntry): void {
  const { route } = entry;
  const docs = route.docs!;
  const access = route.access;
  const isPublic = access.kind === 'public';
  const parameters: Json[] = [...entry.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  for (const [name, q] of Object.entries(docs.query ?? {}))
    parameters.push({ name, in: 'query', required: q.required ?? false, description: q.description, schema: { type: 'string' } });
  for (const [name, h] of Object.entries(docs.headers ?? {}))
    parameters.push({ name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } });
  const responses: Json = {};
  for (const [status, answer] of Object.entries(docs.responses)) {
    responses[status] = status.startsWith('3')
      ? {
          description: answer.description,
          headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } }, ...ANSWER_HEADERS },
        }
      : answer.contentType
        ? { description: answer.description, headers: ANSWER_HEADERS, content: { [answer.contentType]: { schema: BINARY } } }
        : {
            description: answer.description,
            headers: ANSWER_HEADERS,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['success', 'data'], properties: { success: { type: 'boolean', const: true }, data: answer.data ?? {} } },
              },
            },
          };
  }
  const codes: ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_ERROR', ...(docs.errors ?? [])];
  if (!isPublic) codes.push('UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR');
  if (entry.path.includes('{')) codes.push('NOT_FOUND');
  if (docs.body) codes.push('PAYLOAD_TOO_LARGE');
  for (const errorStatus of ERROR_STATUSES) {
    const own = codesOfStatus(errorStatus).filter((code) => codes.includes(code));
    if (own.length > 0) responses[String(errorStatus)] = errorResponse(errorStatus, own);
  }
  const operation: Json = {
    operationId: docs.operationId,
    summary: docs.summary,
    description: docs.description,
    tags: docs.tags,
    parameters,
    responses,
    security: isPublic ? [] : access.sessionOnly ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }],
    'x-required-scopes': isPublic ? [] : (access.scopes ?? []),
  };
  if (docs.body) {
    const schema = docs.body.contentType === 'application/json' ? {} : BINARY;
    operation.requestBody = { required: true, description: docs.body.description, content: { [docs.body.contentType]: { schema } } };
  }
  if (!isPublic && access.role) operation['x-required-role'] = access.role;
  if (!isPublic && access.sessionOnly) operation['x-session-only'] = true;
  if (!isPublic && access.anyCredential) operation['x-any-credential'] = true;
  doc.paths ??= {};
  const item = (doc.paths[entry.path] ??= {}) as Json;
  item[route.method.toLowerCase()] = operation;
}

/**
 * The codes the platform itself can answer an operation with, from its access rules, path and
 * method; `meta.errors` adds those of the operation's own rules.
 */
function platformErrorCodes(route: ProcedureRoute): ErrorCode[] {
  const { meta, method, path } = route;
  const isPublic = meta.openapi?.protect === false;
  const write = method !== 'GET';
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'RATE_LIMITED', 'INTERNAL_ERROR'];
  if (!isPublic) codes.push('UNAUTHORIZED');
  // A scope, a membership, a session-only rule or a cross-site cookie write can each refuse; an operation open to any credential has none of them on a read.
  if (!isPublic && (meta.sessionOnly || (meta.scopes?.length ?? 0) > 0 || path.includes('{projectId}') || write)) codes.push('FORBIDDEN');
  if (path.includes('{')) codes.push('NOT_FOUND');
  if (method === 'POST' || method === 'PATCH' || method === 'PUT') codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (write) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED');
  return codes;
}

function rewrite(doc: OpenAPIObject, routes: ProcedureRoute[]): OpenAPIObject {
  doc.components ??= {};
  const schemas: Json = doc.components.schemas ?? {};
  // trpc-to-openapi's own error shapes: the bridge answers every error with the envelope instead.
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.ErrorEnvelope = {
    type: 'object',
    required: ['success', 'error'],
    additionalProperties: false,
    properties: {
      success: { type: 'boolean', const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: ERROR_CODES, description: 'Stable; branch on it' },
          message: { type: 'string', description: 'Human text; may change' },
          docsUrl: { type: 'string', format: 'uri' },
          fields: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description:
              'Field path (segments joined with ".") → what is wrong with it. Always present on 422 (empty when no single field is at fault); present on other errors that concern one field, such as a name already taken',
          },
        },
      },
    },
  };
  doc.components.schemas = schemas as NonNullable<typeof doc.components.schemas>;
  doc.components.headers = { ...(doc.components.headers ?? {}), ...(COMPONENT_HEADERS as NonNullable<typeof doc.components.headers>) };
  doc.components.parameters = {
    ...(doc.components.parameters ?? {}),
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the first answer is stored for 24 hours per credential, and the same key with the same method, path and body answers it again (`Idempotent-Replayed: true`). 1 to 255 printable ASCII characters; a UUID is a good key',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
    },
  };
  const errorResponses: Json = {};
  for (const status of ERROR_STATUSES) errorResponses[`Error${status}`] = errorResponse(status, codesOfStatus(status));
  doc.components.responses = { ...(doc.components.responses ?? {}), ...(errorResponses as NonNullable<typeof doc.components.responses>) };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const route = routes.find((r) => r.method === method.toUpperCase() && r.path === path);
      if (!route || typeof operation !== 'object' || operation === null) continue;
      rewriteOperation(operation as Json, route, schemas);
    }
  }
  return doc;
}

function rewriteOperation(op: Json, route: ProcedureRoute, schemas: Json): void {
  const meta = route.meta;
  const isPublic = meta.openapi?.protect === false;
  const write = route.method !== 'GET';
  const responses = (op.responses ?? {}) as Json;
  const success = responses['200'] as Json | undefined;
  const status = meta.successStatus ?? 200;
  const successHeaders: Json = { ...ANSWER_HEADERS };
  if (write) successHeaders['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  if (meta.cacheControl) {
    successHeaders['Cache-Control'] = { description: 'The answer is the same for every caller', schema: { type: 'string', enum: [meta.cacheControl] } };
  }
  const next: Json = {};

  if (status === 204) {
    next['204'] = { description: 'Done; no body', headers: successHeaders };
  } else {
    const content = (success?.content as Json | undefined)?.['application/json'] as Json | undefined;
    const dataSchema = (content?.schema as Json | undefined) ?? {};
    next[String(status)] = {
      description: (success?.description as string | undefined) ?? 'Success',
      headers: successHeaders,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['success', 'data'],
            properties: { success: { type: 'boolean', const: true }, data: dataSchema },
          },
        },
      },
    };
  }
  const codes = [...new Set([...platformErrorCodes(route), ...(meta.errors ?? [])])];
  for (const errorStatus of ERROR_STATUSES) {
    const own = codesOfStatus(errorStatus).filter((code) => codes.includes(code));
    if (own.length === 0) continue;
    next[String(errorStatus)] =
      own.length === codesOfStatus(errorStatus).length ? { $ref: `#/components/responses/Error${errorStatus}` } : errorResponse(errorStatus, own);
  }
  op.responses = next;

  if (meta.trailingPathParam) {
    // OpenAPI has no parameter spanning segments: it is described as one, required as every path parameter is.
    for (const parameter of (op.parameters as Json[] | undefined) ?? []) {
      if (parameter.in !== 'path' || parameter.name !== meta.trailingPathParam) continue;
      parameter.required = true;
      parameter.schema = { type: 'string', maxLength: MAX_TRAILING_PATH_LENGTH };
      parameter['x-rest-of-path'] = true;
      parameter.description =
        `${(parameter.description as string | undefined) ?? ''} It takes the rest of the path, slashes included; the operation also answers without it (and its slash).`.trim();
    }
  }
  if (write) op.parameters = [...((op.parameters as unknown[] | undefined) ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  if (meta.requestBody) {
    const body = createSchema(meta.requestBody(), { io: 'input' });
    Object.assign(schemas, body.components);
    op.requestBody = { required: true, content: { 'application/json': { schema: body.schema } } };
  }

  op.security = isPublic ? [] : meta.sessionOnly ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }];
  op['x-required-scopes'] = meta.scopes ?? [];
  if (meta.anyCredential) op['x-any-credential'] = true;
  if (meta.role) op['x-required-role'] = meta.role;
  if (meta.sessionOnly) op['x-session-only'] = true;
  if (meta.hideForbiddenAsNotFound) op['x-forbidden-as-not-found'] = true;
}

/** An error answer with the codes it can carry at this status, each with its meaning. */
function errorResponse(status: number, codes: readonly ErrorCode[]): Json {
  return {
    description: [`${STATUS_CODES[status] ?? `Status ${status}`}.`, ...codes.map((code) => `\`${code}\`: ${CODE_MEANINGS[code]}.`)].join(' '),
    headers: status === 429 ? { ...ANSWER_HEADERS, 'Retry-After': headerRef('RetryAfter') } : ANSWER_HEADERS,
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorEnvelope' },
            { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
          ],
        },
      },
    },
  };
}

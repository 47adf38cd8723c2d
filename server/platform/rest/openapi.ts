import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { getConfig } from '../config';
import { ERROR_STATUS } from '../errors';
import type { ProcedureRoute, Route } from './routeTable';

export type { OpenAPIObject };

type Json = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request (BAD_REQUEST), or an expired emailed link (LINK_EXPIRED)',
  401: 'No credential, or an invalid, revoked or expired one (UNAUTHORIZED)',
  402: 'Payment required',
  403: 'Not a member of the project, role too low, or the API key lacks a scope (FORBIDDEN); the email address must be verified first (EMAIL_NOT_VERIFIED)',
  404: 'Not found (NOT_FOUND)',
  409: 'Conflict with the current state (CONFLICT)',
  415: 'The body is not JSON (UNSUPPORTED_MEDIA_TYPE)',
  422: 'Body, path or query failed validation; the message names the fields (VALIDATION_ERROR)',
  429: 'Rate limited (RATE_LIMITED); see Retry-After',
  500: 'Unexpected error (INTERNAL_ERROR); quote the X-Request-Id header when reporting it',
};

/** The OpenAPI 3.1 document of /v1, generated from the router and rewritten to show the envelope. */
export function createOpenApiDocument(router: AnyRouter, routes: readonly Route[]): OpenAPIObject {
  const config = getConfig();
  const doc = generateOpenApiDocument(router as never, {
    title: 'Cloud Panel API',
    description: [
      'REST API of the hosting platform. Every response is an envelope: `{ success: true, data }` or',
      '`{ success: false, error: { code, message, docsUrl? } }`; clients branch on `error.code`.',
      'Authenticate with a project API key (`Authorization: Bearer <key>` or `X-API-Key: <key>`) or the',
      "panel's session cookie. A key reaches one project, holds `<resource>:read|write` scopes and acts",
      "with its creator's current role. Cookie-authenticated writes need a same-origin `Origin` header.",
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
  return rewrite(
    doc,
    routes.filter((r): r is ProcedureRoute => r.kind === 'procedure'),
  );
}

function rewrite(doc: OpenAPIObject, routes: ProcedureRoute[]): OpenAPIObject {
  doc.components ??= {};
  doc.components.schemas = {
    ...(doc.components.schemas ?? {}),
    ErrorEnvelope: {
      type: 'object',
      required: ['success', 'error'],
      additionalProperties: false,
      properties: {
        success: { type: 'boolean', const: false },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable; branch on it' },
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
    },
  };
  const errorResponses: Json = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    errorResponses[`Error${status}`] = {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  doc.components.responses = { ...(doc.components.responses ?? {}), ...(errorResponses as NonNullable<typeof doc.components.responses>) };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const route = routes.find((r) => r.method === method.toUpperCase() && r.path === path);
      if (!route || typeof operation !== 'object' || operation === null) continue;
      rewriteOperation(operation as Json, route);
    }
  }
  return doc;
}

function rewriteOperation(op: Json, route: ProcedureRoute): void {
  const meta = route.meta;
  const isPublic = meta.openapi?.protect === false;
  const projectScoped = route.path.includes('{projectId}');
  const responses = (op.responses ?? {}) as Json;
  const success = responses['200'] as Json | undefined;
  const status = meta.successStatus ?? 200;
  const next: Json = {};

  if (status === 204) {
    next['204'] = { description: 'Done; no body' };
  } else {
    const content = (success?.content as Json | undefined)?.['application/json'] as Json | undefined;
    const dataSchema = (content?.schema as Json | undefined) ?? {};
    next[String(status)] = {
      description: (success?.description as string | undefined) ?? 'Success',
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
  const errors = new Set<number>([422, 500]);
  if (!isPublic) [401, 403].forEach((s) => errors.add(s));
  if (projectScoped || route.path.includes('{')) errors.add(404);
  if (route.method !== 'GET') errors.add(409);
  if (route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT') errors.add(415);
  for (const extra of meta.errorStatuses ?? []) errors.add(extra);
  for (const code of [...errors].sort()) next[String(code)] = { $ref: `#/components/responses/Error${code}` };
  op.responses = next;

  op.security = isPublic ? [] : meta.sessionOnly ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }];
  op['x-required-scopes'] = meta.scopes ?? [];
  if (meta.role) op['x-required-role'] = meta.role;
  if (meta.sessionOnly) op['x-session-only'] = true;
  if (meta.hideForbiddenAsNotFound) op['x-forbidden-as-not-found'] = true;
}

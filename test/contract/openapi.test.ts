import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';
import { ERROR_STATUS } from '../../server/platform/errors';
import { emailSchema, EMAIL_PATTERN } from '../../server/platform/schemas';
import type { ProcedureRoute } from '../../server/platform/rest/routeTable';
import { api } from '../helpers';
import { documentedCodes, documentedStatuses, findOperation, label, operationsOf, responseAt, type DocumentedOperation } from '../openapiDocument';

const doc = restApi.openApiDocument();
const procedureRoutes = restApi.routes.filter((r): r is ProcedureRoute => r.kind === 'procedure');
const routeOf = (op: DocumentedOperation) => procedureRoutes.find((r) => r.method === op.method && r.path === op.path)!;
const allOperations = operationsOf(doc);
/** Raw routes (redirects, callbacks, webhooks) are documented too, but take no Idempotency-Key nor JSON input of their own. */
const rawOperations = allOperations.filter((op) => !procedureRoutes.some((r) => r.method === op.method && r.path === op.path));
const operations = allOperations.filter((op) => !rawOperations.includes(op));
const writes = operations.filter((op) => op.method !== 'GET');
const reads = operations.filter((op) => op.method === 'GET');

/** Every object of the document with the keys that lead to it. */
function* nodes(value: unknown, at: string[] = []): Generator<[string[], Record<string, unknown>]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* nodes(item, [...at, String(index)]);
  } else if (value !== null && typeof value === 'object') {
    yield [at, value as Record<string, unknown>];
    for (const [key, item] of Object.entries(value)) yield* nodes(item, [...at, key]);
  }
}

describe('GET /v1/openapi.json', () => {
  it('serves a valid OpenAPI document, version 1.0.0, with the security schemes and the envelope', async () => {
    const res = await api<never>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const served = res.body as unknown as typeof doc;
    const result = await new Validator().validate(served as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(served.info.version).toBe('1.0.0');
    expect(Object.keys(served.components?.securitySchemes ?? {}).sort()).toEqual(['apiKeyHeader', 'bearerAuth', 'sessionCookie']);
    expect(served.components?.schemas?.ErrorEnvelope).toBeDefined();

    const createAccount = findOperation(served, 'POST', '/accounts');
    expect(documentedStatuses(createAccount)).toContain(201);
    expect(createAccount.operation.security).toEqual([]);
    const getProject = findOperation(served, 'GET', '/projects/{projectId}');
    expect(responseAt(served, getProject, 200)).toMatchObject({
      content: { 'application/json': { schema: { properties: { success: { const: true }, data: expect.any(Object) } } } },
    });
    expect(documentedCodes(served, getProject, 401)).toEqual(['UNAUTHORIZED']);
    expect(documentedCodes(served, getProject, 422)).toEqual(['VALIDATION_ERROR']);
    expect(documentedStatuses(getProject)).not.toContain(400);
  });

  it('names every operation `<domain>-<operation>`, once: generated clients name their calls by it', () => {
    const ids = allOperations.map((op) => op.operation.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*-[a-z][A-Za-z0-9]*$/);
    expect(findOperation(doc, 'POST', '/integrations/git-host-2/webhook').operation.operationId).toBe('gitHost2-webhook');
  });
});

describe('the document describes every answer', () => {
  it('offers the Idempotency-Key header on every write, and on no read', () => {
    const takesKey = (op: DocumentedOperation) =>
      ((op.operation.parameters as Array<{ $ref?: string }> | undefined) ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
    expect(writes.filter((op) => !takesKey(op)).map(label)).toEqual([]);
    expect([...reads, ...rawOperations].filter(takesKey).map(label)).toEqual([]);
    expect(doc.components?.parameters?.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  });

  it('puts RateLimit-Policy, RateLimit and X-Request-Id on every answer, Retry-After on every 429, Idempotent-Replayed on the successes of writes', () => {
    const missing: string[] = [];
    for (const op of operations) {
      for (const status of documentedStatuses(op)) {
        const headers = (responseAt(doc, op, status)?.headers ?? {}) as Record<string, unknown>;
        const wanted = ['RateLimit-Policy', 'RateLimit', 'X-Request-Id'];
        if (status === 429) wanted.push('Retry-After');
        if (status < 300 && op.method !== 'GET') wanted.push('Idempotent-Replayed');
        for (const name of wanted) if (!headers[name]) missing.push(`${label(op)} ${status} ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(doc.components?.headers?.RateLimitPolicy).toMatchObject({ schema: { type: 'string' } });
  });

  it('lists 429 RATE_LIMITED, 422 and 500 on every operation (422 where it takes input)', () => {
    for (const op of rawOperations) {
      expect(documentedCodes(doc, op, 429), label(op)).toEqual(['RATE_LIMITED']);
      expect(documentedCodes(doc, op, 500), label(op)).toEqual(['INTERNAL_ERROR']);
    }
    for (const op of operations) {
      expect(documentedCodes(doc, op, 429), label(op)).toEqual(['RATE_LIMITED']);
      expect(documentedCodes(doc, op, 422), label(op)).toContain('VALIDATION_ERROR');
      expect(documentedCodes(doc, op, 500), label(op)).toEqual(['INTERNAL_ERROR']);
    }
  });

  it('answers 204 with no body exactly where the operation answers empty', () => {
    const empty = operations.filter((op) => routeOf(op).successStatus === 204);
    expect(empty.map(label)).toEqual(
      expect.arrayContaining(['DELETE /projects/{projectId}/api-keys/{keyId}', 'DELETE /projects/{projectId}/billing/payment-methods/{paymentMethodId}']),
    );
    for (const op of operations) {
      const statuses = documentedStatuses(op).filter((s) => s < 300);
      expect(statuses, label(op)).toHaveLength(1);
      const response = responseAt(doc, op, statuses[0]!)!;
      if (empty.includes(op)) expect({ status: statuses[0], content: response.content }, label(op)).toEqual({ status: 204, content: undefined });
      else expect(response.content, label(op)).toBeDefined();
    }
  });

  it('lists every refusal of buying on the operations that buy', () => {
    const createServer = findOperation(doc, 'POST', '/projects/{projectId}/servers');
    expect(documentedCodes(doc, createServer, 402).sort()).toEqual([
      'BILLER_PAYMENT_METHOD_REQUIRED',
      'CARD_DECLINED',
      'ORG_PAYMENT_METHOD_REQUIRED',
      'PROJECT_BLOCKED',
    ]);
    expect(documentedCodes(doc, createServer, 502)).toEqual(['UPSTREAM_ERROR']);
    expect(documentedCodes(doc, createServer, 409)).toContain('CONFLICT');
    expect(documentedCodes(doc, findOperation(doc, 'POST', '/projects/{projectId}/billing/payment-methods'), 402)).toEqual(['CARD_DECLINED']);
    expect(documentedStatuses(findOperation(doc, 'GET', '/projects/{projectId}/servers'))).not.toContain(402);
  });

  it('lists 502 on the operations that call a provider', () => {
    const callers = [
      'GET /catalog/servers/sizes',
      'GET /infra/servers/sizes',
      'GET /catalog/apps/regions',
      'POST /accounts',
      'GET /projects/{projectId}/billing',
      'POST /projects/{projectId}/billing/payment-methods',
      'GET /projects/{projectId}/servers/preview',
      'PATCH /projects/{projectId}/servers/{serverId}',
      'DELETE /projects/{projectId}/servers/{serverId}',
      'POST /projects/{projectId}/servers/{serverId}/actions',
    ];
    for (const name of callers) {
      const [method, path] = name.split(' ') as [string, string];
      expect(documentedCodes(doc, findOperation(doc, method, path), 502), name).toEqual(['UPSTREAM_ERROR']);
    }
    expect(documentedStatuses(findOperation(doc, 'GET', '/projects/{projectId}/members'))).not.toContain(502);
  });

  it('lists CONFLICT only on the operations that declare it; any write may meet a running Idempotency-Key, no read answers 409', () => {
    for (const op of reads) expect(documentedStatuses(op), label(op)).not.toContain(409);
    for (const op of writes) {
      const own = (status: number) => (routeOf(op).meta.errors ?? []).filter((code) => ERROR_STATUS[code] === status);
      expect(documentedCodes(doc, op, 409).sort(), label(op)).toEqual(['IDEMPOTENCY_IN_PROGRESS', ...own(409)].sort());
      const own422 = own(422);
      expect(documentedCodes(doc, op, 422).sort(), label(op)).toEqual(['IDEMPOTENCY_KEY_REUSED', 'VALIDATION_ERROR', ...own422].sort());
    }
    expect(documentedCodes(doc, findOperation(doc, 'PATCH', '/projects/{projectId}/billing-email'), 409)).toEqual(['IDEMPOTENCY_IN_PROGRESS']);
    expect(documentedCodes(doc, findOperation(doc, 'POST', '/projects/create'), 409)).toContain('CONFLICT');
  });

  it('describes each error status with the codes it can carry, every code of the API under its own status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const shared = doc.components?.responses?.[`Error${status}`] as { description: string } | undefined;
      expect(shared?.description, code).toContain(`\`${code}\``);
    }
    for (const op of operations) {
      for (const status of documentedStatuses(op).filter((s) => s >= 400)) {
        const codes = documentedCodes(doc, op, status);
        expect(codes.length, `${label(op)} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], `${label(op)} ${code}`).toBe(status);
          expect(responseAt(doc, op, status)?.description, `${label(op)} ${status}`).toContain(`\`${code}\``);
        }
      }
    }
  });

  it('lets any credential read the catalogue: no scope required, no 403, still 401 without one', () => {
    const catalogue = operations.filter((op) => op.path.startsWith('/catalog/') || op.path.startsWith('/infra/'));
    expect(catalogue).toHaveLength(10);
    for (const op of catalogue.filter((o) => o.path !== '/infra/servers/sizes')) {
      expect(op.operation, label(op)).toMatchObject({ 'x-required-scopes': [], 'x-any-credential': true });
      expect(documentedStatuses(op), label(op)).toContain(401);
      expect(documentedStatuses(op), label(op)).not.toContain(403);
    }
  });
});

describe('the document is as strict as the server', () => {
  it('uses no \\p{…} class in any pattern, which other regex engines refuse', () => {
    const patterns = [...nodes(doc)].filter(([, node]) => typeof node.pattern === 'string').map(([at, node]) => [at.join('/'), node.pattern as string]);
    expect(patterns.length).toBeGreaterThan(5);
    expect(patterns.filter(([, pattern]) => /\\[pP]\{/.test(pattern!))).toEqual([]);
  });

  it('marks the required fields of the payment-method body, with their limits', () => {
    const body = findOperation(doc, 'POST', '/projects/{projectId}/billing/payment-methods').operation.requestBody as {
      required: boolean;
      content: { 'application/json': { schema: { required: string[]; properties: Record<string, Record<string, unknown>> } } };
    };
    expect(body.required).toBe(true);
    const schema = body.content['application/json'].schema;
    expect(schema.required.sort()).toEqual(['cardNumber', 'cvc', 'expMonth', 'expYear']);
    expect(schema.properties.expMonth).toMatchObject({ type: 'integer', minimum: 1, maximum: 12 });
    expect(Object.keys(schema.properties)).not.toContain('paymentMethodId');
  });

  it('gives every email field the one pattern the server checks', () => {
    const emails = [...nodes(doc)].filter(([, node]) => node.format === 'email');
    expect(emails.map(([at]) => at[1]).sort()).toEqual([
      '/accounts',
      '/accounts/restore',
      '/projects/{projectId}/billing-email',
      '/projects/{projectId}/invitations',
    ]);
    expect(new Set(emails.map(([, node]) => node.pattern))).toEqual(new Set([EMAIL_PATTERN.source]));
    for (const [at, node] of emails) expect(node.maxLength, at.join('/')).toBe(320);

    const documented = new RegExp(EMAIL_PATTERN.source);
    const samples = [
      'ada@example.com',
      'a.b+tag@sub.example.co',
      "o'neil@example.org",
      'a@b',
      'a..b@example.com',
      '.a@example.com',
      'é@example.com',
      'a@exa_mple.com',
      'a @example.com',
    ];
    for (const sample of samples) expect(documented.test(sample), sample).toBe(emailSchema.safeParse(sample).success);
  });

  it('limits every path parameter to 200 characters, and a rest-of-path one to 1024', () => {
    const restOfPath: string[] = [];
    for (const op of operations) {
      for (const parameter of (op.operation.parameters as Array<{
        in?: string;
        name?: string;
        schema?: Record<string, unknown>;
        'x-rest-of-path'?: boolean;
      }>) ?? []) {
        if (parameter.in !== 'path') continue;
        if (parameter['x-rest-of-path']) {
          restOfPath.push(label(op));
          expect(parameter.schema, `${label(op)} ${parameter.name}`).toEqual({ type: 'string', maxLength: 1024 });
        } else {
          expect(parameter.schema, `${label(op)} ${parameter.name}`).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
        }
      }
    }
    expect(restOfPath).toEqual(
      expect.arrayContaining([
        'GET /projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/contents/{path}',
        'GET /projects/{projectId}/integrations/git-host-3/repos/{project}/contents/{path}',
      ]),
    );
  });

  it('documents the raw routes: redirects with their Location, public returns and webhooks, and the access of the rest', () => {
    const byLabel = new Map(rawOperations.map((op) => [label(op), op]));
    for (const host of ['git-host-1', 'git-host-2', 'git-host-3']) {
      const connect = byLabel.get(`GET /projects/{projectId}/integrations/${host}/connect`);
      expect(connect?.operation, host).toMatchObject({ 'x-required-scopes': ['integrations:read', 'integrations:write'], 'x-required-role': 'member' });
      expect(responseAt(doc, connect!, 302)?.headers, host).toHaveProperty('Location');
      const webhook = byLabel.get(`POST /integrations/${host}/webhook`)!;
      expect(webhook.operation.security, host).toEqual([]);
      expect(
        documentedStatuses(webhook)
          .filter((s) => s < 300)
          .sort(),
        host,
      ).toEqual([200, 202]);
      expect(documentedCodes(doc, webhook, 401), host).toEqual(['SIGNATURE_INVALID']);
      expect(documentedCodes(doc, byLabel.get(`GET /integrations/${host}/callback`)!, 400), host).toContain('LINK_EXPIRED');
    }
    expect(byLabel.get('GET /integrations/git-host-1/setup')?.operation.security).toEqual([]);
    for (const op of rawOperations) expect(op.operation.security, label(op)).toBeDefined();
  });
});

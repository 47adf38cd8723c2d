import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { api } from '../helpers';

describe('GET /v1/openapi.json', () => {
  it('serves a valid OpenAPI document, version 1.0.0, with the security schemes and the envelope', async () => {
    const res = await api<never>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as unknown as {
      info: { version: string };
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown>; responses: Record<string, unknown> };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security: unknown[] }>>;
    };
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKeyHeader', 'bearerAuth', 'sessionCookie']);
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();

    const createAccount = doc.paths['/accounts']?.post;
    expect(Object.keys(createAccount?.responses ?? {})).toContain('201');
    expect(createAccount?.security).toEqual([]);
    const getProject = doc.paths['/projects/{projectId}']?.get;
    expect(getProject?.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { properties: { success: { const: true }, data: expect.any(Object) } } } },
    });
    expect(getProject?.responses['401']).toEqual({ $ref: '#/components/responses/Error401' });
    expect(getProject?.responses['422']).toEqual({ $ref: '#/components/responses/Error422' });
    expect(getProject?.responses['400']).toBeUndefined();
    expect(Object.keys(doc.paths['/projects/{projectId}/api-keys/{keyId}']?.delete?.responses ?? {})).toContain('204');
  });
});

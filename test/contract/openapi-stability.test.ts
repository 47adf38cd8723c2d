import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';

/**
 * The /v1 document is the public contract: a refactoring must leave it exactly as it was. A change
 * that alters it on purpose regenerates the snapshot (`npm run openapi:snapshot`), and the diff
 * shows reviewers what clients will see.
 */
const snapshot = JSON.parse(readFileSync(path.resolve(import.meta.dirname, 'openapi.snapshot.json'), 'utf8')) as Record<string, unknown>;

type Json = Record<string, unknown>;
const at = (doc: Json, ...keys: string[]): Json => keys.reduce<Json>((node, key) => node[key] as Json, doc);

describe('the OpenAPI document', () => {
  it('is what the snapshot says, except for the additive error.fields', () => {
    const current = JSON.parse(JSON.stringify(restApi.openApiDocument())) as Json;
    const errorProperties = at(current, 'components', 'schemas', 'ErrorEnvelope', 'properties', 'error', 'properties');
    expect(errorProperties.fields).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    const before = at(snapshot, 'components', 'schemas', 'ErrorEnvelope', 'properties', 'error', 'properties');
    if (!('fields' in before)) delete errorProperties.fields;
    expect(current).toEqual(snapshot);
  });
});

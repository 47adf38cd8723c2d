import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderTypes, SDK_TYPES_FILE } from '../clients/sdk/codegen';
import { restApi } from '../server/app';

/**
 * The SDK's types are generated from the /v1 document and committed, so its users get them without
 * running the server. A change to the API that is not regenerated into them fails here.
 */
describe('the SDK types', () => {
  it('are what the current /v1 document generates (run `npm run sdk:generate` after changing the API)', async () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, '..', SDK_TYPES_FILE), 'utf8');
    const current = await renderTypes(restApi.openApiDocument());
    expect(current === committed, 'clients/sdk/src/generated/openapi.ts is behind the API: run `npm run sdk:generate`').toBe(true);
  });

  it('describe every operation of the document', async () => {
    const document = restApi.openApiDocument();
    const types = readFileSync(path.resolve(import.meta.dirname, '..', SDK_TYPES_FILE), 'utf8');
    const operationIds = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((operation) => operation.operationId),
    );
    expect(operationIds.length).toBeGreaterThan(200);
    for (const id of operationIds) expect(types, `operation ${id}`).toContain(`    "${id}": {`);
  });
});

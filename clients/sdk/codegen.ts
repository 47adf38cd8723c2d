import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/** Where the generated types live, relative to the repository root. */
export const SDK_TYPES_FILE = 'clients/sdk/src/generated/openapi.ts';

/** The first line of every generated file: it is rewritten, never edited. */
export const GENERATED_HEADER = [
  '// Generated from the /v1 OpenAPI document by `npm run sdk:generate`. Do not edit: change the API',
  '// (its routers and schemas), then regenerate; CI fails when this file and the document disagree.',
].join('\n');

/** The TypeScript types (`paths`, `components`, `operations`) of an OpenAPI 3.1 document. */
export async function renderTypes(document: object): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], {
    silent: true,
    // A file's bytes (an upload's body, a download's answer) are a Blob in fetch, not a string.
    transform: (schema) => (schema.format === 'binary' ? ts.factory.createTypeReferenceNode('Blob') : undefined),
  });
  return `${GENERATED_HEADER}\n\n${astToString(ast)}`;
}

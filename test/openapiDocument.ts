import type { OpenAPIObject } from '../server/platform/rest/openapi';

type Json = Record<string, unknown>;

export interface DocumentedOperation {
  method: string;
  /** As the document writes it, e.g. `/projects/{projectId}`. */
  path: string;
  operation: Json;
}

export const label = (op: Pick<DocumentedOperation, 'method' | 'path'>) => `${op.method} ${op.path}`;

export function operationsOf(doc: OpenAPIObject): DocumentedOperation[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

export function findOperation(doc: OpenAPIObject, method: string, path: string): DocumentedOperation {
  const found = operationsOf(doc).find((op) => op.method === method && op.path === path);
  if (!found) throw new Error(`the document has no ${method} ${path}`);
  return found;
}

/** The answer the document gives for one status of an operation: the shared component behind a `$ref`, or its own. */
export function responseAt(doc: OpenAPIObject, op: DocumentedOperation, status: number): Json | undefined {
  const response = (op.operation.responses as Record<string, Json>)[String(status)];
  const ref = response?.$ref as string | undefined;
  return ref ? (doc.components?.responses?.[ref.replace('#/components/responses/', '')] as Json | undefined) : response;
}

/** The error codes the document allows at one status of an operation (empty when the status is not documented). */
export function documentedCodes(doc: OpenAPIObject, op: DocumentedOperation, status: number): string[] {
  const schema = (responseAt(doc, op, status)?.content as Record<string, { schema: { allOf?: Json[] } }> | undefined)?.['application/json']?.schema;
  const narrowing = schema?.allOf?.[1] as { properties: { error: { properties: { code: { enum: string[] } } } } } | undefined;
  return narrowing?.properties.error.properties.code.enum ?? [];
}

export function documentedStatuses(op: DocumentedOperation): number[] {
  return Object.keys(op.operation.responses as Json).map(Number);
}

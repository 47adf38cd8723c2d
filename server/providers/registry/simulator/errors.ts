import type { ServerResponse } from 'node:http';

/** Distribution's error codes (registry/api/errcode and registry/api/v2), with their messages and statuses. */
export const ERROR_CODES = {
  UNKNOWN: { message: 'unknown error', status: 500 },
  UNSUPPORTED: { message: 'The operation is unsupported.', status: 405 },
  UNAUTHORIZED: { message: 'authentication required', status: 401 },
  DENIED: { message: 'requested access to the resource is denied', status: 403 },
  DIGEST_INVALID: { message: 'provided digest did not match uploaded content', status: 400 },
  SIZE_INVALID: { message: 'provided length did not match content length', status: 400 },
  NAME_INVALID: { message: 'invalid repository name', status: 400 },
  TAG_INVALID: { message: 'manifest tag did not match URI', status: 400 },
  NAME_UNKNOWN: { message: 'repository name not known to registry', status: 404 },
  MANIFEST_UNKNOWN: { message: 'manifest unknown', status: 404 },
  MANIFEST_INVALID: { message: 'manifest invalid', status: 400 },
  MANIFEST_BLOB_UNKNOWN: { message: 'blob unknown to registry', status: 400 },
  BLOB_UNKNOWN: { message: 'blob unknown to registry', status: 404 },
  BLOB_UPLOAD_UNKNOWN: { message: 'blob upload unknown to registry', status: 404 },
  BLOB_UPLOAD_INVALID: { message: 'blob upload invalid', status: 404 },
  PAGINATION_NUMBER_INVALID: { message: 'invalid number of results requested', status: 400 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * How Go's encoding/json writes a plain `error` value (errors.New, fmt.Errorf): it has no exported
 * fields, so Distribution's `detail` for most internal failures is an empty object.
 */
export const GO_ERROR: Readonly<Record<string, never>> = Object.freeze({});

export interface RegistryErrorItem {
  code: ErrorCode;
  /** Replaces the code's message, as Distribution's `WithMessage` does. */
  message?: string;
  /** Left out of the JSON when undefined (Go's omitempty on a nil interface); null is written as null. */
  detail?: unknown;
}

/** Thrown by handlers; the dispatcher answers with the envelope, the first item deciding the status. */
export class RegistryError extends Error {
  constructor(readonly items: RegistryErrorItem[]) {
    super(items.map((item) => item.code).join(', '));
  }
}

export function registryError(code: ErrorCode, detail?: unknown, message?: string): RegistryError {
  return new RegistryError([{ code, detail, message }]);
}

/** Distribution's `errcode.ServeJSON`: `{"errors":[...]}` and a newline, as Go's json.Encoder writes it. */
export function writeErrors(res: ServerResponse, items: readonly RegistryErrorItem[], headers: Record<string, string> = {}): void {
  const status = items[0] ? ERROR_CODES[items[0].code].status : 500;
  const errors = items.map((item) => {
    const entry: Record<string, unknown> = { code: item.code, message: item.message ?? ERROR_CODES[item.code].message };
    if (item.detail !== undefined) entry.detail = item.detail;
    return entry;
  });
  const body = `${JSON.stringify({ errors })}\n`;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** What Go's http.Error writes: the router's 404 and the method handler's 405. */
export function writePlain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  const body = `${text}\n`;
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

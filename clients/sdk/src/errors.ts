/** Per-field messages of a 422 VALIDATION_ERROR, keyed by the field's dotted path (`name`, `ports.0`). */
export type FieldErrors = Record<string, string>;

/** Codes the client gives failures that never reached an answer of the API's own. */
export const CLIENT_CODES = {
  /** No answer at all: the connection failed or was reset, every attempt. */
  network: 'NETWORK_ERROR',
  /** An answer without the API's envelope, such as a proxy's HTML error page. */
  unexpected: 'UNEXPECTED_RESPONSE',
} as const;

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  fields?: FieldErrors;
  requestId?: string;
  docsUrl?: string;
  /** Seconds the API asked to wait before trying again (429 and some 503s). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * Every failure of a call: the API's refusal (`code` is its stable `error.code`, `status` the HTTP
 * status), or one of CLIENT_CODES with status 0 when no envelope came back. Branch on `code`;
 * `message` is for people.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors | undefined;
  readonly requestId: string | undefined;
  readonly docsUrl: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message, { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.fields = init.fields;
    this.requestId = init.requestId;
    this.docsUrl = init.docsUrl;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

interface Envelope {
  success: false;
  error: { code: string; message: string; fields?: FieldErrors; docsUrl?: string };
}

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return (
    (body as { success?: unknown }).success === false &&
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** The ApiError of a failed answer, from its envelope when it has one. */
export function apiErrorFrom(response: Response, body: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfterSeconds = retryAfterOf(response.headers.get('retry-after'));
  if (isEnvelope(body)) {
    const { code, message, fields, docsUrl } = body.error;
    return new ApiError({ status: response.status, code, message, fields, docsUrl, requestId, retryAfterSeconds });
  }
  const excerpt = typeof body === 'string' && body.trim() ? `: ${body.trim().slice(0, 200)}` : '';
  return new ApiError({
    status: response.status,
    code: CLIENT_CODES.unexpected,
    message: `HTTP ${response.status} without the API's error envelope${excerpt}`,
    requestId,
    retryAfterSeconds,
  });
}

/** An IMF-fixdate, the HTTP date form (`Sun, 06 Nov 1994 08:49:37 GMT`); Date.parse alone also takes "1.5" as a date in 2001. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterOf(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!HTTP_DATE.test(trimmed)) return undefined;
  return Math.max(0, Math.ceil((Date.parse(trimmed) - now) / 1000));
}

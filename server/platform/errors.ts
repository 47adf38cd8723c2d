/** Every stable error code of the API and the HTTP status it is sent with. Clients branch on the code. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  LINK_EXPIRED: 400,
  SECRET_PACKS_NOT_SOLD: 400,
  DNS_PROVIDER_NOT_CONNECTED: 400,
  DNS_CREDENTIAL_INVALID: 400,
  GIT_HOST_NOT_CONNECTED: 400,
  GIT_CREDENTIAL_INVALID: 400,
  IMAGE_HUB_NOT_CONNECTED: 400,
  IMAGE_HUB_CREDENTIAL_INVALID: 400,
  UNAUTHORIZED: 401,
  SIGNATURE_INVALID: 401,
  ORG_PAYMENT_METHOD_REQUIRED: 402,
  BILLER_PAYMENT_METHOD_REQUIRED: 402,
  CARD_DECLINED: 402,
  PROJECT_BLOCKED: 402,
  PROJECT_SUSPENDED: 402,
  SECRET_LIMIT_REACHED: 402,
  FORBIDDEN: 403,
  EMAIL_NOT_VERIFIED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  VARIABLE_LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  URL_NOT_ALLOWED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Field path (segments joined with '.') → what is wrong with it; forms put each on its input. */
export type FieldErrors = Record<string, string>;

export interface AppErrorOptions {
  docsUrl?: string;
  fields?: FieldErrors;
  /** Response headers that belong with the error, such as Retry-After on RATE_LIMITED. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * Marks every AppError whatever copy of this module made it: the compiled server and the panel's
 * Next bundle each hold one, and a provider shared between them through globalThis throws the
 * other's, which a plain `instanceof` would take for an unexpected error (a 500).
 */
const APP_ERROR_BRAND = Symbol.for('platform.AppError');

/** The one error type services throw; the transport maps `code` to a status through ERROR_STATUS. */
export class AppError extends Error {
  readonly [APP_ERROR_BRAND] = true;
  readonly code: ErrorCode;
  readonly docsUrl?: string;
  readonly headers?: Record<string, string>;
  readonly fields?: FieldErrors;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.docsUrl = options.docsUrl;
    this.headers = options.headers;
    this.fields = options.fields;
  }

  static [Symbol.hasInstance](value: unknown): value is AppError {
    return typeof value === 'object' && value !== null && (value as { [APP_ERROR_BRAND]?: unknown })[APP_ERROR_BRAND] === true;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** What the answer carries as `error.fields`: always an object on 422, so clients need not test for it. */
  get reportedFields(): FieldErrors | undefined {
    return this.fields ?? (this.code === 'VALIDATION_ERROR' ? {} : undefined);
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new AppError('CONFLICT', message);

interface ZodIssueLike {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/** "name: Too small; billingEmail: Invalid email" — names every failing field, as the API promises. */
export function describeIssues(issues: ReadonlyArray<ZodIssueLike>): string {
  const parts = issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return parts.length ? `Validation failed: ${parts.join('; ')}` : 'Validation failed';
}

/**
 * A refusal that concerns one input field: the message keeps the "field: message" form every
 * VALIDATION_ERROR has, and `fields` carries the same text for forms.
 */
export function invalidField(field: string, message: string, options: Omit<AppErrorOptions, 'fields'> = {}): AppError {
  return new AppError('VALIDATION_ERROR', `${field}: ${message}`, { ...options, fields: { [field]: message } });
}

/** The first message of each failing field; issues about the whole input have no field and stay in the message only. */
export function fieldErrorsOf(issues: ReadonlyArray<ZodIssueLike>): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const field = issue.path.map(String).join('.');
    if (field && fields[field] === undefined) fields[field] = issue.message;
  }
  return fields;
}

/** A zod failure as the API reports it: every field in the message, and each one in `fields`. */
export function validationError(issues: ReadonlyArray<ZodIssueLike>): AppError {
  return new AppError('VALIDATION_ERROR', describeIssues(issues), { fields: fieldErrorsOf(issues) });
}

/** Whether a failure is the input failing its schema (before the operation ran), not one of the operation's own refusals. */
export function isInputSchemaFailure(err: unknown): boolean {
  return !findCause(err, isAppError) && isTrpcError(err) && findCause(err.cause, isZodError) !== undefined;
}

function findCause<T>(err: unknown, test: (e: unknown) => e is T): T | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 6; depth += 1) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const isAppError = (e: unknown): e is AppError => e instanceof AppError;
const isZodError = (e: unknown): e is { name: string; issues: ZodIssueLike[] } =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ZodError' && Array.isArray((e as { issues?: unknown }).issues);

interface TrpcLikeError {
  name: string;
  code: string;
  message: string;
  cause?: unknown;
}
const isTrpcError = (e: unknown): e is TrpcLikeError => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'TRPCError';

/**
 * Runs a call to a backend the platform drives (a registry, a web server, a database server): the
 * platform's own refusals pass through, any other failure answers 502 UPSTREAM_ERROR with `message`.
 */
export async function callUpstream<T>(message: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('UPSTREAM_ERROR', message, { cause: err });
  }
}

/**
 * Turns anything thrown during a request into an AppError. Unknown failures become INTERNAL_ERROR
 * with a fixed message: driver errors carry SQL and parameters and must never reach a client.
 */
export function toAppError(err: unknown): AppError {
  const app = findCause(err, isAppError);
  if (app) return app;
  if (isTrpcError(err)) {
    const zod = findCause(err.cause, isZodError);
    if (zod && (err.code === 'BAD_REQUEST' || err.code === 'PARSE_ERROR')) {
      return validationError(zod.issues);
    }
    switch (err.code) {
      case 'PARSE_ERROR':
        return new AppError('VALIDATION_ERROR', 'Request body is not valid JSON');
      case 'BAD_REQUEST':
        return new AppError('BAD_REQUEST', err.message);
      case 'UNAUTHORIZED':
        return new AppError('UNAUTHORIZED', err.message);
      case 'FORBIDDEN':
        return new AppError('FORBIDDEN', err.message);
      case 'NOT_FOUND':
        return new AppError('NOT_FOUND', err.message === 'Not found' ? 'Resource not found' : err.message);
      case 'METHOD_NOT_SUPPORTED':
        return new AppError('METHOD_NOT_ALLOWED', 'Method not allowed');
      case 'PAYLOAD_TOO_LARGE':
        return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON (Content-Type: application/json)');
      case 'TOO_MANY_REQUESTS':
        return new AppError('RATE_LIMITED', 'Too many requests');
      default:
        break;
    }
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error', { cause: err });
}

/** Maps an AppError to the nearest tRPC code so the panel's transport sends a matching status. */
export const TRPC_CODE_OF: Record<
  number,
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'UNPROCESSABLE_CONTENT'
  | 'PAYMENT_REQUIRED'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE'
  | 'METHOD_NOT_SUPPORTED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

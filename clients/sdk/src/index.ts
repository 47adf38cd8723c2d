export {
  createClient,
  apiUrlOf,
  DEFAULT_BASE_URL,
  type CloudClient,
  type ClientOptions,
  type CallOptions,
  type Call,
  type DataOf,
  type Redirect,
} from './client.ts';
export { ApiError, CLIENT_CODES, retryAfterOf, type ApiErrorInit, type FieldErrors } from './errors.ts';
export { retryingFetch, IDEMPOTENCY_HEADER, type RetryEvent, type RetryOptions, type TransportOptions } from './transport.ts';
export { waitFor, WaitError, type WaitOptions } from './waitFor.ts';
export type { paths, components, operations } from './generated/openapi.ts';

import type { components } from './generated/openapi.ts';
/** A named schema of the document, e.g. `Schema<'Server'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

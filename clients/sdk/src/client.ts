import createFetchClient, { type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { ApiError, CLIENT_CODES, apiErrorFrom } from './errors.ts';
import type { paths } from './generated/openapi.ts';
import { IDEMPOTENCY_HEADER, retryingFetch, type RetryEvent, type RetryOptions } from './transport.ts';
import { waitFor, type WaitOptions } from './waitFor.ts';

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export interface ClientOptions extends RetryOptions {
  /** A project API key (`Authorization: Bearer`). Calls without one reach only the public operations. */
  apiKey?: string;
  /** Where the platform answers; `/v1` is added. Default http://localhost:3000. */
  baseUrl?: string;
  /** Sent with every call, after the client's own. */
  headers?: Record<string, string>;
  /** The fetch to send with (a test's, a proxy's); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Told before each retry's wait. */
  onRetry?: (event: RetryEvent) => void;
  /** Names the calling program in the User-Agent. */
  userAgent?: string;
}

export interface CallOptions {
  /** The write's Idempotency-Key; one is made for every write that has none, and kept across retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What an operation that answers with a redirect (the OAuth starts) gives: where a browser should go. */
export interface Redirect {
  location: string;
}

type SuccessStatus = 200 | 201 | 202 | 204;
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type FileBody<R> = R extends { content: { 'application/octet-stream': infer B } } ? B : never;
type Successes<Op> = Op extends { responses: infer Rs } ? Rs[Extract<keyof Rs, SuccessStatus>] : never;
type Redirects<Op> = Op extends { responses: infer Rs } ? (302 extends keyof Rs ? true : false) : false;

/** The `data` of an operation's success envelope; a Blob for a file; `undefined` for 204; a Redirect for a 302. */
export type DataOf<Op> = [JsonBody<Successes<Op>>] extends [never]
  ? [FileBody<Successes<Op>>] extends [never]
    ? Redirects<Op> extends true
      ? Redirect
      : undefined
    : Blob
  : JsonBody<Successes<Op>> extends { data: infer D }
    ? D
    : never;

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallOptions)?] : [Init & CallOptions];

export type Call<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<DataOf<paths[P][M]>>;

export interface CloudClient {
  get: Call<'get'>;
  post: Call<'post'>;
  put: Call<'put'>;
  patch: Call<'patch'>;
  delete: Call<'delete'>;
  /** Polls `read` until `until` holds of what it returns; see WaitOptions. */
  waitFor: typeof waitFor;
  /** The /v1 address calls go to. */
  readonly apiUrl: string;
}

/** `/v1` of the platform at `baseUrl`, whether or not the caller wrote it. */
export function apiUrlOf(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

/**
 * A client of every /v1 operation, typed from the OpenAPI document: paths, parameters, bodies and
 * answers are the generated `paths`. A call resolves to the envelope's `data` and rejects with one
 * ApiError; writes carry an Idempotency-Key and are retried as the transport describes.
 */
export function createClient(options: ClientOptions = {}): CloudClient {
  const apiUrl = apiUrlOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'cloudpanel-sdk/1.0.0' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const raw = createFetchClient<paths>({
    baseUrl: apiUrl,
    headers: { ...headers, ...options.headers },
    // JSON, except a file's bytes, which go as they are.
    bodySerializer: (body: unknown) => (body instanceof Blob ? body : JSON.stringify(body)),
    fetch: retryingFetch(options),
    // The API redirects only where a browser must go (the OAuth starts); the caller gets the address instead.
    redirect: 'manual',
  });

  function caller<M extends HttpMethod>(method: M): Call<M> {
    return (async (path: string, init?: Record<string, unknown> & CallOptions) => {
      const { idempotencyKey, ...rest } = init ?? {};
      const callHeaders: Record<string, string> = { ...(rest.headers as Record<string, string> | undefined) };
      if (idempotencyKey !== undefined) callHeaders[IDEMPOTENCY_HEADER] = idempotencyKey;
      if (rest.body instanceof Blob) callHeaders['content-type'] = rest.body.type || 'application/octet-stream';
      try {
        // The body is left unread ('stream'), so dataOf reads it as what its Content-Type says: the envelope, or a file.
        const result = await raw.request(method as never, path as never, { ...rest, headers: callHeaders, parseAs: 'stream' } as never);
        return await dataOf(result);
      } catch (err) {
        throw failureWithoutAnswer(err, init?.signal);
      }
    }) as Call<M>;
  }

  return { get: caller('get'), post: caller('post'), put: caller('put'), patch: caller('patch'), delete: caller('delete'), waitFor, apiUrl };
}

async function dataOf({ data, error, response }: { data?: unknown; error?: unknown; response: Response }): Promise<unknown> {
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    if (location) return { location } satisfies Redirect;
  }
  if (!response.ok) throw apiErrorFrom(response, error);
  if (data === undefined) return undefined;
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) return response.blob();
  const body: unknown = JSON.parse(await response.text());
  if (typeof body === 'object' && body !== null && (body as { success?: unknown }).success === true) return (body as { data: unknown }).data;
  throw apiErrorFrom(response, body);
}

function failureWithoutAnswer(err: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted || err instanceof ApiError) return err;
  if (err instanceof SyntaxError)
    return new ApiError({ status: 0, code: CLIENT_CODES.unexpected, message: `The answer was not JSON: ${err.message}`, cause: err });
  const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  return new ApiError({ status: 0, code: CLIENT_CODES.network, message: `No answer from the API: ${reason}`, cause: err });
}

export type { WaitOptions };

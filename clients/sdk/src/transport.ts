import { retryAfterOf } from './errors.ts';

export interface RetryOptions {
  /** Attempts after the first; 0 turns retrying off. Default 4. */
  retries?: number;
  /** The first back-off step; each next one doubles, with full jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** No single wait is longer than this, Retry-After included. Default 30 s. */
  maxDelayMs?: number;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** The status that is retried, or 0 when the request got no answer. */
  status: number;
  delayMs: number;
  method: string;
  url: string;
}

export interface TransportOptions extends RetryOptions {
  fetch?: (request: Request) => Promise<Response>;
  /** Called before each wait, so a tool can say why it is slow. */
  onRetry?: (event: RetryEvent) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  newKey?: () => string;
}

const DEFAULTS = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };
/** Answers that say nothing was done, or that the platform was briefly unavailable: trying again is safe and may succeed. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * A fetch that makes calls safe to repeat and repeats them: every write gets an Idempotency-Key
 * (unless the caller chose one) and every retry of it sends the same key, so the API runs a write
 * at most once however many times it is sent. Rate limits (429), gateway failures (502, 503, 504)
 * and requests that got no answer are retried with exponential back-off, waiting at least what
 * Retry-After asks. A 409 IDEMPOTENCY_IN_PROGRESS on a retry means our own earlier attempt is still
 * running, so it is waited out the same way.
 */
export function retryingFetch(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = options.retries ?? DEFAULTS.retries;
  const baseDelayMs = options.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const newKey = options.newKey ?? (() => crypto.randomUUID());

  return async (request: Request) => {
    if (WRITE_METHODS.has(request.method) && !request.headers.has(IDEMPOTENCY_HEADER)) request.headers.set(IDEMPOTENCY_HEADER, newKey());
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (err) {
        if (last || request.signal.aborted) throw err;
        await wait(0, undefined, attempt);
        continue;
      }
      if (last || !(await worthRetrying(response, attempt))) return response;
      const retryAfter = retryAfterOf(response.headers.get('retry-after'));
      // A wait longer than the client will ever make is the caller's decision, not ours.
      if ((retryAfter ?? 0) * 1000 > maxDelayMs) return response;
      await response.body?.cancel();
      await wait(response.status, retryAfter, attempt);
    }

    async function wait(status: number, retryAfterSeconds: number | undefined, attempt: number): Promise<void> {
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * random();
      const delayMs = Math.round(Math.max(backoff, (retryAfterSeconds ?? 0) * 1000));
      options.onRetry?.({ attempt: attempt + 1, status, delayMs, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
    }
  };
}

async function worthRetrying(response: Response, attempt: number): Promise<boolean> {
  if (RETRIED_STATUSES.has(response.status)) return true;
  if (response.status !== 409 || attempt === 0) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { error?: { code?: unknown } } | undefined;
  return body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS';
}

/** A request's signal ends the wait, so an abort during back-off is not held up by it. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

export interface WaitOptions<T> {
  /** The state to wait for. */
  until: (value: T) => boolean;
  /** A state that will never become the wanted one (a build FAILED, a server in ERROR): the reason to give up with. */
  failWhen?: (value: T) => string | undefined | false;
  /** Default 10 minutes. */
  timeoutMs?: number;
  /** Between reads; default 2 s. */
  intervalMs?: number;
  /** Told every value read that is not yet the wanted one, so a tool can show progress; the wanted one is what waitFor answers. */
  onPoll?: (value: T) => void;
  signal?: AbortSignal;
}

/** Waiting ended without the wanted state: it timed out (`reason: 'timeout'`) or `failWhen` said it never will. */
export class WaitError<T = unknown> extends Error {
  readonly reason: 'timeout' | 'failed';
  /** The value last read. */
  readonly last: T;

  constructor(reason: 'timeout' | 'failed', message: string, last: T) {
    super(message);
    this.name = 'WaitError';
    this.reason = reason;
    this.last = last;
  }
}

/**
 * Reads a resource until it reaches a state, e.g. a server RUNNING, a Redis database ready, a tenant
 * database ACTIVE: `await waitFor(() => client.get(path, init), { until: (s) => s.status === 'RUNNING' })`.
 * A failed read rejects at once (its ApiError); the client's own retries already cover brief outages.
 */
export async function waitFor<T>(read: () => Promise<T>, options: WaitOptions<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  const intervalMs = options.intervalMs ?? 2_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await read();
    if (options.until(value)) return value;
    options.onPoll?.(value);
    const failure = options.failWhen?.(value);
    if (failure) throw new WaitError('failed', failure, value);
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitError('timeout', `Still not there after ${Math.round(timeoutMs / 1000)} s`, value);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}

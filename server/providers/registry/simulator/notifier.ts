import { getLogger } from '../../../platform/logger';
import type { RegistryNotification } from './events';

export const EVENTS_MEDIA_TYPE = 'application/vnd.docker.distribution.events.v1+json';

export interface NotifierOptions {
  url: string;
  /** The Authorization header value sent with every delivery. */
  authorization: string;
  /** Per delivery attempt, as the endpoint's `timeout`. */
  timeoutMs?: number;
  /** Wait after the first failed attempt; doubles on each further failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Delivers events to one endpoint the way Distribution's endpoint sink does: in memory, in order,
 * one event per envelope, the next only once the receiver accepted the previous one (any 2xx or
 * 3xx), so a receiver that fails or is down holds the queue back until it recovers. Queued events
 * are lost with the process, as they are with Distribution.
 */
export class Notifier {
  private readonly queue: RegistryNotification[] = [];
  private running: Promise<void> = Promise.resolve();
  private draining = false;
  private closed = false;
  private readonly stop = new AbortController();
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly options: NotifierOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
  }

  publish(event: RegistryNotification): void {
    if (this.closed) return;
    this.queue.push(event);
    if (!this.draining) {
      this.draining = true;
      this.running = this.drain();
    }
  }

  /** Stops delivering and retrying; what is still queued is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    await this.running;
  }

  private async drain(): Promise<void> {
    let backoff = this.backoffMs;
    try {
      while (!this.closed && this.queue.length > 0) {
        if (await this.deliver(this.queue[0]!)) {
          this.queue.shift();
          backoff = this.backoffMs;
          continue;
        }
        if (this.closed) return;
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, this.maxBackoffMs);
      }
    } finally {
      // In the same turn as the empty-queue check, so a publish can never find a drain about to end.
      this.draining = false;
    }
  }

  private async deliver(event: RegistryNotification): Promise<boolean> {
    try {
      const res = await fetch(this.options.url, {
        method: 'POST',
        headers: { 'Content-Type': EVENTS_MEDIA_TYPE, Authorization: this.options.authorization },
        // Distribution indents its envelopes with three spaces.
        body: JSON.stringify({ events: [event] }, null, 3),
        redirect: 'manual',
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 400) return true;
      if (!this.closed) getLogger().warn({ status: res.status, eventId: event.id }, 'registry simulator: notification refused; retrying');
      return false;
    } catch (err) {
      if (!this.closed) getLogger().warn({ err: (err as Error).message, eventId: event.id }, 'registry simulator: notification failed; retrying');
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.stop.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.stop.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

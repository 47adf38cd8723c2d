import { sql } from 'drizzle-orm';
import { getDb } from '../../../../db';
import { s3GatewayTraffic } from '../../../../db/schema';
import { getLogger } from '../../../platform/logger';

const HOUR_MS = 3600 * 1000;

/**
 * Requests and bytes sent per bucket and hour, counted in memory and added to `s3_gateway_traffic`
 * every few seconds (and on stop), so a request costs no database write.
 */
export class TrafficMeter {
  private counts = new Map<string, { bucket: string; hour: Date; requests: number; egressBytes: number }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly intervalMs: number) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  count(bucket: string, egressBytes: number, at = Date.now()): void {
    const hour = new Date(Math.floor(at / HOUR_MS) * HOUR_MS);
    const key = `${bucket}\u0000${hour.toISOString()}`;
    const entry = this.counts.get(key) ?? { bucket, hour, requests: 0, egressBytes: 0 };
    entry.requests += 1;
    entry.egressBytes += egressBytes;
    this.counts.set(key, entry);
  }

  /** Writes what was counted; counts that fail to be written are kept for the next flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0) return;
      const batch = [...this.counts.values()];
      this.counts = new Map();
      try {
        const db = await getDb();
        await db
          .insert(s3GatewayTraffic)
          .values(batch)
          .onConflictDoUpdate({
            target: [s3GatewayTraffic.bucket, s3GatewayTraffic.hour],
            set: {
              requests: sql`${s3GatewayTraffic.requests} + excluded.requests`,
              egressBytes: sql`${s3GatewayTraffic.egressBytes} + excluded.egress_bytes`,
            },
          });
      } catch (err) {
        for (const entry of batch) {
          const key = `${entry.bucket}\u0000${entry.hour.toISOString()}`;
          const later = this.counts.get(key);
          this.counts.set(key, later ? { ...entry, requests: entry.requests + later.requests, egressBytes: entry.egressBytes + later.egressBytes } : entry);
        }
        getLogger().warn({ err }, 'object storage: traffic counts not written; retrying at the next flush');
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

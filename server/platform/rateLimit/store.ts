import type { GcraOutcome, GcraStep } from './gcra';

/**
 * Where budgets live. Memory serves the embedded single-process default; PostgreSQL and Redis are
 * shared by every instance, so a caller has one budget however many processes answer it.
 */
export interface RateLimitStore {
  readonly kind: 'memory' | 'postgres' | 'redis';
  /** Runs one GCRA step on the key, atomically with respect to everyone else using the same store. */
  apply(key: string, step: GcraStep): Promise<GcraOutcome>;
  /** Drops the state whose time has passed (it says no more than no state at all); returns how many keys went. */
  purge(nowUs: number): Promise<number>;
  close(): Promise<void>;
}

import { advance } from '../gcra';
import type { RateLimitStore } from '../store';

/** Past state is swept at most this often, on the way through, so the map holds only live budgets. */
const SWEEP_EVERY_US = 60_000_000;

/** Budgets in this process's memory: right for the embedded default, which runs one process. */
export function createMemoryStore(): RateLimitStore {
  const tats = new Map<string, number>();
  let sweptAtUs = 0;

  function sweep(nowUs: number): number {
    let dropped = 0;
    for (const [key, tatUs] of tats) {
      if (tatUs <= nowUs) {
        tats.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  return {
    kind: 'memory',
    async apply(key, step) {
      if (step.nowUs - sweptAtUs >= SWEEP_EVERY_US) {
        sweep(step.nowUs);
        sweptAtUs = step.nowUs;
      }
      const outcome = advance(tats.get(key) ?? null, step);
      // A refused step leaves the TAT as it was, so storing the outcome is right either way.
      tats.set(key, outcome.tatUs);
      return outcome;
    },
    async purge(nowUs) {
      return sweep(nowUs);
    },
    async close() {},
  };
}

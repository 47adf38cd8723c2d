import type { Redis } from 'ioredis';
import type { RateLimitStore } from '../store';

/**
 * One GCRA step (see ../gcra.ts) as a script, so it runs atomically in Redis. Keys expire when
 * their TAT passes, which is when their state stops meaning anything: Redis needs no purge.
 * Numbers stay below 2^53 (microseconds since the epoch), exact in Lua's doubles and in the
 * integer replies.
 */
const STEP_SCRIPT = `
local now = tonumber(ARGV[1])
local step = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]))
local base = now
if tat and tat > now then base = tat end
local nxt = base + step
if nxt - now > capacity then return {0, base} end
if nxt > now then
  redis.call('SET', KEYS[1], nxt, 'PX', math.ceil((nxt - now) / 1000))
else
  redis.call('DEL', KEYS[1])
end
return {1, nxt}
`;

interface StepCommand {
  rateLimitStep(key: string, nowUs: number, stepUs: number, capacityUs: number): Promise<[number, number]>;
}

/** Budgets in Redis (`REDIS_URL`), shared by every instance using it; keys are `<prefix><rule key>`. */
export async function createRedisStore(options: { url: string; keyPrefix?: string }): Promise<RateLimitStore> {
  const { Redis } = await import('ioredis');
  // One retry, then the request fails: a limiter that waits for Redis to come back would hold every request.
  const client: Redis = new Redis(options.url, { maxRetriesPerRequest: 1 });
  client.defineCommand('rateLimitStep', { numberOfKeys: 1, lua: STEP_SCRIPT });
  const command = client as unknown as StepCommand;
  const prefix = options.keyPrefix ?? 'rate-limit:';
  return {
    kind: 'redis',
    async apply(key, step) {
      const [allowed, tatUs] = await command.rateLimitStep(`${prefix}${key}`, step.nowUs, step.cost * step.intervalUs, step.capacityUs);
      return { allowed: allowed === 1, tatUs };
    },
    async purge() {
      return 0;
    },
    async close() {
      await client.quit();
    },
  };
}

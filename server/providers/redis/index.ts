import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';
import { EmbeddedRedisProvider } from './embedded';
import { ManagedApiRedisProvider } from './managedApi';
import { RedisSimulator } from './simulator';
import type { RedisProvider } from './types';

export type { RedisEndpoint, RedisPersistence, RedisProvider, RedisSpec, RedisStatus, RedisUsage } from './types';
export { REDIS_PERSISTENCE } from './types';

/** The executable a name or path stands for: a name is looked up in PATH, as a shell would. */
export function findExecutable(nameOrPath: string): string | null {
  const candidates = nameOrPath.includes('/')
    ? [path.resolve(nameOrPath)]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, nameOrPath));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * One provider per process, shared through globalThis: the panel's Next bundle and the REST bridge
 * load this module separately, and the embedded provider supervises the processes it started, so a
 * second instance would restart what the first one stops.
 */
const holder = globalThis as unknown as { __redisProvider?: RedisProvider };

/** The Redis provider named by REDIS_PROVIDER, made once per process; embedded falls back to the simulator without a binary. */
export function getRedisProvider(): RedisProvider {
  holder.__redisProvider ??= makeRedisProvider();
  return holder.__redisProvider;
}

function makeRedisProvider(): RedisProvider {
  const config = getConfig();
  if (config.REDIS_PROVIDER === 'managed-api') {
    if (!config.REDIS_API_URL || !config.REDIS_API_EMAIL || !config.REDIS_API_KEY) {
      throw new Error('REDIS_API_URL, REDIS_API_EMAIL and REDIS_API_KEY are required when REDIS_PROVIDER=managed-api');
    }
    return new ManagedApiRedisProvider({
      apiUrl: config.REDIS_API_URL,
      email: config.REDIS_API_EMAIL,
      apiKey: config.REDIS_API_KEY,
      primaryRegion: config.REDIS_API_REGION,
      readRegion: config.REDIS_API_READ_REGION,
      timeoutMs: config.REDIS_API_TIMEOUT_SECONDS * 1000,
    });
  }
  const binary = config.REDIS_PROVIDER === 'embedded' ? findExecutable(config.REDIS_SERVER_BINARY) : null;
  if (binary) {
    return new EmbeddedRedisProvider({
      binary,
      rootDir: path.resolve(config.DATA_DIR, 'redis'),
      ports: config.REDIS_PORT_RANGE,
      startTimeoutMs: config.REDIS_START_TIMEOUT_SECONDS * 1000,
    });
  }
  if (config.REDIS_PROVIDER === 'embedded') {
    getLogger().warn({ binary: config.REDIS_SERVER_BINARY }, 'redis-server not found: Redis databases are simulated');
    return new RedisSimulator({ reason: `no ${config.REDIS_SERVER_BINARY} binary found` });
  }
  return new RedisSimulator({ reason: 'REDIS_PROVIDER=simulator' });
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetRedisProviderForTests(): void {
  holder.__redisProvider = undefined;
}

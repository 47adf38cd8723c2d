import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { findExecutable, getRedisProvider, resetRedisProviderForTests } from './index';

const NAMES = ['REDIS_PROVIDER', 'REDIS_SERVER_BINARY', 'REDIS_PORT_RANGE', 'DATA_DIR'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
const dataDir = mkdtempSync(path.join(tmpdir(), 'redis-factory-'));

function configure(env: Partial<Record<(typeof NAMES)[number], string>>): void {
  for (const name of NAMES) delete process.env[name];
  Object.assign(process.env, { DATA_DIR: dataDir, ...env });
  resetConfigForTests();
  resetRedisProviderForTests();
}
afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfigForTests();
  resetRedisProviderForTests();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('Redis provider from configuration', () => {
  it.skipIf(!findExecutable('redis-server'))('is embedded by default when redis-server is installed', () => {
    configure({});
    const provider = getRedisProvider();
    expect(provider.kind).toBe('embedded');
    expect(provider.description).toMatch(/redis-server process per database on 127\.0\.0\.1, ports 16379-16999/);
  });

  it('falls back to the simulator, saying so, when the binary is missing', () => {
    configure({ REDIS_SERVER_BINARY: '/nonexistent/redis-server' });
    const provider = getRedisProvider();
    expect(provider.kind).toBe('simulator');
    expect(provider.description).toMatch(/no \/nonexistent\/redis-server binary found/);
  });

  it('runs the simulator when asked to', () => {
    configure({ REDIS_PROVIDER: 'simulator' });
    expect(getRedisProvider()).toMatchObject({ kind: 'simulator', description: expect.stringMatching(/REDIS_PROVIDER=simulator/) });
  });

  it('reads the port range and refuses a bad one', () => {
    configure({ REDIS_PORT_RANGE: '20000-20010' });
    expect(getConfig().REDIS_PORT_RANGE).toEqual({ first: 20000, last: 20010 });
    configure({ REDIS_PORT_RANGE: '20010-20000' });
    expect(() => getConfig()).toThrow(/REDIS_PORT_RANGE must be/);
  });
});

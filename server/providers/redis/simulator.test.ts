import { afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { RedisSimulator } from './simulator';
import type { RedisSpec } from './types';

const saved = { ...process.env };
function configure(env: Record<string, string>): void {
  Object.assign(process.env, env);
  resetConfigForTests();
}
afterEach(() => {
  for (const name of ['REDIS_SIM_PROVISION_SECONDS', 'REDIS_SIM_FAIL']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfigForTests();
});

const MB = 1024 * 1024;
let clock = Date.parse('2026-06-10T12:00:00Z');
const advance = (seconds: number) => {
  clock += seconds * 1000;
};
const simulator = () => new RedisSimulator({ now: () => clock, reason: 'tests' });

let counter = 0;
const spec = (overrides: Partial<RedisSpec> = {}): RedisSpec => ({
  id: `rds_sim${++counter}`,
  memoryMb: 1024,
  replication: false,
  persistence: 'NONE',
  ...overrides,
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === code);
}

describe('Redis simulator', () => {
  it('says it is a simulator and why', () => {
    const sim = simulator();
    expect(sim.kind).toBe('simulator');
    expect(sim.description).toMatch(/simulated.*\(tests\)/i);
  });

  it('is provisioning for REDIS_SIM_PROVISION_SECONDS, then ready, with zero usage until then', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '30' });
    const sim = simulator();
    const input = spec({ memoryMb: 1024, replication: true });
    const endpoint = await sim.provision(input);
    expect(endpoint).toMatchObject({ port: 6379, tls: false });
    expect(endpoint.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await sim.provision(input)).toEqual(endpoint);
    expect(await sim.status(input.id)).toBe('provisioning');
    expect(await sim.usage(input.id)).toEqual({ memoryUsedBytes: 0, memoryLimitBytes: 512 * MB, networkInBytes: 0, networkOutBytes: 0, operations: 0 });
    advance(29);
    expect(await sim.status(input.id)).toBe('provisioning');
    advance(1);
    expect(await sim.status(input.id)).toBe('ready');
  });

  it('reports usage that grows with time and stays within the limit', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '0' });
    const sim = simulator();
    const input = spec({ memoryMb: 256 });
    await sim.provision(input);
    advance(60);
    const early = await sim.usage(input.id);
    advance(3600);
    const later = await sim.usage(input.id);
    expect(early.operations).toBeGreaterThan(0);
    expect(later.operations).toBeGreaterThan(early.operations);
    expect(later.networkInBytes).toBeGreaterThan(early.networkInBytes);
    expect(later.networkOutBytes).toBeGreaterThan(later.networkInBytes);
    expect(later.memoryUsedBytes).toBeGreaterThan(early.memoryUsedBytes);
    expect(later.memoryUsedBytes).toBeLessThanOrEqual(256 * MB);
    expect(later.memoryLimitBytes).toBe(256 * MB);
  });

  it('deprovisions idempotently and answers NOT_FOUND afterwards', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '0' });
    const sim = simulator();
    const input = spec();
    await sim.provision(input);
    await sim.deprovision(input.id);
    await sim.deprovision(input.id);
    await expectCode(sim.status(input.id), 'NOT_FOUND');
    await expectCode(sim.usage(input.id), 'NOT_FOUND');
  });

  it('fails the operations named in REDIS_SIM_FAIL with UPSTREAM_ERROR', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '0' });
    const sim = simulator();
    const input = spec();
    await sim.provision(input);
    configure({ REDIS_SIM_FAIL: 'provision,status,usage,deprovision' });
    await expectCode(sim.provision(spec()), 'UPSTREAM_ERROR');
    await expectCode(sim.status(input.id), 'UPSTREAM_ERROR');
    await expectCode(sim.usage(input.id), 'UPSTREAM_ERROR');
    await expectCode(sim.deprovision(input.id), 'UPSTREAM_ERROR');
    configure({ REDIS_SIM_FAIL: '' });
    expect(await sim.status(input.id)).toBe('ready');
  });

  it('refuses an invalid spec', async () => {
    const sim = simulator();
    await expectCode(sim.provision({ ...spec(), memoryMb: -1 }), 'VALIDATION_ERROR');
    await expectCode(sim.provision({ ...spec(), id: 'a/b' }), 'VALIDATION_ERROR');
  });

  it('makes new databases end failed with REDIS_SIM_FAIL=start', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '10', REDIS_SIM_FAIL: 'start' });
    const sim = simulator();
    const input = spec();
    await sim.provision(input);
    expect(await sim.status(input.id)).toBe('provisioning');
    advance(10);
    expect(await sim.status(input.id)).toBe('failed');
  });

  it('brings known ids back as ready on adoption', async () => {
    configure({ REDIS_SIM_PROVISION_SECONDS: '10' });
    const sim = simulator();
    await sim.adopt(['rds_known']);
    expect(await sim.status('rds_known')).toBe('ready');
    await expectCode(sim.status('rds_other'), 'NOT_FOUND');
  });

  it('refuses an unknown REDIS_SIM_FAIL operation at start', () => {
    configure({ REDIS_SIM_FAIL: 'explode' });
    expect(() => getConfig()).toThrow(/REDIS_SIM_FAIL: unknown operation "explode"/);
  });
});

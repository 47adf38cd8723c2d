import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { EmbeddedRedisProvider } from './embedded';
import { findExecutable } from './index';
import type { RedisEndpoint, RedisPersistence, RedisProvider, RedisSpec } from './types';

const binary = findExecutable('redis-server');
const rootDir = mkdtempSync(path.join(tmpdir(), 'redis-provider-'));
// A range of its own per test file, away from the default, so parallel files never compete for a port.
const ports = { first: 27_400, last: 27_499 };
const MB = 1024 * 1024;

const providers: EmbeddedRedisProvider[] = [];
function makeProvider(): EmbeddedRedisProvider {
  const made = new EmbeddedRedisProvider({ binary: binary!, rootDir, ports, startTimeoutMs: 15_000 });
  providers.push(made);
  return made;
}

const clients: Redis[] = [];
function connect(endpoint: Pick<RedisEndpoint, 'port'> & { password?: string }): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port: endpoint.port,
    password: endpoint.password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

async function untilStatus(provider: RedisProvider, id: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let status = await provider.status(id);
  while (status !== wanted && Date.now() < deadline) {
    await sleep(100);
    status = await provider.status(id);
  }
  expect(status).toBe(wanted);
}

/** What the server answers to inline commands, read until it has answered each line. */
async function rawReply(port: number, commands: string): Promise<string> {
  const socket = createConnection({ host: '127.0.0.1', port });
  let reply = '';
  const lines = commands.split('\r\n').filter(Boolean).length;
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const answers = reply.split('\r\n').filter((l) => /^[+\-:]/.test(l) || (l.startsWith('$') && l !== '$-1')).length;
      if (answers >= lines) resolve();
    });
    socket.write(commands);
  });
  socket.destroy();
  return reply;
}

let counter = 0;
const spec = (overrides: Partial<RedisSpec> = {}): RedisSpec => ({
  id: `rds_test${++counter}`,
  memoryMb: 64,
  replication: false,
  persistence: 'NONE',
  ...overrides,
});

const pidOf = (id: string, role: 'primary' | 'replica') => Number(readFileSync(path.join(rootDir, id, role, 'redis.pid'), 'utf8'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const provisioned: string[] = [];
const provider = makeProvider();
async function provisionReady(input: RedisSpec): Promise<RedisEndpoint> {
  provisioned.push(input.id);
  const endpoint = await provider.provision(input);
  await untilStatus(provider, input.id, 'ready');
  return endpoint;
}

afterAll(async () => {
  for (const client of clients) client.disconnect();
  // Every provider object of this file lets go first, so none supervises (restarts) what is being stopped.
  for (const made of providers) await made.shutdown();
  for (const id of provisioned) await makeProvider().deprovision(id);
  rmSync(rootDir, { recursive: true, force: true });
});

describe.skipIf(!binary)('embedded Redis provider', () => {
  it('starts a database reachable with the returned password only, its config file private', async () => {
    const input = spec();
    const endpoint = await provisionReady(input);
    expect(endpoint).toMatchObject({ host: '127.0.0.1', tls: false });
    expect(endpoint.port).toBeGreaterThanOrEqual(ports.first);
    expect(endpoint.password.length).toBeGreaterThanOrEqual(24);

    const client = connect(endpoint);
    await client.connect();
    await client.set('greeting', 'hello');
    expect(await client.get('greeting')).toBe('hello');

    expect(await rawReply(endpoint.port, 'GET greeting\r\n')).toMatch(/^-NOAUTH/);
    expect(await rawReply(endpoint.port, 'AUTH wrong-password\r\nGET greeting\r\n')).toMatch(/^-WRONGPASS.*\r\n-NOAUTH/);
    expect(await rawReply(endpoint.port, `AUTH ${endpoint.password}\r\nGET greeting\r\n`)).toBe('+OK\r\n$5\r\nhello\r\n');

    expect(statSync(path.join(rootDir, input.id, 'primary', 'redis.conf')).mode & 0o777).toBe(0o600);
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    await expect(client.config('SET', 'dir', tmpdir())).rejects.toThrow(/protected config/);
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(64 * MB)]);
    expect(await provider.provision(input)).toEqual(endpoint);
  });

  it('splits the memory between a primary and an attached replica that receives the writes', async () => {
    const endpoint = await provisionReady(spec({ memoryMb: 128, replication: true }));
    const primary = connect(endpoint);
    await primary.connect();
    expect(await primary.config('GET', 'maxmemory')).toEqual(['maxmemory', String(64 * MB)]);
    expect(await primary.info('replication')).toMatch(/^connected_slaves:1\r?$/m);
    const replicaPort = Number(/^slave0:ip=[^,]+,port=(\d+)/m.exec(await primary.info('replication'))![1]);
    const replica = connect({ port: replicaPort, password: endpoint.password });
    await replica.connect();
    expect(await replica.config('GET', 'maxmemory')).toEqual(['maxmemory', String(64 * MB)]);
    await primary.set('copied', 'yes');
    await primary.wait(1, 5000);
    expect(await replica.get('copied')).toBe('yes');
  });

  const mappings: Array<[RedisPersistence, string, string | null, string]> = [
    ['NONE', 'no', null, ''],
    ['AOF_EVERY_WRITE', 'yes', 'always', ''],
    ['AOF_EVERY_1_SECOND', 'yes', 'everysec', ''],
    ['SNAPSHOT_EVERY_1_HOUR', 'no', null, '3600 1'],
    ['SNAPSHOT_EVERY_6_HOURS', 'no', null, '21600 1'],
    ['SNAPSHOT_EVERY_12_HOURS', 'no', null, '43200 1'],
  ];
  it.each(mappings)('maps persistence %s to appendonly %s, appendfsync %s, save "%s"', async (persistence, appendonly, appendfsync, save) => {
    const endpoint = await provisionReady(spec({ persistence }));
    const client = connect(endpoint);
    await client.connect();
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', appendonly]);
    if (appendfsync) expect(await client.config('GET', 'appendfsync')).toEqual(['appendfsync', appendfsync]);
    expect(await client.config('GET', 'save')).toEqual(['save', save]);
  });

  it('reads usage from INFO', async () => {
    const input = spec({ memoryMb: 32 });
    const endpoint = await provisionReady(input);
    const before = await provider.usage(input.id);
    const client = connect(endpoint);
    await client.connect();
    await client.set('big', 'x'.repeat(200_000));
    for (let i = 0; i < 20; i += 1) await client.get('big');
    const after = await provider.usage(input.id);
    expect(after.memoryLimitBytes).toBe(32 * MB);
    expect(after.memoryUsedBytes).toBeGreaterThan(before.memoryUsedBytes + 150_000);
    expect(after.operations).toBeGreaterThanOrEqual(before.operations + 21);
    expect(after.networkInBytes).toBeGreaterThan(before.networkInBytes + 200_000);
    expect(after.networkOutBytes).toBeGreaterThan(before.networkOutBytes + 20 * 200_000);
  });

  it('deprovisions: every process stops, the directory goes, and it can be repeated', async () => {
    const input = spec({ replication: true });
    const endpoint = await provisionReady(input);
    const pids = [pidOf(input.id, 'primary'), pidOf(input.id, 'replica')];
    expect(pids.every(alive)).toBe(true);
    await provider.deprovision(input.id);
    expect(pids.some(alive)).toBe(false);
    expect(existsSync(path.join(rootDir, input.id))).toBe(false);
    await expect(connect(endpoint).connect()).rejects.toThrow();
    await provider.deprovision(input.id);
    await expect(provider.status(input.id)).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND');
    await expect(provider.usage(input.id)).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND');
  });

  it('deprovisions a database still starting without leaving a process behind', async () => {
    const input = spec({ replication: true });
    provisioned.push(input.id);
    const endpoint = await provider.provision(input);
    await provider.deprovision(input.id);
    expect(existsSync(path.join(rootDir, input.id))).toBe(false);
    await sleep(500);
    await expect(connect(endpoint).connect()).rejects.toThrow();
  });

  it('starts a process that dies on its own again, on its port, and never logs the password', async () => {
    const logger = getLogger();
    const calls = (['info', 'warn', 'error'] as const).map((level) => vi.spyOn(logger, level));
    try {
      const input = spec({ replication: true });
      const endpoint = await provisionReady(input);
      const pid = pidOf(input.id, 'primary');
      process.kill(pid, 'SIGKILL');
      while (alive(pid)) await sleep(20);
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && !(existsSync(path.join(rootDir, input.id, 'primary', 'redis.pid')) && pidOf(input.id, 'primary') !== pid))
        await sleep(50);
      await untilStatus(provider, input.id, 'ready');
      const client = connect(endpoint);
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      expect(calls.some((spy) => spy.mock.calls.some((args) => JSON.stringify(args).includes('redis-server exited')))).toBe(true);
      expect(calls.every((spy) => !JSON.stringify(spy.mock.calls).includes(endpoint.password))).toBe(true);
    } finally {
      for (const spy of calls) spy.mockRestore();
    }
  });

  it('adopts running databases after an app restart and restarts a killed one with its port and password', async () => {
    const running = spec();
    const killed = spec({ replication: true, persistence: 'AOF_EVERY_WRITE' });
    const runningEndpoint = await provisionReady(running);
    const killedEndpoint = await provisionReady(killed);
    const writer = connect(killedEndpoint);
    await writer.connect();
    await writer.set('survives', 'restart');
    writer.disconnect();
    const runningPid = pidOf(running.id, 'primary');
    const killedPids = [pidOf(killed.id, 'primary'), pidOf(killed.id, 'replica')];
    await provider.shutdown();
    for (const pid of killedPids) process.kill(pid, 'SIGKILL');
    while (killedPids.some(alive)) await sleep(20);
    expect(alive(runningPid)).toBe(true);

    const unknown = spec();
    await provisionReady(unknown);
    const unknownPid = pidOf(unknown.id, 'primary');
    await provider.shutdown();

    const restarted = makeProvider();
    const warn = vi.spyOn(getLogger(), 'warn');
    try {
      await restarted.adopt([running.id, killed.id]);
      expect(JSON.stringify(warn.mock.calls)).toContain(unknown.id);
    } finally {
      warn.mockRestore();
    }
    expect(alive(unknownPid)).toBe(true);
    expect(existsSync(path.join(rootDir, unknown.id, 'instance.json'))).toBe(true);
    expect(await restarted.status(running.id)).toBe('ready');
    expect(pidOf(running.id, 'primary')).toBe(runningPid);
    expect(await restarted.status(killed.id)).toBe('ready');
    expect(killedPids).not.toContain(pidOf(killed.id, 'primary'));
    expect(await restarted.provision(killed)).toEqual(killedEndpoint);

    const reader = connect(killedEndpoint);
    await reader.connect();
    expect(await reader.get('survives')).toBe('restart');
    expect(await reader.info('replication')).toMatch(/^connected_slaves:1\r?$/m);
    const other = connect(runningEndpoint);
    await other.connect();
    expect(await other.ping()).toBe('PONG');
  });

  it('answers UPSTREAM_ERROR when no port is free and NOT_FOUND for unknown ids', async () => {
    const cramped = new EmbeddedRedisProvider({
      binary: binary!,
      rootDir: path.join(rootDir, 'cramped'),
      ports: { first: 27_399, last: 27_399 },
      startTimeoutMs: 5000,
    });
    providers.push(cramped);
    const server = (await import('node:net')).createServer().listen(27_399, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      await expect(cramped.provision(spec())).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'UPSTREAM_ERROR');
    } finally {
      server.close();
    }
    await expect(provider.status('rds_unknown')).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND');
    await expect(provider.status('../etc')).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND');
  });

  it('marks a database failed when redis-server cannot start, and a retried provision starts it', async () => {
    const broken = new EmbeddedRedisProvider({ binary: '/bin/false', rootDir, ports, startTimeoutMs: 1500 });
    providers.push(broken);
    const input = spec();
    provisioned.push(input.id);
    const endpoint = await broken.provision(input);
    await untilStatus(broken, input.id, 'failed');

    const repaired = makeProvider();
    expect(await repaired.status(input.id)).toBe('failed');
    expect(await repaired.provision(input)).toEqual(endpoint);
    await untilStatus(repaired, input.id, 'ready');
    const client = connect(endpoint);
    await client.connect();
    expect(await client.ping()).toBe('PONG');
  });

  it('refuses a spec it could not keep', async () => {
    const invalid = { ...spec(), memoryMb: 0.5 };
    await expect(provider.provision(invalid)).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === 'VALIDATION_ERROR');
    await expect(provider.provision({ ...spec(), id: '../escape' })).rejects.toSatisfy(
      (err: unknown) => err instanceof AppError && err.code === 'VALIDATION_ERROR',
    );
    expect(existsSync(path.join(rootDir, invalid.id))).toBe(false);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors';
import { resetConfigForTests } from '../../platform/config';
import { getTenantClusterProvider, resetTenantClusterProviderForTests, stopTenantClusterProvider } from './index';

const NAMES = ['DATABASES_ADMIN_URL', 'DATABASES_PUBLIC_HOST', 'DATABASES_DATA_DIR', 'DATABASES_POOL_PORT', 'DATABASES_PGBOUNCER_BINARY', 'DATA_DIR'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
const dataDir = mkdtempSync(path.join(tmpdir(), 'tenant-cluster-factory-'));

async function configure(env: Partial<Record<(typeof NAMES)[number], string>>): Promise<void> {
  await stopTenantClusterProvider();
  for (const name of NAMES) delete process.env[name];
  Object.assign(process.env, { DATA_DIR: dataDir, ...env });
  resetConfigForTests();
  resetTenantClusterProviderForTests();
}

afterEach(async () => {
  await stopTenantClusterProvider();
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetConfigForTests();
  resetTenantClusterProviderForTests();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('tenant cluster provider from configuration', () => {
  it('is unconfigured without DATABASES_ADMIN_URL: nothing starts, every call says what to set', async () => {
    await configure({ DATABASES_ADMIN_URL: '' });
    const provider = getTenantClusterProvider();
    expect(provider.kind).toBe('unconfigured');
    expect(provider.description).toMatch(/need DATABASES_ADMIN_URL/);
    await expect(provider.start([])).resolves.toBeUndefined();
    expect(provider.endpoints()).toEqual({ host: '127.0.0.1', port: 5432 });
    const roles = { dbName: 'shop', dbUser: 'shop_u', poolUser: 'shop_p' };
    const calls = [
      provider.assertReady(),
      provider.isNameTaken('shop'),
      provider.createTenant({ ...roles, password: 'x', maxConnections: 1, poolSize: 1, poolMode: 'TRANSACTION' }),
      provider.setPassword(roles, 'x'),
      provider.setLimits(roles, { maxConnections: 1, poolSize: 1 }, 'SESSION'),
      provider.setReadOnly(roles, true),
      provider.setLoginAllowed(roles, false),
      provider.revokeTenant(roles),
      provider.dropTenant(roles),
      provider.databaseSize('shop'),
    ];
    for (const call of calls) {
      const err = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect((err as AppError).message).toMatch(/DATABASES_ADMIN_URL.*scripts\/postgres-tenant-cluster\.sh/);
    }
  });

  it('answers with the public host even when unconfigured', async () => {
    await configure({ DATABASES_ADMIN_URL: '', DATABASES_PUBLIC_HOST: 'db.example.com' });
    expect(getTenantClusterProvider().endpoints()).toEqual({ host: 'db.example.com', port: 5432 });
  });

  it('runs on the cluster of the admin URL, one provider per process, connecting only when used', async () => {
    await configure({ DATABASES_ADMIN_URL: 'postgres://postgres@db.internal:6543/postgres', DATABASES_PGBOUNCER_BINARY: '/usr/sbin/pgbouncer' });
    const provider = getTenantClusterProvider();
    expect(provider).toBe(getTenantClusterProvider());
    expect(provider.kind).toBe('embedded');
    expect(provider.endpoints()).toEqual({ host: 'db.internal', port: 6543 });
    await configure({ DATABASES_ADMIN_URL: 'postgres://postgres@db.internal:6543/postgres', DATABASES_PUBLIC_HOST: 'db.example.com' });
    expect(getTenantClusterProvider().endpoints()).toMatchObject({ host: 'db.example.com', port: 6543 });
  });

  it('runs without a pooler when pgbouncer is not installed, and says so', async () => {
    await configure({ DATABASES_ADMIN_URL: 'postgres://postgres@127.0.0.1:5432/postgres', DATABASES_PGBOUNCER_BINARY: '/nonexistent/pgbouncer' });
    const provider = getTenantClusterProvider();
    expect(provider.description).toBe('Shared PostgreSQL tenants on the cluster at 127.0.0.1:5432; no pooler: pgbouncer not installed');
    expect(provider.endpoints().pool).toBeUndefined();
  });
});

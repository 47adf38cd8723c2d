import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getLogger } from '../../platform/logger';
import { freePort } from '../../platform/ports';
import { processes } from '../process/supervisedProcess';
import { findExecutable } from '../redis';
import { EmbeddedTenantCluster, parseTenantMark } from './embedded';
import type { TenantRoles, TenantSpec } from './types';

// Several processes of one host sharing DATABASES_DATA_DIR and DATABASES_POOL_PORT, played by two
// providers over the same folder and the same fixed port (each with its own connections to the
// cluster, as two processes have). Real cluster, real PgBouncer; every role and database made here
// has a random name and is dropped in afterAll, whatever happened.
const ADMIN_URL = process.env.TEST_TENANT_CLUSTER_URL;
const PGBOUNCER = findExecutable('pgbouncer') ?? findExecutable('/usr/sbin/pgbouncer');

describe('tenant pool marks', () => {
  it('reads the tenant and, on a pool login, the pool mode', () => {
    expect(parseTenantMark('platform tenant shop')).toEqual({ dbName: 'shop', poolMode: null });
    expect(parseTenantMark('platform tenant shop; pool_mode=session')).toEqual({ dbName: 'shop', poolMode: 'SESSION' });
    for (const mark of [null, '', 'platform tenant', 'platform tenant Shop', 'platform tenant shop; pool_mode=other', 'x platform tenant shop']) {
      expect(parseTenantMark(mark)).toBeNull();
    }
  });
});

describe.skipIf(!ADMIN_URL || !PGBOUNCER)('one PgBouncer shared by the processes of a host', () => {
  const made: TenantRoles[] = [];
  const clients: postgres.Sql[] = [];
  let dir: string;
  let poolerDir: string;
  let port: number;
  let first: EmbeddedTenantCluster;
  let second: EmbeddedTenantCluster;
  let su: postgres.Sql;

  function provider(): EmbeddedTenantCluster {
    return new EmbeddedTenantCluster({ adminUrl: ADMIN_URL!, pgbouncerBinary: PGBOUNCER, dir: poolerDir, poolPort: port, poolListenAddr: '127.0.0.1' });
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenant-pooler-shared-'));
    chmodSync(dir, 0o700);
    poolerDir = path.join(dir, 'pooler');
    port = await freePort();
    first = provider();
    second = provider();
    su = postgres(ADMIN_URL!, { max: 2, onnotice: () => {} });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 1 }).catch(() => undefined)));
  });

  afterAll(async () => {
    for (const roles of made) await second?.dropTenant(roles).catch((err: unknown) => console.error('could not drop test tenant', roles.dbName, err));
    await first?.stop();
    await second?.stop();
    for (const roles of made) {
      await su?.unsafe(`drop database if exists "${roles.dbName}" with (force)`).catch(() => undefined);
      for (const role of [roles.dbUser, roles.poolUser, roles.dbName]) await su?.unsafe(`drop role if exists "${role}"`).catch(() => undefined);
    }
    await su?.end({ timeout: 1 });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function newTenant(): TenantSpec {
    const dbName = `t${randomBytes(5).toString('hex')}`;
    made.push({ dbName, dbUser: `${dbName}_u`, poolUser: `${dbName}_p` });
    return {
      dbName,
      dbUser: `${dbName}_u`,
      poolUser: `${dbName}_p`,
      password: randomBytes(18).toString('base64url'),
      maxConnections: 2,
      poolSize: 2,
      poolMode: 'TRANSACTION',
    };
  }

  /** Through the pool at the shared port, as the tenant's application would connect. */
  function pooled(tenant: TenantSpec): postgres.Sql {
    const sql = postgres(`postgresql://${tenant.dbUser}:${encodeURIComponent(tenant.password)}@127.0.0.1:${port}/${tenant.dbName}?sslmode=require`, {
      max: 1,
      prepare: false,
      fetch_types: false,
      connect_timeout: 5,
      onnotice: () => {},
    });
    clients.push(sql);
    return sql;
  }

  async function reachable(tenant: TenantSpec): Promise<void> {
    const [row] = await pooled(tenant)<{ db: string }[]>`select current_database() as db`;
    expect(row?.db).toBe(tenant.dbName);
  }

  /** Live pgbouncer processes running in the shared folder, from /proc. */
  function poolerPids(): number[] {
    return processes((entry) => !entry.zombie)
      .filter((entry) => entry.cmdline.includes('pgbouncer.ini') && workingDirectory(entry.pid) === poolerDir)
      .map((entry) => entry.pid);
  }

  const tenants: TenantSpec[] = [];

  it('starts one PgBouncer for the folder; the second process uses it and loses no pool of the first', async () => {
    await first.start([]);
    const ownerPids = poolerPids();
    expect(ownerPids).toHaveLength(1);
    expect(first.description).toBe(`Shared PostgreSQL tenants on the cluster at 127.0.0.1:5432; PgBouncer on 127.0.0.1:${port}`);
    expect(statSync(path.join(poolerDir, 'admin.password')).mode & 0o777).toBe(0o600);

    const before = newTenant();
    await first.createTenant(before);
    tenants.push(before);
    await reachable(before);

    await second.start([]);
    expect(poolerPids()).toEqual(ownerPids);
    expect(second.endpoints().pool).toEqual({ host: '127.0.0.1', port });
    expect(second.description).toMatch(/PgBouncer on 127\.0\.0\.1:\d+ \(run by another process of this host\)$/);

    // A change through the second rewrites the files from the cluster: the first's pool stays.
    const after = newTenant();
    await second.createTenant(after);
    tenants.push(after);
    await reachable(after);
    await reachable(before);
    expect(poolerPids()).toEqual(ownerPids);

    // And the other way round, with changes of both processes at once (serialised by the lock).
    const [one, two] = [newTenant(), newTenant()];
    await Promise.all([first.createTenant(one), second.createTenant(two), second.setLimits(before, { maxConnections: 2, poolSize: 3 }, 'SESSION')]);
    tenants.push(one, two);
    for (const tenant of tenants) await reachable(tenant);
    const databases = await second.poolerDatabases();
    expect(
      databases
        .filter((row) => tenants.some((tenant) => tenant.dbName === row.name))
        .map((row) => row.name)
        .sort(),
    ).toEqual(tenants.map((tenant) => tenant.dbName).sort());
    expect(databases.find((row) => row.name === before.dbName)).toMatchObject({ poolSize: 3, poolMode: 'session' });
    expect(poolerPids()).toEqual(ownerPids);
  });

  it('makes a database read-only through the process that does not run PgBouncer', async () => {
    const tenant = tenants[0]!;
    await pooled(tenant)`create table if not exists items (body text)`;
    const open = pooled(tenant);
    await open`select 1`;
    await second.setReadOnly(tenant, true);
    await expect(pooled(tenant)`insert into items values ('x')`).rejects.toThrow(/read-only transaction/);
    // The pooled session open before cannot write either (dropped by KILL through the first's PgBouncer, or read-only).
    await expect(open`insert into items values ('x')`).rejects.toThrow();
    await second.setReadOnly(tenant, false);
    await pooled(tenant)`insert into items values ('x')`;
  });

  it('repairs a pool mode missing from a pool login from the records given to start', async () => {
    const tenant = tenants[1]!;
    await su.unsafe(`comment on role "${tenant.poolUser}" is 'platform tenant ${tenant.dbName}'`);
    await second.start([]);
    // Without the mode the cluster cannot say which login is the pool's: no pool until repaired.
    expect((await second.poolerDatabases()).map((row) => row.name)).not.toContain(tenant.dbName);
    await second.start([{ ...tenant, poolMode: 'STATEMENT' }]);
    const [mark] = await su<{ mark: string }[]>`select shobj_description(oid, 'pg_authid') as mark from pg_roles where rolname = ${tenant.poolUser}`;
    expect(mark?.mark).toBe(`platform tenant ${tenant.dbName}; pool_mode=statement`);
    expect((await second.poolerDatabases()).find((row) => row.name === tenant.dbName)).toMatchObject({ poolMode: 'statement', poolSize: 2 });
    // A mode on the cluster is never overruled by the records.
    await second.start([{ ...tenant, poolMode: 'SESSION' }]);
    expect((await second.poolerDatabases()).find((row) => row.name === tenant.dbName)?.poolMode).toBe('statement');
    await reachable(tenant);
  });

  it('when the owner stops, the next change of the other process starts PgBouncer with every pool', async () => {
    const [ownerPid] = poolerPids();
    await first.stop();
    await vi.waitFor(() => expect(poolerPids()).toEqual([]), { timeout: 10_000 });
    expect(second.endpoints().pool).toBeUndefined();

    const last = newTenant();
    await second.createTenant(last);
    tenants.push(last);
    const pids = poolerPids();
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(ownerPid);
    expect(second.description).toBe(`Shared PostgreSQL tenants on the cluster at 127.0.0.1:5432; PgBouncer on 127.0.0.1:${port}`);
    for (const tenant of tenants) await reachable(tenant);

    // The first comes back as a process that uses the second's PgBouncer.
    await first.start([]);
    expect(poolerPids()).toEqual(pids);
    expect(first.endpoints().pool).toEqual({ host: '127.0.0.1', port });
  });

  it('when PgBouncer dies, the process that needs it first starts it and its old owner stops supervising', async () => {
    const info = vi.spyOn(getLogger(), 'info');
    const [pid] = poolerPids();
    process.kill(pid!, 'SIGKILL');
    // The first process's change comes before the second's restart (a second after the death).
    await first.setReadOnly(tenants[0]!, false);
    const [started] = poolerPids();
    expect(started).not.toBe(pid);
    expect(first.description).not.toMatch(/another process/);
    // The second's restart finds it served and gives up supervising (rather than failing to bind, again and again).
    await vi.waitFor(() => expect(info).toHaveBeenCalledWith('pgbouncer is served by another process of this host; not starting another'), {
      timeout: 5000,
    });
    info.mockRestore();
    expect(poolerPids()).toEqual([started]);
    expect(second.description).toMatch(/\(run by another process of this host\)$/);
    expect(second.endpoints().pool).toEqual({ host: '127.0.0.1', port });
    for (const tenant of tenants) await reachable(tenant);
  });
});

function workingDirectory(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

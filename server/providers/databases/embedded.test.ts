import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../platform/errors';
import { findExecutable } from '../redis';
import { EmbeddedTenantCluster } from './embedded';
import type { PoolMode, TenantRoles, TenantSpec } from './types';

// The real cluster (prepared by scripts/postgres-tenant-cluster.sh) and the real PgBouncer. Every
// role and database made here has a random name and is dropped in afterAll, whatever happened.
const ADMIN_URL = process.env.TEST_TENANT_CLUSTER_URL;
const PGBOUNCER = findExecutable('pgbouncer') ?? findExecutable('/usr/sbin/pgbouncer');
const PSQL = findExecutable('psql');

/** psql's whole output for a script, as a tenant at a terminal would see it (killed after 10 s). */
function psql(url: string, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(PSQL!, ['-X', url], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PGCONNECT_TIMEOUT: '5' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
    child.stdin.end(script);
  });
}

interface Tenant extends TenantSpec {
  url: (options?: { pool?: boolean; password?: string; database?: string }) => string;
}

describe.skipIf(!ADMIN_URL)('shared PostgreSQL tenant cluster (real cluster and PgBouncer)', () => {
  const made: TenantRoles[] = [];
  const clients: postgres.Sql[] = [];
  let dir: string;
  let provider: EmbeddedTenantCluster;
  let su: postgres.Sql;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenant-cluster-'));
    chmodSync(dir, 0o700);
    provider = new EmbeddedTenantCluster({
      adminUrl: ADMIN_URL!,
      pgbouncerBinary: PGBOUNCER,
      dir: path.join(dir, 'pooler'),
      poolPort: 0,
      poolListenAddr: '127.0.0.1',
    });
    su = postgres(ADMIN_URL!, { max: 2, onnotice: () => {} });
    await provider.start([]);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 1 }).catch(() => undefined)));
  });

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 1 }).catch(() => undefined)));
    for (const roles of made) await provider?.dropTenant(roles).catch((err: unknown) => console.error('could not drop test tenant', roles.dbName, err));
    await provider?.stop();
    // Anything dropTenant missed (it failed, or the provider never came up).
    for (const roles of made) {
      await su?.unsafe(`drop database if exists "${roles.dbName}" with (force)`).catch(() => undefined);
      for (const role of [roles.dbUser, roles.poolUser, roles.dbName]) await su?.unsafe(`drop role if exists "${role}"`).catch(() => undefined);
    }
    await su?.end({ timeout: 1 });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function newTenantSpec(dbName: string): TenantSpec {
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

  /** Random names (`t` + 10 hex), remembered for afterAll before anything is made. */
  function newTenant(overrides: Partial<TenantSpec> = {}): Tenant {
    const spec: TenantSpec = { ...newTenantSpec(`t${randomBytes(5).toString('hex')}`), ...overrides };
    made.push({ dbName: spec.dbName, dbUser: spec.dbUser, poolUser: spec.poolUser });
    return {
      ...spec,
      url: ({ pool = false, password = spec.password, database = spec.dbName } = {}) => {
        const endpoints = provider.endpoints();
        const port = pool ? endpoints.pool?.port : endpoints.port;
        if (port === undefined) throw new Error('no pool endpoint');
        return `postgresql://${spec.dbUser}:${encodeURIComponent(password)}@${endpoints.host}:${port}/${database}?sslmode=require`;
      },
    };
  }

  async function createTenant(overrides: Partial<TenantSpec> = {}): Promise<Tenant> {
    const tenant = newTenant(overrides);
    await provider.createTenant(tenant);
    return tenant;
  }

  /** A postgres.js client as a tenant's application would open it (no prepared statements: they do not survive transaction pooling). */
  function connect(url: string, options: postgres.Options<Record<string, postgres.PostgresType>> = {}): postgres.Sql {
    const sql = postgres(url, { max: 1, prepare: false, fetch_types: false, connect_timeout: 5, onnotice: () => {}, ...options });
    clients.push(sql);
    return sql;
  }

  async function backendPid(sql: postgres.Sql): Promise<number> {
    const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
    return row!.pid;
  }

  async function backendAlive(pid: number): Promise<boolean> {
    const rows = await su`select 1 from pg_stat_activity where pid = ${pid}`;
    return rows.length > 0;
  }

  /** The superuser inside a tenant's database. */
  function superuserIn(dbName: string): postgres.Sql {
    const url = new URL(ADMIN_URL!);
    url.pathname = `/${dbName}`;
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    clients.push(sql);
    return sql;
  }

  async function poolModeOf(dbName: string): Promise<string | null | undefined> {
    return (await provider.poolerDatabases()).find((row) => row.name === dbName)?.poolMode;
  }

  it('checks the cluster and runs PgBouncer', () => {
    expect(provider.description).toMatch(/^Shared PostgreSQL tenants on the cluster at 127\.0\.0\.1:5432; PgBouncer on 127\.0\.0\.1:\d+$/);
    const endpoints = provider.endpoints();
    expect(endpoints).toMatchObject({ host: '127.0.0.1', port: 5432 });
    if (PGBOUNCER) expect(endpoints.pool).toEqual({ host: '127.0.0.1', port: expect.any(Number) });
  });

  it('lets a tenant in over TLS only, to its own database, with tables owned by its owner role', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const direct = connect(a.url());
    await direct`create table notes (id serial primary key, body text)`;
    await direct`insert into notes (body) values ('hello')`;
    const [owner] = await superuserIn(a.dbName)<{ owner: string }[]>`select tableowner as owner from pg_tables where tablename = 'notes'`;
    expect(owner?.owner).toBe(a.dbName);
    const [tls] = await su<{ ssl: boolean }[]>`select ssl from pg_stat_ssl where pid = ${await backendPid(direct)}`;
    expect(tls?.ssl).toBe(true);

    await expect(connect(a.url(), { ssl: false })`select 1`).rejects.toThrow(/pg_hba\.conf rejects connection .* no encryption/);
    await expect(connect(a.url({ database: b.dbName }))`select 1`).rejects.toThrow(/pg_hba\.conf rejects connection/);
    await expect(connect(a.url({ database: 'postgres' }))`select 1`).rejects.toThrow(/pg_hba\.conf rejects connection/);
    await expect(connect(a.url({ password: 'wrong' }))`select 1`).rejects.toThrow(/password authentication failed/);
    if (PGBOUNCER) {
      await expect(connect(a.url({ pool: true }), { ssl: false })`select 1`).rejects.toThrow(/SSL required/i);
      // Through the pooler the same way: another tenant's database is not reachable with A's login.
      await expect(connect(a.url({ pool: true, database: b.dbName }))`select 1`).rejects.toThrow();
      const pooled = connect(a.url({ pool: true }));
      const rows = await pooled<{ body: string }[]>`select body from notes`;
      expect(rows.map((row) => row.body)).toEqual(['hello']);
    }
  });

  it('enforces the tier: the next direct connection past maxConnections is refused', async () => {
    const tenant = await createTenant({ maxConnections: 2 });
    const first = connect(tenant.url());
    const second = connect(tenant.url());
    await Promise.all([first`select 1`, second`select 1`]);
    await expect(connect(tenant.url())`select 1`).rejects.toThrow(/too many connections for role/);
    const [limits] = await su<{ role: number; database: number }[]>`
      select (select rolconnlimit from pg_roles where rolname = ${tenant.dbUser}) as role,
             (select datconnlimit from pg_database where datname = ${tenant.dbName}) as database`;
    expect(limits).toEqual({ role: 2, database: 4 });
  });

  it('refuses a name that exists on the cluster, and undoes a creation that fails halfway', async () => {
    const tenant = await createTenant();
    await expect(
      provider.createTenant(newTenant({ dbName: tenant.dbName, dbUser: `${tenant.dbName}_x`, poolUser: `${tenant.dbName}_y` })),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // Not registered for afterAll: its login is `postgres`, which nothing here may drop.
    const dbName = `t${randomBytes(5).toString('hex')}`;
    await expect(provider.createTenant({ ...newTenantSpec(dbName), dbUser: 'postgres' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await provider.isNameTaken(dbName)).toBe(false);
    expect(await provider.isNameTaken(tenant.dbName)).toBe(true);
    expect(await provider.isNameTaken(tenant.dbUser)).toBe(true);
    expect(await provider.isNameTaken('pgbouncer')).toBe(true);

    const failing = newTenant();
    const addPool = vi.spyOn(provider as unknown as { addPool: (dbName: string) => Promise<void> }, 'addPool').mockRejectedValueOnce(new Error('pooler down'));
    try {
      await expect(provider.createTenant(failing)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    } finally {
      addPool.mockRestore();
    }
    for (const name of [failing.dbName, failing.dbUser, failing.poolUser]) expect(await provider.isNameTaken(name)).toBe(false);
    expect((await provider.poolerDatabases()).map((row) => row.name)).not.toContain(failing.dbName);
  });

  it('touches only roles it made for that tenant', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    // A role of the cluster that is no tenant's (made here, with a random name, and dropped below).
    const stranger = `t${randomBytes(5).toString('hex')}`;
    await su.unsafe(`create role "${stranger}" nologin`);
    try {
      await expect(provider.dropTenant({ dbName: stranger, dbUser: `${stranger}_u`, poolUser: `${stranger}_p` })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(provider.setPassword({ ...tenant, poolUser: other.poolUser }, 'x')).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(provider.setLoginAllowed({ dbName: stranger, dbUser: `${stranger}_u`, poolUser: `${stranger}_p` }, false)).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      expect(await provider.isNameTaken(stranger)).toBe(true);
      // Nothing changed for either tenant.
      await connect(tenant.url())`select 1`;
      await connect(other.url())`select 1`;
    } finally {
      await su.unsafe(`drop role if exists "${stranger}"`);
    }
  });

  it('changes the password: the old one is refused at once, direct and pooled, and open sessions are dropped', async () => {
    const tenant = await createTenant();
    const closed = new Set<string>();
    const direct = connect(tenant.url(), { onclose: () => closed.add('direct') });
    const directPid = await backendPid(direct);
    let pooledPid: number | null = null;
    if (PGBOUNCER) {
      const pooled = connect(tenant.url({ pool: true }), { onclose: () => closed.add('pooled') });
      pooledPid = await backendPid(pooled);
    }

    const newPassword = randomBytes(18).toString('base64url');
    await provider.setPassword(tenant, newPassword);

    expect(await backendAlive(directPid)).toBe(false);
    await expect(connect(tenant.url())`select 1`).rejects.toThrow(/password authentication failed/);
    expect(await backendPid(connect(tenant.url({ password: newPassword })))).toBeGreaterThan(0);
    if (PGBOUNCER) {
      expect(await backendAlive(pooledPid!)).toBe(false);
      await expect(connect(tenant.url({ pool: true }))`select 1`).rejects.toThrow(/password authentication failed|SASL authentication failed/);
      expect(await backendPid(connect(tenant.url({ pool: true, password: newPassword })))).toBeGreaterThan(0);
    }
    // postgres.js notices a dropped connection when the server closes it.
    await vi.waitFor(() => expect(closed).toEqual(new Set(PGBOUNCER ? ['direct', 'pooled'] : ['direct'])), { timeout: 5000 });
  });

  it.skipIf(!PGBOUNCER || !PSQL)('honours the pool mode: transaction, session and statement', async () => {
    const tenant = await createTenant({ poolMode: 'TRANSACTION', poolSize: 1 });
    const limits = { maxConnections: tenant.maxConnections, poolSize: tenant.poolSize };
    const setMode = (mode: PoolMode) => provider.setLimits(tenant, limits, mode);

    expect(await poolModeOf(tenant.dbName)).toBe('transaction');
    const one = connect(tenant.url({ pool: true }));
    const two = connect(tenant.url({ pool: true }));
    await one`create table counter (n int)`;
    const inTransaction = await one.begin(async (tx) => {
      await tx`insert into counter values (1)`;
      return tx<{ n: number }[]>`select n from counter`;
    });
    expect(inTransaction.map((row) => row.n)).toEqual([1]);
    // One server connection (pool_size 1) serves both clients, a transaction at a time.
    expect(await backendPid(one)).toBe(await backendPid(two));

    await setMode('SESSION');
    expect(await poolModeOf(tenant.dbName)).toBe('session');
    await provider.setLimits(tenant, { ...limits, poolSize: 2 }, 'SESSION');
    const first = connect(tenant.url({ pool: true }));
    const second = connect(tenant.url({ pool: true }));
    const firstPid = await backendPid(first);
    const secondPid = await backendPid(second);
    expect(firstPid).not.toBe(secondPid);
    expect(await backendPid(first)).toBe(firstPid);
    expect(await backendPid(second)).toBe(secondPid);

    await setMode('STATEMENT');
    expect(await poolModeOf(tenant.dbName)).toBe('statement');
    const statement = connect(tenant.url({ pool: true }));
    expect((await statement<{ n: number }[]>`select count(*)::int as n from counter`)[0]?.n).toBe(1);
    // PgBouncer answers FATAL and closes; psql shows its message (postgres.js only sees the connection close).
    const refused = await psql(tenant.url({ pool: true }), 'begin;\ninsert into counter values (2);\ninsert into counter values (3);\ncommit;\n');
    expect(refused).toMatch(/FATAL: +transaction blocks not allowed in statement pooling mode/);
    expect((await statement<{ n: number }[]>`select count(*)::int as n from counter`)[0]?.n).toBe(1);
  });

  it('revokes a tenant: its logins are refused directly and through the pool, its database and data stay', async () => {
    const tenant = await createTenant();
    await connect(tenant.url())`create table kept (id int)`;
    await provider.revokeTenant(tenant);

    await expect(connect(tenant.url())`select 1`).rejects.toThrow(/is not permitted to log in/);
    if (PGBOUNCER) {
      await expect(connect(tenant.url({ pool: true }))`select 1`).rejects.toThrow();
      expect((await provider.poolerDatabases()).map((row) => row.name)).not.toContain(tenant.dbName);
    }
    const [database] = await su`select 1 from pg_database where datname = ${tenant.dbName}`;
    expect(database).toBeDefined();
    const tables = await superuserIn(tenant.dbName)`select 1 from pg_tables where tablename = 'kept'`;
    expect(tables).toHaveLength(1);
    expect(await provider.isNameTaken(tenant.dbName)).toBe(true);
  });

  it('makes a database read-only and writable again; its size grows with its data', async () => {
    const tenant = await createTenant();
    const setup = connect(tenant.url());
    await setup`create table items (body text)`;
    const before = await provider.databaseSize(tenant.dbName);
    expect(before).toBeGreaterThan(1_000_000);
    await setup`insert into items select repeat('x', 200) from generate_series(1, 20000)`;
    expect(await provider.databaseSize(tenant.dbName)).toBeGreaterThan(before + 2_000_000);

    await provider.setReadOnly(tenant, true);
    await expect(setup`insert into items values ('y')`).rejects.toThrow();
    const reader = connect(tenant.url());
    await expect(reader`insert into items values ('y')`).rejects.toThrow(/cannot execute INSERT in a read-only transaction/);
    expect((await reader<{ n: number }[]>`select count(*)::int as n from items`)[0]?.n).toBe(20000);
    if (PGBOUNCER) {
      await expect(connect(tenant.url({ pool: true }))`insert into items values ('y')`).rejects.toThrow(/read-only transaction/);
    }
    // A default, not a lock (documented): a session can still opt out to delete data.
    await reader`set session characteristics as transaction read write`;
    await reader`delete from items where ctid in (select ctid from items limit 1)`;

    await provider.setReadOnly(tenant, false);
    await connect(tenant.url())`insert into items values ('z')`;
  });

  it('changes limits live and refuses, then allows, logins', async () => {
    const tenant = await createTenant({ maxConnections: 3 });
    await provider.setLimits(tenant, { maxConnections: 1, poolSize: 3 }, 'TRANSACTION');
    const [limits] = await su<{ user: number; pool: number; database: number }[]>`
      select (select rolconnlimit from pg_roles where rolname = ${tenant.dbUser}) as user,
             (select rolconnlimit from pg_roles where rolname = ${tenant.poolUser}) as pool,
             (select datconnlimit from pg_database where datname = ${tenant.dbName}) as database`;
    expect(limits).toEqual({ user: 1, pool: 3, database: 4 });
    await connect(tenant.url())`select 1`;
    await expect(connect(tenant.url())`select 1`).rejects.toThrow(/too many connections for role/);
    if (PGBOUNCER) expect((await provider.poolerDatabases()).find((row) => row.name === tenant.dbName)?.poolSize).toBe(3);
    await Promise.all(clients.splice(0).map((sql) => sql.end({ timeout: 1 })));

    const open = connect(tenant.url());
    const openPid = await backendPid(open);
    await provider.setLoginAllowed(tenant, false);
    expect(await backendAlive(openPid)).toBe(false);
    await expect(connect(tenant.url())`select 1`).rejects.toThrow(/is not permitted to log in/);
    if (PGBOUNCER) await expect(connect(tenant.url({ pool: true }))`select 1`).rejects.toThrow();

    await provider.setLoginAllowed(tenant, true);
    await connect(tenant.url())`select 1`;
    if (PGBOUNCER) await connect(tenant.url({ pool: true }))`select 1`;
  });

  it.skipIf(!PGBOUNCER)('brings PgBouncer back on the same port after it dies, with its pools', async () => {
    const tenant = await createTenant();
    const port = provider.endpoints().pool!.port;
    const pid = Number(readFileSync(path.join(dir, 'pooler', 'pgbouncer.pid'), 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(
      async () => {
        expect(provider.endpoints().pool?.port).toBe(port);
        await connect(tenant.url({ pool: true }))`select 1`;
      },
      { timeout: 10_000, interval: 200 },
    );
  });

  it('drops a tenant for good, and dropping it again is fine', async () => {
    const tenant = await createTenant();
    await provider.dropTenant(tenant);
    await provider.dropTenant(tenant);
    for (const name of [tenant.dbName, tenant.dbUser, tenant.poolUser]) expect(await provider.isNameTaken(name)).toBe(false);
  });

  it('says what to run when the cluster is not prepared', async () => {
    // The same cluster, checked for a group role it does not have: what an unprepared cluster looks like.
    const unprepared = new EmbeddedTenantCluster({
      adminUrl: ADMIN_URL!,
      pgbouncerBinary: null,
      dir: path.join(dir, 'unprepared'),
      poolPort: 0,
      poolListenAddr: '127.0.0.1',
      tenantGroup: `g${randomBytes(5).toString('hex')}`,
    });
    try {
      const failure = await unprepared.assertReady().catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(AppError);
      expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('run scripts/postgres-tenant-cluster.sh') });
      await expect(unprepared.createTenant(newTenant())).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(unprepared.endpoints().pool).toBeUndefined();
      expect(unprepared.description).toMatch(/no pooler: pgbouncer not installed/);
    } finally {
      await unprepared.stop();
    }
  });
});

describe('a tenant cluster that cannot be reached', () => {
  it('answers SERVICE_UNAVAILABLE naming DATABASES_ADMIN_URL, and tries again on the next call', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tenant-cluster-down-'));
    const provider = new EmbeddedTenantCluster({
      adminUrl: 'postgres://postgres@127.0.0.1:1/postgres',
      pgbouncerBinary: null,
      dir,
      poolPort: 0,
      poolListenAddr: '127.0.0.1',
    });
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        await expect(provider.assertReady()).rejects.toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          message: expect.stringMatching(/^The tenant cluster at 127\.0\.0\.1:1 cannot be reached as postgres .*: check DATABASES_ADMIN_URL$/),
        });
      }
      await expect(provider.isNameTaken('anything')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await provider.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has no pool endpoint without PgBouncer', async () => {
    const provider = new EmbeddedTenantCluster({
      adminUrl: 'postgres://postgres@db.internal:6543/postgres',
      publicHost: 'db.example.com',
      pgbouncerBinary: null,
      dir: '/nonexistent',
      poolPort: 0,
      poolListenAddr: '127.0.0.1',
    });
    expect(provider.endpoints()).toEqual({ host: 'db.example.com', port: 6543 });
    expect(provider.description).toBe('Shared PostgreSQL tenants on the cluster at db.internal:6543; no pooler: pgbouncer not installed');
    await provider.stop();
  });
});

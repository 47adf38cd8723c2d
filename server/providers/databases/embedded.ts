import { readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { AppError, callUpstream } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import type { ProcessUser } from '../process/supervisedProcess';
import { clusterProblem, TENANT_GROUP, type ClusterFacts, type HbaRule } from './clusterCheck';
import { PgBouncer, poolModeSetting, type AuthEntry, type PoolerDatabase } from './pgbouncer';
import { scramVerifier } from './scram';
import type { ClusterEndpoints, PoolMode, PoolSpec, TenantClusterProvider, TenantLimits, TenantRoles, TenantSpec } from './types';

export interface EmbeddedTenantClusterOptions {
  /** A superuser of the cluster: `postgres://postgres@127.0.0.1:5432/postgres`. */
  adminUrl: string;
  /** The host in tenants' connection strings; the admin URL's host when absent. */
  publicHost?: string;
  /** Absolute path of pgbouncer; null runs no pooler (tenants get no pool string). */
  pgbouncerBinary: string | null;
  /** PgBouncer's folder. */
  dir: string;
  /** 0 takes a free port. */
  poolPort: number;
  poolListenAddr: string;
  /** The group role of tenant logins; the default is the one scripts/postgres-tenant-cluster.sh makes. */
  tenantGroup?: string;
  startTimeoutMs?: number;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** PgBouncer's admin console answers to this database name: no pool may have it. */
const RESERVED_NAMES = new Set(['pgbouncer']);
/** How long a terminated backend is waited for (PostgreSQL 14+), so a dropped session is gone when a call returns. */
const TERMINATE_WAIT_MS = 5000;
/** How long a change waits for another process of the host holding the pooler lock. */
const LOCK_WAIT_MS = 60_000;

/**
 * Shared tenant databases on a real PostgreSQL cluster, with a PgBouncer the app runs in front of
 * it. Per tenant: an owner role named like the database (NOLOGIN), the database it owns, and two
 * logins that act as the owner (`SET role`): `dbUser` for direct connections and `poolUser` for the
 * pooler's server connections. The cluster's pg_hba rules (scripts/postgres-tenant-cluster.sh)
 * let a tenant login in only over TLS with SCRAM, and only to the database named like a role it is
 * a member of; role CONNECTION LIMITs enforce the tier.
 *
 * Passwords reach the cluster only as SCRAM verifiers computed here. Both logins get the same
 * verifier: PgBouncer 1.18 logs its server connections in with the SCRAM keys the client proved
 * (pgbouncer/pgbouncer#1461, #944), so the pool user must accept exactly the tenant's keys. The pool
 * user can therefore also be used directly with the tenant's password; it is the tenant's own, and
 * counts against the tenant's own limits.
 *
 * The cluster is the source of truth for the pools, not this process's memory: several processes
 * of a host (web processes, workers) share one PgBouncer and each may change tenants, so a list
 * kept by one would drop the pools another added. The pools are the tenants whose two logins (members
 * of the tenants' group carrying the tenant mark) may log in: the pool login's `rolconnlimit` is the
 * pool size and its mark (the `COMMENT ON ROLE` only a superuser or CREATEROLE can write) holds the
 * pool mode. Each change rebuilds PgBouncer's configuration and auth file from a query of the
 * cluster, so the last rewrite always holds every process's changes. Suspended and revoked tenants
 * (NOLOGIN) have no pool. `start(pools)` only repairs a pool mode missing from a mark.
 *
 * One PgBouncer per DATABASES_DATA_DIR (so per host), whichever process started it; it dies with
 * that process, and the next call of any process that needs it starts it again (see PgBouncer).
 * Changes run in one queue per process and, across the processes of the host, under an advisory
 * lock on the cluster keyed by the folder (the cluster is shared anyway), so rewrites and reloads
 * of two processes never interleave. Reads (`isNameTaken`, `databaseSize`) wait for neither.
 */
export class EmbeddedTenantCluster implements TenantClusterProvider {
  readonly kind = 'embedded' as const;
  private adminSql: postgres.Sql | null = null;
  private readonly server: { host: string; port: number; user: string };
  private readonly publicHost: string;
  private readonly group: string;
  private readonly pooler: PgBouncer | null;
  /** One connection holding the advisory lock around changes (see `exclusively`). */
  private lockSql: postgres.Sql | null = null;
  private clusterChecked: Promise<ClusterFacts> | null = null;
  private serverVersionNum = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: EmbeddedTenantClusterOptions) {
    const url = new URL(options.adminUrl);
    this.server = {
      host: decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost',
      port: url.port ? Number(url.port) : 5432,
      user: decodeURIComponent(url.username) || 'postgres',
    };
    this.publicHost = options.publicHost ?? this.server.host;
    this.group = options.tenantGroup ?? TENANT_GROUP;
    this.pooler = options.pgbouncerBinary
      ? new PgBouncer(
          {
            binary: options.pgbouncerBinary,
            dir: options.dir,
            listenAddr: options.poolListenAddr,
            port: options.poolPort,
            server: { host: this.server.host, port: this.server.port },
            commonName: this.publicHost,
            user: daemonUser(),
            startTimeoutMs: options.startTimeoutMs,
          },
          () => this.poolerContents(),
          // Restarts: in this process's queue, and under the lock other processes of the host take.
          (task) => this.serially(() => this.underLock(task)),
        )
      : null;
  }

  get description(): string {
    const cluster = `Shared PostgreSQL tenants on the cluster at ${this.where()}`;
    if (!this.pooler) return `${cluster}; no pooler: pgbouncer not installed`;
    const port = this.pooler.listenPort();
    if (port === null) {
      return `${cluster}; PgBouncer on ${this.options.poolListenAddr}:${this.options.poolPort === 0 ? 'a free port' : this.options.poolPort} (not running yet)`;
    }
    return `${cluster}; PgBouncer on ${this.options.poolListenAddr}:${port}${this.pooler.runsHere() ? '' : ' (run by another process of this host)'}`;
  }

  endpoints(): ClusterEndpoints {
    const port = this.pooler?.listenPort() ?? null;
    return { host: this.publicHost, port: this.server.port, ...(port === null ? {} : { pool: { host: this.publicHost, port } }) };
  }

  /**
   * Checks the cluster and makes sure PgBouncer serves the folder (started here, or another
   * process's), its files rebuilt from the cluster. `pools` (the app's own records) only fill in a
   * pool mode missing from a pool login's mark; the cluster's word wins everywhere else.
   */
  start(pools: readonly PoolSpec[]): Promise<void> {
    return this.exclusively(async () => {
      await this.repairPoolMarks(pools);
      await this.ensurePooler();
      await this.applyPooler();
      getLogger().info(
        { cluster: this.where(), poolPort: this.pooler?.listenPort() ?? null, poolerHere: this.pooler?.runsHere() ?? false },
        'tenant cluster ready',
      );
    });
  }

  assertReady(): Promise<void> {
    return this.exclusively(() => this.ensurePooler());
  }

  async isNameTaken(name: string): Promise<boolean> {
    if (RESERVED_NAMES.has(name)) return true;
    await this.checkCluster();
    return callUpstream('The tenant cluster could not be asked whether the name is taken', async () => {
      const [row] = await this.admin<{ taken: boolean }[]>`
        select exists(select from pg_database where datname = ${name}) or exists(select from pg_roles where rolname = ${name}) as taken`;
      return row?.taken === true;
    });
  }

  async createTenant(spec: TenantSpec): Promise<void> {
    const roles = checkRoles(spec);
    const maxConnections = positiveInteger(spec.maxConnections, 'maxConnections');
    const poolSize = positiveInteger(spec.poolSize, 'poolSize');
    poolModeSetting(spec.poolMode);
    if (spec.password === '') throw new AppError('VALIDATION_ERROR', 'The password must not be empty');
    return this.exclusively(async () => {
      await this.ensurePooler();
      for (const name of [roles.dbName, roles.dbUser, roles.poolUser]) {
        if (await this.isNameTaken(name)) throw new AppError('CONFLICT', `The name "${name}" is taken on the tenant cluster (a database or role has it)`);
      }
      const verifier = scramVerifier(spec.password);
      const undo: string[] = [];
      const run = async (statement: string, undoStatement?: string) => {
        await this.admin.unsafe(statement);
        if (undoStatement) undo.push(undoStatement);
      };
      try {
        await run(`create role ${ident(roles.dbName)} nologin`, `drop role if exists ${ident(roles.dbName)}`);
        await run(`comment on role ${ident(roles.dbName)} is ${literal(tenantMark(roles.dbName))}`);
        // CREATE DATABASE cannot run in a transaction: each step stands alone and is undone by hand.
        await run(
          `create database ${ident(roles.dbName)} owner ${ident(roles.dbName)} connection limit ${maxConnections + poolSize}`,
          `drop database if exists ${ident(roles.dbName)} with (force)`,
        );
        await run(`revoke all on database ${ident(roles.dbName)} from public`);
        for (const [login, limit, mark] of [
          [roles.dbUser, maxConnections, tenantMark(roles.dbName)],
          // The pool login's mark holds the pool mode: the cluster is where the pooler's configuration is rebuilt from.
          [roles.poolUser, poolSize, tenantMark(roles.dbName, spec.poolMode)],
        ] as const) {
          await run(
            `create role ${ident(login)} login connection limit ${limit} password ${literal(verifier)} in role ${ident(roles.dbName)}, ${ident(this.group)}`,
            `drop role if exists ${ident(login)}`,
          );
          await run(`comment on role ${ident(login)} is ${literal(mark)}`);
          // Objects either login creates belong to the owner role, so both logins (and a later owner) share them.
          await run(`alter role ${ident(login)} set role = ${literal(roles.dbName)}`);
        }
        await this.addPool(roles.dbName);
      } catch (err) {
        await this.undo(undo.reverse(), roles.dbName);
        if (isDuplicate(err)) throw new AppError('CONFLICT', `The name "${roles.dbName}" was taken on the tenant cluster meanwhile`, { cause: err });
        throw upstreamError(`The tenant database ${roles.dbName} could not be created`, err);
      }
      getLogger().info({ dbName: roles.dbName, maxConnections, poolSize, poolMode: spec.poolMode }, 'tenant database created');
    });
  }

  async setPassword(roles: TenantRoles, password: string): Promise<void> {
    checkRoles(roles);
    if (password === '') throw new AppError('VALIDATION_ERROR', 'The password must not be empty');
    return this.exclusively(async () => {
      await this.ensurePooler();
      await this.guardTenant(roles, { allowMissing: false });
      const verifier = scramVerifier(password);
      await callUpstream(`The password of ${roles.dbName} could not be changed`, async () => {
        await this.admin.begin(async (tx) => {
          for (const login of [roles.dbUser, roles.poolUser]) await tx.unsafe(`alter role ${ident(login)} password ${literal(verifier)}`);
        });
        // The pooler learns the new verifier before sessions are dropped, so no client gets back in with the old one.
        await this.applyPooler();
        await this.dropSessions(roles);
      });
      getLogger().info({ dbName: roles.dbName }, 'tenant password changed');
    });
  }

  async setLimits(roles: TenantRoles, limits: TenantLimits, poolMode: PoolMode): Promise<void> {
    checkRoles(roles);
    const maxConnections = positiveInteger(limits.maxConnections, 'maxConnections');
    const poolSize = positiveInteger(limits.poolSize, 'poolSize');
    poolModeSetting(poolMode);
    return this.exclusively(async () => {
      await this.ensurePooler();
      const marks = await this.guardTenant(roles, { allowMissing: false });
      await callUpstream(`The limits of ${roles.dbName} could not be changed`, async () => {
        await this.admin.begin(async (tx) => {
          await tx.unsafe(`alter role ${ident(roles.dbUser)} connection limit ${maxConnections}`);
          await tx.unsafe(`alter role ${ident(roles.poolUser)} connection limit ${poolSize}`);
          await tx.unsafe(`comment on role ${ident(roles.poolUser)} is ${literal(tenantMark(roles.dbName, poolMode))}`);
          await tx.unsafe(`alter database ${ident(roles.dbName)} connection limit ${maxConnections + poolSize}`);
        });
        const modeChanged = marks.get(roles.poolUser)?.poolMode !== poolMode;
        await this.applyPooler();
        // Clients keep the mode they connected under: a new mode applies to all of them at once.
        if (modeChanged) await this.pooler?.killClients(roles.dbName);
      });
      getLogger().info({ dbName: roles.dbName, maxConnections, poolSize, poolMode }, 'tenant limits changed');
    });
  }

  /**
   * `default_transaction_read_only` on the database, and every session dropped so it applies at
   * once. It is a default, not a lock: a session may still `SET SESSION CHARACTERISTICS AS
   * TRANSACTION READ WRITE` (or change the setting, as the database's owner) to delete data and
   * come back under its storage limit, as other platforms allow.
   */
  async setReadOnly(roles: TenantRoles, readOnly: boolean): Promise<void> {
    checkRoles(roles);
    return this.exclusively(async () => {
      await this.ensurePooler();
      await this.guardTenant(roles, { allowMissing: false });
      await callUpstream(`${roles.dbName} could not be made ${readOnly ? 'read-only' : 'writable'}`, async () => {
        await this.admin.unsafe(
          readOnly
            ? `alter database ${ident(roles.dbName)} set default_transaction_read_only = on`
            : `alter database ${ident(roles.dbName)} reset default_transaction_read_only`,
        );
        await this.dropSessions(roles);
      });
      getLogger().info({ dbName: roles.dbName, readOnly }, 'tenant read-only state changed');
    });
  }

  async setLoginAllowed(roles: TenantRoles, allowed: boolean): Promise<void> {
    checkRoles(roles);
    return this.exclusively(async () => {
      await this.ensurePooler();
      await this.guardTenant(roles, { allowMissing: false });
      await callUpstream(`The logins of ${roles.dbName} could not be ${allowed ? 'allowed' : 'refused'}`, async () => {
        await this.admin.begin(async (tx) => {
          for (const login of [roles.dbUser, roles.poolUser]) await tx.unsafe(`alter role ${ident(login)} ${allowed ? 'login' : 'nologin'}`);
        });
        // Pools and the auth file follow the logins that may log in: the pool comes back, or goes.
        if (allowed) {
          await this.addPool(roles.dbName);
        } else {
          await this.removePool(roles.dbName);
          await this.terminateBackends(roles);
        }
      });
      getLogger().info({ dbName: roles.dbName, allowed }, 'tenant logins changed');
    });
  }

  async revokeTenant(roles: TenantRoles): Promise<void> {
    checkRoles(roles);
    return this.exclusively(async () => {
      await this.ensurePooler();
      await this.guardTenant(roles, { allowMissing: false });
      await callUpstream(`The access to ${roles.dbName} could not be revoked`, async () => {
        await this.admin.begin(async (tx) => {
          for (const login of [roles.dbUser, roles.poolUser]) await tx.unsafe(`alter role ${ident(login)} nologin`);
        });
        await this.removePool(roles.dbName);
        await this.terminateBackends(roles);
      });
      getLogger().info({ dbName: roles.dbName }, 'tenant access revoked; database retained');
    });
  }

  async dropTenant(roles: TenantRoles): Promise<void> {
    checkRoles(roles);
    return this.exclusively(async () => {
      await this.ensurePooler();
      await this.guardTenant(roles, { allowMissing: true });
      await callUpstream(`The tenant database ${roles.dbName} could not be dropped`, async () => {
        // Its clients dropped and new ones held, then the pool leaves with the roles it was built from.
        await this.pooler?.killClients(roles.dbName, false);
        try {
          await this.admin.unsafe(`drop database if exists ${ident(roles.dbName)} with (force)`);
          for (const role of [roles.dbUser, roles.poolUser, roles.dbName]) await this.admin.unsafe(`drop role if exists ${ident(role)}`);
        } finally {
          await this.applyPooler();
        }
        // Still there when the drop failed halfway: its clients are let in again.
        await this.pooler?.killClients(roles.dbName);
      });
      getLogger().info({ dbName: roles.dbName }, 'tenant database dropped');
    });
  }

  async databaseSize(dbName: string): Promise<number> {
    checkName(dbName);
    await this.checkCluster();
    return callUpstream(`The size of ${dbName} could not be read`, async () => {
      const [row] = await this.admin<{ size: string }[]>`select pg_database_size(${dbName}::name)::text as size`;
      return Number(row?.size ?? 0);
    });
  }

  /** PgBouncer's `SHOW DATABASES`; empty while no pooler runs. */
  async poolerDatabases(): Promise<PoolerDatabase[]> {
    if (!this.pooler || this.pooler.listenPort() === null) return [];
    return this.pooler.databases();
  }

  /** Stops this process's PgBouncer (under the lock when the cluster answers, so no other process is mid-reload) and closes the connections. */
  stop(): Promise<void> {
    return this.serially(async () => {
      if (this.pooler?.runsHere()) {
        const pooler = this.pooler;
        await this.underLock(() => pooler.stop()).catch(async (err: unknown) => {
          getLogger().warn({ err }, 'stopping pgbouncer without the pooler lock');
          await pooler.stop();
        });
      } else {
        await this.pooler?.stop();
      }
      const admin = this.adminSql;
      const lock = this.lockSql;
      this.adminSql = null;
      this.lockSql = null;
      this.clusterChecked = null;
      await admin?.end({ timeout: 5 });
      await lock?.end({ timeout: 5 });
      getLogger().info({ cluster: this.where() }, 'tenant cluster provider stopped');
    });
  }

  /** The superuser's connections, opened on first use (again after `stop`). */
  private get admin(): postgres.Sql {
    this.adminSql ??= postgres(this.options.adminUrl, { max: 3, onnotice: () => {}, connect_timeout: 10, idle_timeout: 60 });
    return this.adminSql;
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** A change: this process's queue, the cluster check, then the lock every process of the host takes. */
  private exclusively<T>(task: () => Promise<T>): Promise<T> {
    return this.serially(async () => {
      await this.checkCluster();
      return this.underLock(task);
    });
  }

  /**
   * A session advisory lock on the cluster, keyed by PgBouncer's folder, held on a connection of
   * its own (never idle-closed nor recycled while held) around `task`: the processes sharing the
   * folder rebuild, write and reload one at a time. Waits up to LOCK_WAIT_MS for another holder.
   * Without a pooler there is nothing to serialise beyond what the cluster does itself.
   */
  private async underLock<T>(task: () => Promise<T>): Promise<T> {
    if (!this.pooler) return task();
    this.lockSql ??= postgres(this.options.adminUrl, {
      max: 1,
      // 0: never closed for idleness nor age (a closed connection would let the lock go mid-task).
      idle_timeout: 0,
      max_lifetime: 0,
      connect_timeout: 10,
      onnotice: () => {},
      connection: { lock_timeout: LOCK_WAIT_MS, application_name: 'platform tenant pooler lock' },
    });
    const sql = this.lockSql;
    const key = `platform tenant pooler ${path.resolve(this.options.dir)}`;
    await callUpstream('The pooler lock on the tenant cluster could not be taken (another process holds it?)', async () => {
      await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`;
    });
    try {
      return await task();
    } finally {
      try {
        await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`;
      } catch (err) {
        // The lock must not outlive the task: a connection that could not release it is closed (the lock goes with it).
        getLogger().warn({ err }, 'the pooler lock could not be released; closing its connection');
        if (this.lockSql === sql) this.lockSql = null;
        await sql.end({ timeout: 1 }).catch(() => undefined);
      }
    }
  }

  /**
   * Refuses to touch roles or a database that are not this tenant's: each of the three roles must
   * carry the mark createTenant comments it with (ordinary roles cannot comment on roles, so no
   * tenant can forge it), and the database must belong to the owner role. A wrong name from a
   * caller then fails instead of, say, changing the password of `postgres` or dropping its database.
   */
  private async guardTenant(roles: TenantRoles, { allowMissing }: { allowMissing: boolean }): Promise<Map<string, TenantMark>> {
    const names = [roles.dbName, roles.dbUser, roles.poolUser];
    const found = await callUpstream('The tenant cluster could not be asked about the tenant', async () => {
      const marks = await this.admin<{ name: string; mark: string | null }[]>`
        select rolname as name, shobj_description(oid, 'pg_authid') as mark from pg_roles where rolname = any(${names}::text[])`;
      const [database] = await this.admin<{ owner: string }[]>`select pg_get_userbyid(datdba) as owner from pg_database where datname = ${roles.dbName}`;
      return { marks, database };
    });
    const marks = new Map<string, TenantMark>();
    const foreign: string[] = [];
    for (const row of found.marks) {
      const mark = parseTenantMark(row.mark);
      if (mark?.dbName === roles.dbName) marks.set(row.name, mark);
      else foreign.push(row.name);
    }
    if (found.database && found.database.owner !== roles.dbName) foreign.push(`database ${roles.dbName}`);
    if (foreign.length > 0) throw new AppError('CONFLICT', `Not roles of the tenant ${roles.dbName} on the cluster, left untouched: ${foreign.join(', ')}`);
    if (!allowMissing && found.marks.length < names.length) throw new AppError('NOT_FOUND', `The tenant ${roles.dbName} has no roles on the cluster`);
    return marks;
  }

  /**
   * A PgBouncer serving the folder: this process's, another process's (answering now), or one
   * started here, which this process then supervises. In the queue and the lock.
   */
  private async ensurePooler(): Promise<void> {
    if (!this.pooler || this.pooler.runsHere()) return;
    await this.pooler.ensure();
    if (this.pooler.runsHere()) getLogger().info({ port: this.pooler.listenPort(), dir: this.options.dir }, 'pgbouncer for tenant databases started');
  }

  /**
   * Pool logins made before the mark held the pool mode: the app's records say which login is the
   * pool's and its mode. Only a mark with no mode is written; a mode on the cluster is never overruled.
   */
  private async repairPoolMarks(pools: readonly PoolSpec[]): Promise<void> {
    const valid = pools.filter((pool) => {
      try {
        checkRoles(pool);
        poolModeSetting(pool.poolMode);
        return true;
      } catch {
        return false;
      }
    });
    if (valid.length === 0) return;
    const repaired = await callUpstream('The pool marks on the tenant cluster could not be read', async () => {
      const rows = await this.admin<{ name: string; mark: string | null; groups: string[] }[]>`
        select r.rolname as name, shobj_description(r.oid, 'pg_authid') as mark,
               array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid where m.member = r.oid) as groups
        from pg_roles r where r.rolname = any(${valid.map((pool) => pool.poolUser)}::text[])`;
      const byName = new Map(rows.map((row) => [row.name, row]));
      const names: string[] = [];
      for (const pool of valid) {
        const row = byName.get(pool.poolUser);
        const mark = parseTenantMark(row?.mark ?? null);
        if (!row || mark?.dbName !== pool.dbName || mark.poolMode !== null || !row.groups.includes(pool.dbName) || !row.groups.includes(this.group)) continue;
        await this.admin.unsafe(`comment on role ${ident(pool.poolUser)} is ${literal(tenantMark(pool.dbName, pool.poolMode))}`);
        names.push(pool.dbName);
      }
      return names;
    });
    if (repaired.length > 0) getLogger().warn({ tenants: repaired }, 'pool modes written into pool logins marks from the app records');
  }

  /** Once per provider when it passes; a failed check is run again on the next call. */
  private checkCluster(): Promise<ClusterFacts> {
    this.clusterChecked ??= this.readClusterFacts().then(
      (facts) => {
        const problem = clusterProblem(facts, this.group);
        if (problem) throw new AppError('SERVICE_UNAVAILABLE', problem);
        this.serverVersionNum = facts.serverVersionNum;
        return facts;
      },
      (err: unknown) => {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `The tenant cluster at ${this.where()} cannot be reached as ${this.server.user} (${errorMessage(err)}): check DATABASES_ADMIN_URL`,
          { cause: err },
        );
      },
    );
    const checked = this.clusterChecked;
    checked.catch(() => {
      if (this.clusterChecked === checked) this.clusterChecked = null;
    });
    return checked;
  }

  private async readClusterFacts(): Promise<ClusterFacts> {
    const [settings] = await this.admin<{ user: string; superuser: boolean; version: number; ssl: string; group_exists: boolean }[]>`
      select current_user as user,
             (select rolsuper from pg_roles where rolname = current_user) as superuser,
             current_setting('server_version_num')::int as version,
             current_setting('ssl') as ssl,
             exists(select from pg_roles where rolname = ${this.group}) as group_exists`;
    if (!settings) throw new Error('the cluster answered nothing');
    // Reading pg_hba_file_rules takes a superuser: only asked of one.
    const hbaRules = settings.superuser
      ? await this.admin<HbaRule[]>`
          select line_number, type, to_json(database) as database, to_json(user_name) as user_name,
                 address, netmask, auth_method, to_json(options) as options, error
          from pg_hba_file_rules order by line_number`
      : [];
    return {
      where: this.where(),
      user: settings.user,
      superuser: settings.superuser,
      serverVersionNum: settings.version,
      ssl: settings.ssl === 'on',
      groupExists: settings.group_exists,
      hbaRules: hbaRules.map((row) => ({ ...row, line_number: Number(row.line_number) })),
    };
  }

  /**
   * What PgBouncer serves, read from the cluster at each rewrite: per tenant whose two logins (in
   * the tenants' group and the owner role, with the tenant mark) may log in and whose database the
   * owner role owns, a pool (size: the pool login's connection limit; mode: its mark) and the
   * direct login with its SCRAM verifier from pg_authid.
   */
  private async poolerContents(): Promise<{ pools: readonly PoolSpec[]; users: readonly AuthEntry[] }> {
    const rows = await this.admin<{ name: string; login: boolean; connlimit: number; secret: string | null; mark: string | null; groups: string[] }[]>`
      select r.rolname as name, r.rolcanlogin as login, r.rolconnlimit as connlimit, r.rolpassword as secret,
             shobj_description(r.oid, 'pg_authid') as mark,
             array(select g.rolname::text from pg_auth_members m join pg_authid g on g.oid = m.roleid where m.member = r.oid) as groups
      from pg_authid r
      where exists (select from pg_auth_members m join pg_authid g on g.oid = m.roleid where m.member = r.oid and g.rolname = ${this.group})`;
    type Login = (typeof rows)[number];
    const tenants = new Map<string, { dbUsers: Login[]; poolUsers: { row: Login; poolMode: PoolMode }[] }>();
    for (const row of rows) {
      const mark = parseTenantMark(row.mark);
      if (!mark || !row.groups.includes(mark.dbName)) continue;
      const tenant = tenants.get(mark.dbName) ?? { dbUsers: [], poolUsers: [] };
      if (mark.poolMode === null) tenant.dbUsers.push(row);
      else tenant.poolUsers.push({ row, poolMode: mark.poolMode });
      tenants.set(mark.dbName, tenant);
    }
    const dbNames = [...tenants.keys()];
    const owned =
      dbNames.length === 0
        ? []
        : await this.admin<{ name: string }[]>`
            select datname as name from pg_database where datname = any(${dbNames}::text[]) and pg_get_userbyid(datdba) = datname`;
    const ownedNames = new Set(owned.map((row) => row.name));
    const pools: PoolSpec[] = [];
    const users: AuthEntry[] = [];
    const unclear: string[] = [];
    for (const [dbName, tenant] of tenants) {
      if (!ownedNames.has(dbName)) continue;
      const [dbUser] = tenant.dbUsers;
      const [pool] = tenant.poolUsers;
      if (tenant.dbUsers.length !== 1 || tenant.poolUsers.length !== 1 || !dbUser || !pool) {
        unclear.push(dbName);
        continue;
      }
      if (!dbUser.login || !pool.row.login || pool.row.connlimit < 1 || !dbUser.secret?.startsWith('SCRAM-SHA-256$')) continue;
      pools.push({ dbName, dbUser: dbUser.name, poolUser: pool.row.name, poolSize: pool.row.connlimit, poolMode: pool.poolMode });
      users.push({ user: dbUser.name, secret: dbUser.secret });
    }
    if (unclear.length > 0)
      getLogger().warn({ tenants: unclear }, 'tenants without a pool: their pool login is not marked with a pool mode (the app repairs it at start)');
    return { pools, users };
  }

  private async applyPooler(): Promise<void> {
    await this.pooler?.apply();
  }

  private async addPool(dbName: string): Promise<void> {
    await this.applyPooler();
    // A pool of the same name dropped before may still be known, paused, to a running PgBouncer.
    await this.pooler?.killClients(dbName);
  }

  /**
   * Called once the logins are NOLOGIN on the cluster. KILL first (clients and server connections
   * dropped, new clients held), then the rebuilt files leave out the pool and its login and RELOAD
   * makes PgBouncer forget the pool (a database gone from the configuration is dropped at reload,
   * with anyone waiting on it).
   */
  private async removePool(dbName: string): Promise<void> {
    await this.pooler?.killClients(dbName, false);
    await this.applyPooler();
  }

  /** Every session of the tenant, direct and pooled, dropped at once. */
  private async dropSessions(roles: TenantRoles): Promise<void> {
    await this.terminateBackends(roles);
    await this.pooler?.killClients(roles.dbName);
  }

  private async terminateBackends(roles: TenantRoles): Promise<void> {
    const logins = [roles.dbUser, roles.poolUser];
    if (this.serverVersionNum >= 140000) {
      await this.admin`select pg_terminate_backend(pid, ${TERMINATE_WAIT_MS}) from pg_stat_activity where usename = any(${logins}::text[])`;
    } else {
      await this.admin`select pg_terminate_backend(pid) from pg_stat_activity where usename = any(${logins}::text[])`;
    }
  }

  /** Undoes a failed creation, newest step first; a failure here is logged, the creation's own error is the one reported. */
  private async undo(statements: string[], dbName: string): Promise<void> {
    for (const statement of statements) {
      try {
        await this.admin.unsafe(statement);
      } catch (err) {
        getLogger().error({ err, dbName }, 'a step of a failed tenant creation could not be undone');
      }
    }
    try {
      await this.applyPooler();
    } catch (err) {
      getLogger().error({ err, dbName }, 'the pooler could not be brought back after a failed tenant creation');
    }
  }

  private where(): string {
    return `${this.server.host.includes(':') ? `[${this.server.host}]` : this.server.host}:${this.server.port}`;
  }
}

/**
 * PgBouncer refuses to run as root: as root, it runs as `postgres` (the cluster's own user on
 * Debian), or `nobody` where there is none; as anyone else, as the app's own user (undefined).
 */
function daemonUser(): ProcessUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    // No passwd file: fall through to the conventional ids of nobody.
  }
  const entries = new Map(
    passwd
      .split('\n')
      .map((line) => line.split(':'))
      .filter((fields) => fields.length >= 4)
      .map((fields) => [fields[0], { uid: Number(fields[2]), gid: Number(fields[3]) }] as const),
  );
  return entries.get('postgres') ?? entries.get('nobody') ?? { uid: 65534, gid: 65534 };
}

function checkRoles(roles: TenantRoles): TenantRoles {
  for (const name of [roles.dbName, roles.dbUser, roles.poolUser]) checkName(name);
  if (new Set([roles.dbName, roles.dbUser, roles.poolUser]).size !== 3) {
    throw new AppError('VALIDATION_ERROR', 'The database, its login and its pool login need three different names');
  }
  if (RESERVED_NAMES.has(roles.dbName)) throw new AppError('CONFLICT', `"${roles.dbName}" is reserved by the pooler`);
  return roles;
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new AppError('VALIDATION_ERROR', `"${name}" is not a valid tenant name (lowercase letters, digits and underscores, 63 at most)`);
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 100_000) throw new AppError('VALIDATION_ERROR', `${what} must be an integer from 1 to 100000`);
  return value;
}

/**
 * The comment that marks a role as one of a tenant's (see guardTenant); the pool login's also
 * holds the pool mode, from which the pooler's configuration is rebuilt (see poolerContents).
 */
function tenantMark(dbName: string, poolMode?: PoolMode): string {
  return poolMode === undefined ? `platform tenant ${dbName}` : `platform tenant ${dbName}; pool_mode=${poolModeSetting(poolMode)}`;
}

interface TenantMark {
  dbName: string;
  /** Set on the pool login's mark alone. */
  poolMode: PoolMode | null;
}

const MARK = /^platform tenant ([a-z_][a-z0-9_]{0,62})(?:; pool_mode=(transaction|session|statement))?$/;

export function parseTenantMark(mark: string | null): TenantMark | null {
  const match = mark === null ? null : MARK.exec(mark);
  if (!match?.[1]) return null;
  return { dbName: match[1], poolMode: match[2] ? (match[2].toUpperCase() as PoolMode) : null };
}

/** Names are checked against NAME before they get here; quoted anyway. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** duplicate_database, duplicate_object: another process made the same name between the check and the creation. */
function isDuplicate(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '42P04' || code === '42710';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function upstreamError(message: string, err: unknown): AppError {
  return err instanceof AppError ? err : new AppError('UPSTREAM_ERROR', message, { cause: err });
}

/** How PgBouncer hands server connections to a tenant's clients (SPEC's names). */
export type PoolMode = 'TRANSACTION' | 'SESSION' | 'STATEMENT';

/**
 * One tenant on the cluster: a database and the three roles around it. `dbName` names the database
 * and its owner role (NOLOGIN; pg_hba's `samerole` lets a tenant's login roles into that database
 * alone); `dbUser` logs in directly; `poolUser` is the login of the pooler's server connections.
 * Both logins act as the owner role, so everything either creates belongs to the tenant.
 */
export interface TenantRoles {
  dbName: string;
  dbUser: string;
  poolUser: string;
}

/** What a tier enforces at the cluster and in the pooler. */
export interface TenantLimits {
  /** `CONNECTION LIMIT` of `dbUser`: direct connections. */
  maxConnections: number;
  /** `CONNECTION LIMIT` of `poolUser` and the pool's `pool_size`: the pooler's server connections. */
  poolSize: number;
}

export interface TenantSpec extends TenantRoles, TenantLimits {
  /** Plain text: turned into a SCRAM verifier here; neither the server nor its logs ever see it. */
  password: string;
  poolMode: PoolMode;
}

/**
 * The app's record of a live tenant's pool. The cluster is the pooler's source of truth (the pool
 * login's connection limit and mark); the records only fill in a pool mode missing from a mark.
 */
export interface PoolSpec extends TenantRoles {
  poolSize: number;
  poolMode: PoolMode;
}

/** Where customers connect; `pool` is absent while no pooler runs (SPEC makes the pool string optional). */
export interface ClusterEndpoints {
  host: string;
  port: number;
  pool?: { host: string; port: number };
}

/**
 * Calls taking `TenantRoles` act only on roles the provider made for that tenant (CONFLICT otherwise),
 * so a wrong name can never change or drop a role or database of someone else on the cluster.
 */
export interface TenantClusterProvider {
  /** `embedded`: a real cluster with a PgBouncer the app runs; `unconfigured`: no admin URL, nothing works. */
  readonly kind: 'embedded' | 'unconfigured';
  readonly description: string;
  /**
   * Checks the cluster once (reachable as a superuser, `ssl` on, the tenants' group role, the
   * pg_hba rules of `scripts/postgres-tenant-cluster.sh` first) and makes sure the host's pooler
   * runs (started here, or the one another process of the host runs), its pools rebuilt from the
   * cluster. `pools` are not needed for that: they only repair a pool mode missing on the cluster.
   * Throws AppError SERVICE_UNAVAILABLE naming what to fix; retried on the next call.
   */
  start(pools: readonly PoolSpec[]): Promise<void>;
  /** Throws the same SERVICE_UNAVAILABLE as `start` when the cluster cannot take tenants; starts the host's pooler when none runs. */
  assertReady(): Promise<void>;
  endpoints(): ClusterEndpoints;
  /** Whether a database or a role of that name exists on the cluster (live or retained). */
  isNameTaken(name: string): Promise<boolean>;
  /** Database, roles, grants, limits and the pool, in that order; whatever was made is undone when a step fails. */
  createTenant(spec: TenantSpec): Promise<void>;
  /** New password for both logins, the pooler's auth file reloaded, and every open session of the tenant dropped. */
  setPassword(roles: TenantRoles, password: string): Promise<void>;
  setLimits(roles: TenantRoles, limits: TenantLimits, poolMode: PoolMode): Promise<void>;
  /**
   * Read-only by default (`default_transaction_read_only` on the database); open sessions are dropped so it applies at once.
   * A default, not a lock: a session may `SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE` to delete data.
   */
  setReadOnly(roles: TenantRoles, readOnly: boolean): Promise<void>;
  /** Logins refused (billing suspension) or allowed again; refusing drops open sessions. */
  setLoginAllowed(roles: TenantRoles, allowed: boolean): Promise<void>;
  /** Deletion: logins refused, sessions dropped, the pool removed; the database and its data stay. */
  revokeTenant(roles: TenantRoles): Promise<void>;
  /** The end of the retention: the database and the three roles are dropped for good. */
  dropTenant(roles: TenantRoles): Promise<void>;
  /** `pg_database_size` in bytes. */
  databaseSize(dbName: string): Promise<number>;
  stop(): Promise<void>;
}

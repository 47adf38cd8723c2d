import path from 'node:path';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';
import { findExecutable } from '../redis';
import { EmbeddedTenantCluster } from './embedded';
import type { TenantClusterProvider } from './types';
import { UnconfiguredTenantCluster } from './unconfigured';

export type { ClusterEndpoints, PoolMode, PoolSpec, TenantClusterProvider, TenantLimits, TenantRoles, TenantSpec } from './types';
export { EmbeddedTenantCluster, type EmbeddedTenantClusterOptions } from './embedded';
export { UnconfiguredTenantCluster } from './unconfigured';
export { scramVerifier } from './scram';

/**
 * One provider per process, shared through globalThis: the panel's Next bundle and the REST bridge
 * load this module separately, and one provider holds the process's connections to the cluster and
 * supervises PgBouncer when this process runs it. (A second instance would not start a second
 * PgBouncer: like the other processes of the host, it would find the one running over the folder.)
 */
const holder = globalThis as unknown as { __tenantClusterProvider?: TenantClusterProvider };

/** The cluster DATABASES_ADMIN_URL names (with PgBouncer when installed); without it, the unconfigured provider. */
export function getTenantClusterProvider(): TenantClusterProvider {
  holder.__tenantClusterProvider ??= makeTenantClusterProvider();
  return holder.__tenantClusterProvider;
}

/** The provider if this process has made one (nothing is made or configured by asking). */
export function madeTenantClusterProvider(): TenantClusterProvider | undefined {
  return holder.__tenantClusterProvider;
}

function makeTenantClusterProvider(): TenantClusterProvider {
  const config = getConfig();
  if (!config.DATABASES_ADMIN_URL) return new UnconfiguredTenantCluster(config.DATABASES_PUBLIC_HOST);
  const pgbouncerBinary = findDaemon(config.DATABASES_PGBOUNCER_BINARY);
  if (!pgbouncerBinary) {
    getLogger().warn({ binary: config.DATABASES_PGBOUNCER_BINARY }, 'pgbouncer not found: tenant databases get no pool connection string');
  }
  return new EmbeddedTenantCluster({
    adminUrl: config.DATABASES_ADMIN_URL,
    publicHost: config.DATABASES_PUBLIC_HOST,
    pgbouncerBinary,
    dir: path.resolve(config.DATABASES_DATA_DIR ?? path.join(config.DATA_DIR, 'databases')),
    poolPort: config.DATABASES_POOL_PORT,
    poolListenAddr: config.DATABASES_POOL_LISTEN_ADDR,
  });
}

/** Debian installs pgbouncer in /usr/sbin, which is not in every user's PATH: a bare name is looked for there too. */
function findDaemon(nameOrPath: string): string | null {
  if (nameOrPath.includes('/')) return findExecutable(nameOrPath);
  return findExecutable(nameOrPath) ?? findExecutable(path.join('/usr/sbin', nameOrPath)) ?? findExecutable(path.join('/usr/local/sbin', nameOrPath));
}

/**
 * Stops PgBouncer if this process runs it (the next process of the host needing it starts it again)
 * and closes the admin connections (shutdown, the end of a test file).
 */
export async function stopTenantClusterProvider(): Promise<void> {
  await holder.__tenantClusterProvider?.stop();
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. The caller stops the old one. */
export function resetTenantClusterProviderForTests(): void {
  holder.__tenantClusterProvider = undefined;
}

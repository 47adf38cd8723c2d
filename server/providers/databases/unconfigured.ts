import { AppError } from '../../platform/errors';
import { SETUP_SCRIPT } from './clusterCheck';
import type { ClusterEndpoints, TenantClusterProvider } from './types';

export const UNCONFIGURED_MESSAGE =
  `Shared PostgreSQL tenant databases are not configured: set DATABASES_ADMIN_URL to a superuser URL of a PostgreSQL cluster ` +
  `prepared with ${SETUP_SCRIPT}`;

/**
 * No DATABASES_ADMIN_URL: there is no cluster to put tenants on. Nothing starts; every call that
 * needs the cluster answers 503 SERVICE_UNAVAILABLE saying what to set, and `endpoints` still
 * answers so existing records can be shown.
 */
export class UnconfiguredTenantCluster implements TenantClusterProvider {
  readonly kind = 'unconfigured' as const;
  readonly description = 'Shared PostgreSQL tenant databases need DATABASES_ADMIN_URL (a cluster prepared with scripts/postgres-tenant-cluster.sh)';

  constructor(private readonly host = '127.0.0.1') {}

  async start(): Promise<void> {}

  async assertReady(): Promise<void> {
    throw unavailable();
  }

  endpoints(): ClusterEndpoints {
    return { host: this.host, port: 5432 };
  }

  async isNameTaken(): Promise<boolean> {
    throw unavailable();
  }

  async createTenant(): Promise<void> {
    throw unavailable();
  }

  async setPassword(): Promise<void> {
    throw unavailable();
  }

  async setLimits(): Promise<void> {
    throw unavailable();
  }

  async setReadOnly(): Promise<void> {
    throw unavailable();
  }

  async setLoginAllowed(): Promise<void> {
    throw unavailable();
  }

  async revokeTenant(): Promise<void> {
    throw unavailable();
  }

  async dropTenant(): Promise<void> {
    throw unavailable();
  }

  async databaseSize(): Promise<number> {
    throw unavailable();
  }

  async stop(): Promise<void> {}
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', UNCONFIGURED_MESSAGE);
}

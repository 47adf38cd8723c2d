import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';

// Each test file gets a database of its own: a fresh PostgreSQL database when TEST_DATABASE_URL
// (or DATABASE_URL) names a server, else an in-memory PGlite.
const serverUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
let dropDatabase: (() => Promise<void>) | undefined;

if (serverUrl) {
  const { default: postgres } = await import('postgres');
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  };
} else {
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DIR = 'memory://';
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'panel-test-'));
process.env.DATA_DIR = dataDir;
process.env.AUTH_SECRET ??= randomBytes(32).toString('hex');
process.env.APP_URL ??= 'http://localhost:3000';
// Real redis-server processes outlive a test file unless deleted; the suites that want them
// (the provider's and the Redis domain's) switch to the embedded provider and clean up after it.
process.env.REDIS_PROVIDER ??= 'simulator';
// Each test file's embedded S3 endpoint takes a free port rather than competing for the default one.
process.env.OBJECT_STORAGE_ENDPOINT_PORT ??= '0';
process.env.REGISTRY_ENDPOINT_PORT ??= '0';
process.env.HOSTING_HTTP_PORT ??= '0';
process.env.HOSTING_SFTP_PORT ??= '0';
// Hosting databases are made on the MariaDB server TEST_MYSQL_URL names (as .ci/run sets it), else simulated.
process.env.HOSTING_MYSQL_ADMIN_URL ??= process.env.TEST_MYSQL_URL ?? '';
// Shared PostgreSQL tenants are made on the cluster TEST_TENANT_CLUSTER_URL names (prepared by
// scripts/postgres-tenant-cluster.sh, as .ci/run does); without it their creation says it is not configured.
process.env.DATABASES_ADMIN_URL ??= process.env.TEST_TENANT_CLUSTER_URL ?? '';
process.env.DATABASES_POOL_PORT ??= '0';

await import('../server/platform/config');
const { migrateDatabase } = await import('../db/migrate');
await migrateDatabase();
// The composition root installs the job list, the event catalogue and the `_count` counters.
await import('../server/app');

afterAll(async () => {
  const { stopJobs } = await import('../server/platform/jobs');
  const { stopEmbeddedObjectStorage } = await import('../server/providers/objectStorage');
  await stopEmbeddedObjectStorage();
  // Any test that reached the registry started Docker Distribution, which would outlive the file.
  const { stopRegistryProvider } = await import('../server/providers/registry');
  await stopRegistryProvider();
  // So would nginx and php-fpm, the SFTP server and the MariaDB pool of hosting.
  const { stopHostingSftp } = await import('../server/domains/hosting/sftpService');
  const { stopWebServingProvider } = await import('../server/providers/hosting/web');
  const { stopHostingDatabaseProvider } = await import('../server/providers/hosting');
  await stopHostingSftp();
  await stopWebServingProvider();
  await stopHostingDatabaseProvider();
  // Tenant databases and roles live on the shared cluster, not in this file's database: every
  // tenant the file made (live, deleted or purged) is dropped there, then the pooler stopped.
  if (process.env.DATABASES_ADMIN_URL) {
    const { dropTenantsOfThisDatabase } = await import('./tenantCluster');
    await dropTenantsOfThisDatabase();
  }
  const { stopTenantClusterProvider } = await import('../server/providers/databases');
  await stopTenantClusterProvider();
  const { closeDb } = await import('../db');
  await stopJobs();
  await closeDb();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

import { defineConfig } from 'vitest/config';

// Only the tests that guard the mutated files (see stryker.config.mjs): Stryker reruns them for every
// mutant, so the pure ones skip test/setup.ts, which creates and migrates a database per file.
export default defineConfig({
  resolve: { alias: { '@': import.meta.dirname } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'silent', NODE_ENV: 'test', NEXT_TELEMETRY_DISABLED: '1', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000' },
    projects: [
      {
        extends: true,
        test: {
          name: 'auth',
          include: ['server/platform/auth/scopes.test.ts', 'server/platform/auth/roles.test.ts', 'server/platform/auth/access.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'rate-limit',
          include: ['server/platform/rateLimit/*.test.ts', 'server/platform/rest/requestBudget.test.ts'],
          setupFiles: ['test/setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'redis-catalogue', include: ['server/domains/redis/catalogue.test.ts'], setupFiles: ['test/setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'object-storage-tiers', include: ['server/domains/objectStorage/tiers.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'registry-access', include: ['server/domains/containerRegistry/access.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'confined-path', include: ['server/platform/confinedPath.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'database-tiers', include: ['server/domains/databases/tiers.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'tenant-cluster-check', include: ['server/providers/databases/clusterCheck.test.ts', 'server/providers/databases/scram.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'oauth-state', include: ['server/platform/oauthState.test.ts'], setupFiles: ['test/setup.ts'] },
      },
      {
        extends: true,
        test: { name: 'git-signatures', include: ['server/domains/integrations/gitHosts/signatures.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'sdk-retries-and-cli-exit-codes', include: ['clients/sdk/test/transport.test.ts', 'clients/cli/test/errors.test.ts'] },
      },
    ],
  },
});

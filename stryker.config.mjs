// @ts-check
// Run with TEST_DATABASE_URL set to a PostgreSQL server: the rate-limit tests create a database per
// run, and for every mutant that is much faster on a server than migrating an in-memory PGlite. Set
// TEST_REDIS_URL too, or the Redis store's tests are skipped and its mutants survive.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'server/platform/auth/scopes.ts',
    'server/platform/auth/roles.ts',
    'server/platform/auth/access.ts',
    'server/platform/rateLimit/**/*.ts',
    '!server/platform/rateLimit/**/*.test.ts',
    'server/platform/rest/requestBudget.ts',
    'server/domains/redis/catalogue.ts',
    'server/platform/oauthState.ts',
    'server/domains/objectStorage/tiers.ts',
    'server/domains/containerRegistry/access.ts',
    'server/platform/confinedPath.ts',
    'server/domains/databases/tiers.ts',
    'server/providers/databases/clusterCheck.ts',
    'server/providers/databases/scram.ts',
    'server/domains/integrations/gitHosts/signatures.ts',
    'clients/sdk/src/transport.ts',
    'clients/sdk/src/errors.ts',
    'clients/cli/src/errors.ts',
  ],
  coverageAnalysis: 'perTest',
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress'],
  tempDirName: '.stryker-tmp',
  // Build output and local data are large and no test reads them; copying them only slows the sandbox.
  ignorePatterns: ['/clients/test/.output', '/.next', '/dist', '/dist.building-*', '/.data', '/e2e', '/test-results', '/bench/.output', '/.scratch'],
};

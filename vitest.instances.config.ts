import { defineConfig } from 'vitest/config';

/** The several-instances suite: HTTP against processes that test/instances/run.ts started. */
export default defineConfig({
  test: {
    include: ['test/instances/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});

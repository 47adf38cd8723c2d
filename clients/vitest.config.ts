import { defineConfig } from 'vitest/config';

/**
 * The SDK's and the CLI's tests. Most drive a running server: `npm run test:clients` starts one and
 * names it in CLIENTS_TEST_BASE_URL (set it yourself to point them at another).
 */
const baseUrl = process.env.CLIENTS_TEST_BASE_URL ?? '';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    provide: { baseUrl },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file is a customer of its own on the one server; two at a time keep the server's answers quick.
    maxWorkers: 2,
  },
});

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

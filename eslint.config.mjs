// ESLint flat config: typescript-eslint recommended (syntax only, no type information, so it stays fast),
// react-hooks for the panel, and the layer boundaries of the codebase:
//
//   server/domains/<a>/**        → another domain only through its index.ts         (import-x/no-restricted-paths)
//   server/platform/**           → nothing from server/domains/** nor server/app.ts  (import-x/no-restricted-paths)
//   server/providers/**, server/billing/** → nothing from server/domains/**         (import-x/no-restricted-paths)
//   db/**                        → nothing from server/** nor components/**          (import-x/no-restricted-paths)
//   components/**                → from server/ only schemas and types; not db/index.ts (local/components-imports)
//   clients/sdk/**, clients/cli/** → nothing of the platform's code (server, db, components, app, test)
//   clients/sdk/**               → nothing from clients/cli/**
//
// The zones work on resolved paths (the `@/` alias through tsconfig paths, and relative imports);
// test/lint/boundaries.test.ts proves each one fires.
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'eslint/config';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import local from './eslint-rules/components-imports.mjs';

const root = import.meta.dirname;

// eslint:recommended without @eslint/js (not a dependency): the core rules flagged as recommended.
const eslintRecommended = Object.fromEntries([...builtinRules].filter(([, rule]) => rule.meta?.docs?.recommended).map(([name]) => [name, 'error']));

const domains = fs
  .readdirSync(path.join(root, 'server/domains'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

// One zone per domain: files of every other domain may reach it only through its index.ts.
const domainZones = domains.map((domain) => ({
  target: domains.filter((other) => other !== domain).map((other) => `./server/domains/${other}`),
  from: `./server/domains/${domain}`,
  except: ['./index.ts'],
  message: `Domain boundary: import another domain only through its index.ts ('../${domain}' or '@/server/domains/${domain}').`,
}));

const layerZones = [
  {
    target: './server/platform',
    from: ['./server/domains', './server/app.ts'],
    message: 'Platform boundary: server/platform must not import server/domains/** nor server/app.ts.',
  },
  {
    target: ['./server/providers', './server/billing'],
    from: './server/domains',
    message: 'Layer boundary: server/providers and server/billing sit below the domains and must not import server/domains/**.',
  },
  {
    target: './db',
    from: ['./server', './components'],
    message: 'DB boundary: db/ must not import server/** nor components/**.',
  },
  {
    target: ['./clients/sdk', './clients/cli'],
    from: ['./server', './db', './components', './app', './test'],
    message: 'Client boundary: the SDK and the CLI are packages of their own and reach the platform only through /v1.',
  },
  {
    target: './clients/sdk',
    from: './clients/cli',
    message: 'Client boundary: the SDK stands alone; the CLI is built on it, not the other way round.',
  },
];

// A few Node globals for the plain .mjs/.js scripts (TypeScript files leave no-undef to the compiler).
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'fetch',
    'AbortController',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'queueMicrotask',
    'structuredClone',
    'TextEncoder',
    'TextDecoder',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  {
    ignores: [
      '.next/**',
      '**/node_modules/**',
      'db/migrations/**',
      '.data/**',
      'test-results/**',
      'playwright-report/**',
      'dist/**',
      'e2e/.output/**',
      'e2e/screenshots/**',
      'bench/.output/**',
      '.scratch/**',
      '.stryker-tmp/**',
      'reports/**',
      'next-env.d.ts',
      // Written by `npm run sdk:generate` from the /v1 document.
      'clients/sdk/src/generated/**',
      // Boundary-test fixtures break the rules on purpose; the test lints them at virtual paths.
      'test/lint/fixtures/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  { files: ['**/*.{js,mjs,cjs,ts,tsx,mts,cts}'], rules: eslintRecommended },
  tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    rules: {
      // Unused bindings are errors, except the code's `_`-prefixed placeholders and rest-sibling omission.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // The guide forbids `any` in exported signatures; the code has none anywhere, so keep it strict everywhere.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['components/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '.node'],
          tsconfig: { configFile: path.join(root, 'tsconfig.json') },
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: root, zones: [...domainZones, ...layerZones] }],
    },
  },
  {
    files: ['components/**/*.{ts,tsx}'],
    plugins: { local },
    rules: { 'local/components-imports': 'error' },
  },
);

// Bench-only preload: `node --import ./bench/register-standins.mjs dist/server.js`.
//
// Only members and servers exist as domains so far, so the bench registers the other five project
// `_count` counters against stand-in tables that bench/run.ts creates in the bench database, to
// measure the project read with all seven counters, as it will run once every domain exists.
// BENCH_STANDIN_COUNTERS (set by bench/run.ts) names them: JSON [{ counter, label, table }].
//
// It registers through dist/platform/counters.js, the compiled server's own registry module (an
// entry of the build, see scripts/build-server.mjs): the same module instance dist/server.js
// imports, so nothing of this file is part of the production server. drizzle-orm is required,
// as the bundle requires it (scripts/build-server.mjs): the same instance, and none of the memory
// its ESM build would cost, which the bench would count against the server.
import { createRequire } from 'node:module';
import { registerResourceCounter } from '../dist/platform/counters.js';

const require = createRequire(import.meta.url);
const { isNull } = require('drizzle-orm');
const { pgTable, text, timestamp } = require('drizzle-orm/pg-core');

const standins = JSON.parse(process.env.BENCH_STANDIN_COUNTERS || '[]');
for (const { counter, label, table } of standins) {
  // The shape bench/run.ts creates: rows of a project, soft-deleted ones not counted.
  const rows = pgTable(table, {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  });
  registerResourceCounter({
    counter,
    label,
    blocksProjectDeletion: true,
    table: rows,
    projectIdColumn: rows.projectId,
    live: isNull(rows.deletedAt),
  });
}

// BENCH_WITHOUT_BUDGETS=1: the rate limiter's store allows every step, without a look anywhere, so
// the bench can show what request budgets cost. It takes the place the app keeps its one store in
// (server/platform/rateLimit/index.ts) before the app opens one.
if (process.env.BENCH_WITHOUT_BUDGETS === '1') {
  globalThis.__rateLimitStore = Promise.resolve({
    kind: 'memory',
    apply: async (_key, step) => ({ allowed: true, tatUs: step.nowUs }),
    purge: async () => 0,
    close: async () => {},
  });
}

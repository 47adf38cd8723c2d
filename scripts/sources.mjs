// What each build output is made from, and whether it is older than its sources. Shared by
// start.mjs and build-server.mjs; imports nothing heavier than node:fs, because start.mjs goes on
// to run the server in its own process.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const COMMON = ['server', 'db', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** The Next build (.next/BUILD_ID) and what it is built from. */
export const NEXT_BUILD = {
  name: 'Next build',
  output: path.join(ROOT, '.next', 'BUILD_ID'),
  sources: ['app', 'components', 'public', 'next.config.mjs', ...COMMON],
};

/** The compiled server and worker (dist/, see build-server.mjs) and what they are built from. */
export const SERVER_BUNDLE = {
  name: 'server bundle',
  output: path.join(ROOT, 'dist', 'server.js'),
  sources: ['server.ts', 'scripts/build-server.mjs', ...COMMON],
};

function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** 'missing' when there is no output yet, 'stale' when a source is newer, else null. */
export function staleness(build) {
  if (!existsSync(build.output)) return 'missing';
  const builtAt = statSync(build.output).mtimeMs;
  const changedAt = Math.max(...build.sources.map((s) => newestMtime(path.join(ROOT, s))));
  return changedAt > builtAt ? 'stale' : null;
}

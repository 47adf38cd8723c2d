// `npm start` (and `npm run worker` with --worker): builds what is missing or older than its
// sources, then runs the compiled server (dist/server.js) or worker (dist/worker.js) in this very
// process, with plain node: no TypeScript transpiler and no esbuild service at run time, and no
// wrapper process between the signals of a process manager and the server.
//
// The builds run as child processes that have exited before the server starts, so nothing of
// Next's build or of esbuild stays in memory. `npm run build` does the same builds unconditionally.
//
//   node scripts/start.mjs [--worker] [--build-only]
//
// --build-only brings the builds up to date and exits (the bench uses it before running dist/).
//
// Node options belong on the command line, so they live in package.json's start and worker scripts:
// --max-semi-space-size=16 caps V8's young generation at 32 MB (by default it grows to 128 MB on a
// machine with much memory) at no measurable CPU cost. Running the bundle some other way (a
// container's command, a process manager) means `NODE_ENV=production node --max-semi-space-size=16
// dist/server.js` after `npm run build`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NEXT_BUILD, ROOT, SERVER_BUNDLE, staleness } from './sources.mjs';

const worker = process.argv.includes('--worker');
const buildOnly = process.argv.includes('--build-only');
// Set here for the build and for the server alike: React, Next and our config all read it.
process.env.NODE_ENV = 'production';

function ensure(build, command, args) {
  const reason = staleness(build);
  if (!reason) return;
  console.log(reason === 'missing' ? `No ${build.name} yet; building…` : `Sources changed since the last ${build.name}; rebuilding…`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`${build.name} failed`);
    process.exit(result.status ?? 1);
  }
}

if (!worker) ensure(NEXT_BUILD, process.execPath, [createRequire(import.meta.url).resolve('next/dist/bin/next'), 'build']);
ensure(SERVER_BUNDLE, process.execPath, [path.join(ROOT, 'scripts', 'build-server.mjs')]);

if (!buildOnly) await import(pathToFileURL(path.join(ROOT, 'dist', worker ? 'worker.js' : 'server.js')).href);

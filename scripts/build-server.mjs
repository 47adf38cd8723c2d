// Compiles the custom server and the job worker to plain JavaScript in dist/, so production runs
// no TypeScript transpiler (and no esbuild service process) at run time.
//
//   node scripts/build-server.mjs      (part of `npm run build`; `npm start` runs it when stale)
//
// The project's own code is bundled; every package in node_modules stays an import resolved at run
// time, so Next, postgres.js, argon2 and friends load exactly as they do under tsx. Shared code is
// split into dist/chunks/, and dist/platform/counters.js is an entry of its own: one module
// instance shared with server.js and worker.js, which lets the bench register stand-in counters
// from a preload (bench/register-standins.mjs) without any bench code in the production bundle.
//
// drizzle-orm is the one package loaded through require() rather than import: its ESM build (the
// root and pg-core, chains of `export *`) costs Node 24 about 200 MB of heap while it is being
// linked, garbage right after but the server's peak resident memory for good; its CommonJS build
// costs about 15 MB. See requireCommonJsBuild below.
import { build } from 'esbuild';
import { renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './sources.mjs';

export const OUT_DIR = path.join(ROOT, 'dist');

/** Entry name (path under dist/, without .js) → source. */
export const ENTRY_POINTS = {
  server: 'server.ts',
  worker: 'server/worker.ts',
  'platform/counters': 'server/platform/counters.ts',
};

/** Packages the bundle loads with require() (their CommonJS build), for the reason above. */
const REQUIRED_PACKAGES = /^drizzle-orm(\/.*)?$/;

/**
 * Every import of a REQUIRED_PACKAGES module (static or dynamic) becomes a small ES module of the
 * bundle that requires the package and re-exports what its CommonJS build exports (read here, at
 * build time); the require itself stays external, resolved from node_modules at run time like
 * every other package.
 */
const requireCommonJsBuild = {
  name: 'require-commonjs-build',
  setup(build) {
    const requireHere = createRequire(path.join(ROOT, 'package.json'));
    build.onResolve({ filter: REQUIRED_PACKAGES }, (args) =>
      args.namespace === 'require-commonjs-build' ? { path: args.path, external: true } : { path: args.path, namespace: 'require-commonjs-build' },
    );
    build.onLoad({ filter: /.*/, namespace: 'require-commonjs-build' }, (args) => {
      const names = Object.keys(requireHere(args.path)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default' && name !== '__esModule');
      return {
        contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`,
        loader: 'js',
        resolveDir: ROOT,
      };
    });
  },
};

/** ESM output has no `require`; each output file gets its own, resolving from where it lies. */
const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

export async function buildServer() {
  const started = Date.now();
  // Built aside and swapped in whole: a failed build leaves the previous dist/ as it was, and no
  // stale hashed chunk survives a rebuild.
  const staging = `${OUT_DIR}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRY_POINTS,
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    // Names stay readable in stack traces and logs; the code is not shipped to browsers.
    minify: false,
    keepNames: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [requireCommonJsBuild],
    banner: { js: REQUIRE_BANNER },
  }).catch((err) => {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  });
  rmSync(OUT_DIR, { recursive: true, force: true });
  renameSync(staging, OUT_DIR);
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .reduce((sum, [, output]) => sum + output.bytes, 0);
  console.log(`server bundle: dist/ (${(bytes / 1024).toFixed(0)} kB of JavaScript) in ${Date.now() - started} ms`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildServer().catch((err) => {
    // esbuild has already printed the errors with their locations.
    if (!err?.errors) console.error(err);
    process.exit(1);
  });
}

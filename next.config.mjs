// @ts-check
// Plain JavaScript on purpose: Next loads its config at every server start, and a next.config.ts
// would be transpiled there by SWC, loading its native binary (about 25 MB of resident memory) into
// the production server for the sake of one small object.

/** @type {import('next').NextConfig} */
const nextConfig = {
  serverExternalPackages: ['@electric-sql/pglite', 'argon2', 'pg-boss', 'pino', 'postgres', 'nodemailer', 'ssh2', 'mysql2'],
  poweredByHeader: false,
  typedRoutes: false,
  experimental: {
    // Load each route's server bundle on its first request instead of all of them at start: a
    // process that mostly serves /v1 (or a panel where most pages are rarely opened) keeps about
    // 10 MB less, for a few milliseconds more on the first request to a page.
    preloadEntriesOnStart: false,
  },
};

export default nextConfig;

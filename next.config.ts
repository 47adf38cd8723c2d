import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  serverExternalPackages: ['@electric-sql/pglite', 'argon2', 'pg-boss', 'pino', 'postgres', 'nodemailer'],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;

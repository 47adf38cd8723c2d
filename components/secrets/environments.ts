import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import type { Environment } from '@/server/domains/secrets/schema';

export type SecretRow = inferRouterOutputs<AppRouter>['secrets']['list'][number];

export const ENVIRONMENT_LABELS: Record<Environment, string> = {
  default: 'Default',
  development: 'Development',
  staging: 'Staging',
  production: 'Production',
};

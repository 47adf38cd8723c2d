import type { Environment } from '@/server/domains/variables/schema';

/** How the panel names the deployment environments that secrets and variables share. */
export const ENVIRONMENT_LABELS: Record<Environment, string> = {
  default: 'Default',
  development: 'Development',
  staging: 'Staging',
  production: 'Production',
};

export const ENVIRONMENT_OPTIONS = (Object.entries(ENVIRONMENT_LABELS) as [Environment, string][]).map(([value, label]) => ({ value, label }));

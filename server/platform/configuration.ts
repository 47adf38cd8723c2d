import { z } from 'zod';

/**
 * What secrets and variables share: the deployment environments an entry belongs to, the rule for
 * its name, and how one environment's effective set is worked out. Deployments read configuration
 * through `effectiveConfiguration` and nothing else.
 */
export const ENVIRONMENTS = ['default', 'development', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const environmentSchema = z.enum(ENVIRONMENTS, { error: 'Environment must be default, development, staging or production' });

export const CONFIG_NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;
export const CONFIG_NAME_MAX = 100;

/** Upper-case letters, digits and underscores, starting with a letter (SPEC: Secret.name), as environment variables are named. */
export const configNameSchema = z
  .string({ error: 'Name is required' })
  .min(1, 'Name is required')
  .max(CONFIG_NAME_MAX, `Name must be at most ${CONFIG_NAME_MAX} characters`)
  .regex(CONFIG_NAME_PATTERN, 'Name must be upper-case letters, digits and underscores, starting with a letter');

/**
 * The entries that apply in `environment`: each name's entry of that environment, else its
 * `default` one. Asked for `default`, only the default entries. Sorted by name.
 */
export function effectiveConfiguration<T extends { name: string; environment: Environment }>(entries: readonly T[], environment: Environment): T[] {
  const byName = new Map<string, T>();
  for (const entry of entries) {
    if (entry.environment === 'default' && !byName.has(entry.name)) byName.set(entry.name, entry);
  }
  for (const entry of entries) {
    if (entry.environment === environment) byName.set(entry.name, entry);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

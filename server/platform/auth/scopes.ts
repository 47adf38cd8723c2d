import { z } from 'zod';

/**
 * The resources an API key can be scoped to. SPEC names the first group; the rest are ours for
 * resources SPEC leaves unnamed. `storage` is accepted as an alias of `object-storage` because the
 * interface shows both names for bucket operations.
 */
export const SCOPE_RESOURCES = [
  'projects',
  'members',
  'billing',
  'servers',
  'domains',
  'redis',
  'secrets',
  'variables',
  'webhooks',
  'object-storage',
  'storage',
  'registry',
  'hosting',
  'databases',
  'apps',
  'integrations',
  'notifications',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[]);

export const scopeSchema = z.enum(ALL_SCOPES as [Scope, ...Scope[]], {
  error: (issue) => `Unknown scope ${JSON.stringify(issue.input)}; allowed scopes are <resource>:read or <resource>:write`,
});

const ALIASES: Partial<Record<ScopeResource, ScopeResource>> = { storage: 'object-storage' };

function canonical(scope: Scope): Scope {
  const [resource, direction] = scope.split(':') as [ScopeResource, 'read' | 'write'];
  return `${ALIASES[resource] ?? resource}:${direction}`;
}

/** True when the granted scopes cover every required one (aliases count as the same scope). */
export function hasScopes(granted: readonly string[], required: readonly Scope[]): boolean {
  const have = new Set(granted.map((s) => canonical(s as Scope)));
  return required.every((s) => have.has(canonical(s)));
}

export function missingScopes(granted: readonly string[], required: readonly Scope[]): Scope[] {
  const have = new Set(granted.map((s) => canonical(s as Scope)));
  return required.filter((s) => !have.has(canonical(s)));
}

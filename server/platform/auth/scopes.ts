import { z } from 'zod';

/**
 * The resources an API key can be scoped to. SPEC names the first group; the rest are ours for
 * resources SPEC leaves unnamed. `storage` is accepted as an alias of `object-storage` because the
 * interface shows both names for bucket operations. `audit` (the project's audit log) is read-only.
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
  'audit',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];

/** Resources no operation writes: a write scope for them would grant nothing, so none exists. */
export const READ_ONLY_SCOPE_RESOURCES = ['audit'] as const satisfies readonly ScopeResource[];
type ReadOnlyScopeResource = (typeof READ_ONLY_SCOPE_RESOURCES)[number];

export type ScopeDirection = 'read' | 'write';
export type Scope = `${ScopeResource}:read` | `${Exclude<ScopeResource, ReadOnlyScopeResource>}:write`;

/** The directions a resource can be granted in: read, and write unless it is read-only. */
export function scopeDirections(resource: ScopeResource): readonly ScopeDirection[] {
  return (READ_ONLY_SCOPE_RESOURCES as readonly ScopeResource[]).includes(resource) ? ['read'] : ['read', 'write'];
}

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((r) => scopeDirections(r).map((d) => `${r}:${d}` as Scope));

export const scopeSchema = z.enum(ALL_SCOPES as [Scope, ...Scope[]], {
  error: (issue) => `Unknown scope ${JSON.stringify(issue.input)}; allowed scopes are <resource>:read or <resource>:write`,
});

const ALIASES: Partial<Record<ScopeResource, ScopeResource>> = { storage: 'object-storage' };

function canonical(scope: string): string {
  const [resource, direction] = scope.split(':') as [ScopeResource, ScopeDirection];
  return `${ALIASES[resource] ?? resource}:${direction}`;
}

/** True when the granted scopes cover every required one (aliases count as the same scope). */
export function hasScopes(granted: readonly string[], required: readonly Scope[]): boolean {
  const have = new Set(granted.map(canonical));
  return required.every((s) => have.has(canonical(s)));
}

export function missingScopes(granted: readonly string[], required: readonly Scope[]): Scope[] {
  const have = new Set(granted.map(canonical));
  return required.filter((s) => !have.has(canonical(s)));
}

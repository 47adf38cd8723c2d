import type { ProjectRole } from '../../platform/auth/roles';
import { roleAtLeast } from '../../platform/auth/roles';
import { hasScopes } from '../../platform/auth/scopes';
import type { RegistryAction } from '../../providers/registry';

/** Who asks the token endpoint: nobody, or an API key (its project, scopes and its creator's current role). */
export type RegistryCaller = { kind: 'anonymous' } | { kind: 'apiKey'; keyId: string; projectId: string; scopes: readonly string[]; role: ProjectRole | null };

/** What the platform knows of the repository a scope names. */
export interface ScopeTarget {
  projectId: string;
  /** False for a name no repository has yet: a push creates it. */
  exists: boolean;
  visibility: 'PRIVATE' | 'PUBLIC';
  /** A billing suspension refuses pushes and anonymous pulls. */
  suspended: boolean;
}

/** `repository:<name>:<actions>`; the name may hold colons (a host with a port), the actions do not. */
const REPOSITORY_SCOPE = /^repository:(.+):([^:]+)$/;

/** What a customer's token may carry; `delete` is the platform's own. */
export type GrantableAction = Extract<RegistryAction, 'pull' | 'push'>;

export interface RequestedScope {
  repository: string;
  actions: string[];
}

/**
 * Parses the `scope` parameters of a token request, `repository:<name>:<actions>`. Other resource
 * types (`registry:catalog:*`) are never granted and are dropped.
 */
export function parseScopes(values: readonly string[]): RequestedScope[] {
  const scopes: RequestedScope[] = [];
  for (const part of values.flatMap((value) => value.split(' '))) {
    const match = REPOSITORY_SCOPE.exec(part);
    if (!match) continue;
    const actions = match[2]!.split(',').filter((action) => action.length > 0);
    if (actions.length > 0) scopes.push({ repository: match[1]!, actions });
  }
  return scopes;
}

/**
 * The actions the token may carry for one repository, among those asked for. Pulling a PUBLIC
 * repository needs nothing; anything else needs an API key of the repository's project: pulls
 * `registry:read`, pushes `registry:read` and `registry:write` (the registry itself needs pull
 * beside push for every upload) by a member. Deleting is never handed out: deletes go through the API.
 */
export function allowedActions(caller: RegistryCaller, target: ScopeTarget | null, requested: readonly string[]): GrantableAction[] {
  if (!target) return [];
  const allowed = new Set<GrantableAction>();
  const publicPull = target.exists && target.visibility === 'PUBLIC' && !target.suspended;
  if (publicPull) allowed.add('pull');
  if (caller.kind === 'apiKey' && caller.projectId === target.projectId && caller.role) {
    if (hasScopes(caller.scopes, ['registry:read'])) allowed.add('pull');
    if (!target.suspended && roleAtLeast(caller.role, 'member') && hasScopes(caller.scopes, ['registry:read', 'registry:write'])) allowed.add('push');
  }
  return (['pull', 'push'] as const).filter((action) => allowed.has(action) && requested.includes(action));
}

/**
 * The token's subject, which the registry names as the actor of the events it causes: the key for
 * its own project's repositories, and nobody (anonymous, counted against public egress caps) when
 * the key reaches only public repositories of other projects.
 */
export function tokenSubject(caller: RegistryCaller, ownProjectIds: readonly string[]): string | null {
  if (caller.kind !== 'apiKey') return null;
  return ownProjectIds.includes(caller.projectId) ? `key:${caller.keyId}` : null;
}

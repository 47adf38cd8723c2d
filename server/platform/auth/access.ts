import type { RequestContext } from '../context';
import { AppError } from '../errors';
import type { Actor } from './actor';
import { resolveProjectAccess, type ProjectAccess } from './projectAccess';
import { ROLE_DESCRIPTION, roleAtLeast, type ProjectRole, type RequiredRole } from './roles';
import { hasScopes, missingScopes, type Scope } from './scopes';

/** Who may call an operation; procedures take it from `meta`, raw routes from their definition. */
export interface AccessRules {
  /** Scopes an API key must hold; R/W operations list both. */
  scopes?: readonly Scope[];
  /**
   * Any valid credential may call it, an API key whatever its scopes: the answer is the same for
   * every caller (the catalogue). Declared rather than implied by empty `scopes`, so a forgotten
   * scope list is told apart from an operation open to every key.
   */
  anyCredential?: boolean;
  /** The least project role the caller needs (project-scoped operations). */
  role?: RequiredRole;
  /** Only the panel's session may call it; API keys get 403. */
  sessionOnly?: boolean;
  /** Answer 404 rather than 403 when the caller may not see the project (SPEC: project get and delete). */
  hideForbiddenAsNotFound?: boolean;
}

export type SignedInActor = Exclude<Actor, { kind: 'anonymous' } | { kind: 'invalid' }>;

/** The signed-in caller, or the refusal that fits: no credential, a bad one, a cross-site write, a missing scope. */
export function requireSignedIn(ctx: RequestContext, rules: AccessRules): SignedInActor {
  const actor = requireAuthenticated(ctx);
  requireCallerRules(ctx, actor, rules);
  return actor;
}

/** The caller behind a valid credential; anything else is 401 and names no one. */
export function requireAuthenticated(ctx: RequestContext): SignedInActor {
  const { actor } = ctx;
  if (actor.kind === 'anonymous') throw new AppError('UNAUTHORIZED', 'Authentication required: send an API key or sign in');
  if (actor.kind === 'invalid') throw new AppError('UNAUTHORIZED', actor.reason);
  return actor;
}

/** What an authenticated caller may still be refused before any project is read: a cross-site write, a key where only a session may act, a missing scope. */
export function requireCallerRules(ctx: RequestContext, actor: SignedInActor, rules: AccessRules): void {
  if (ctx.crossSiteWrite) {
    throw new AppError('FORBIDDEN', 'Cookie-authenticated writes need a same-origin Origin header and a JSON (or, for uploads, octet-stream) body');
  }
  if (actor.kind === 'apiKey') {
    if (rules.sessionOnly) throw new AppError('FORBIDDEN', 'This operation requires a signed-in session; API keys cannot call it');
    const required = rules.scopes ?? [];
    if (!hasScopes(actor.scopes, required)) {
      throw new AppError('FORBIDDEN', `API key lacks the scope ${missingScopes(actor.scopes, required).join(', ')}`);
    }
  }
}

export interface ProjectGrant {
  project: ProjectAccess['project'];
  role: ProjectRole;
}

/**
 * Resolves `{projectId}` (id or slug), then checks that an API key belongs to that project, that
 * the caller is a member and that their role reaches the required one. `onStanding` hears of the
 * project once the caller is known to belong to it, before the role check may still refuse them.
 */
export async function requireProjectRole(
  actor: SignedInActor,
  projectRef: string,
  rules: AccessRules,
  onStanding?: (projectId: string) => void,
): Promise<ProjectGrant> {
  const denied = (message: string) => (rules.hideForbiddenAsNotFound ? new AppError('NOT_FOUND', 'Project not found') : new AppError('FORBIDDEN', message));
  const access = await resolveProjectAccess(actor.userId, projectRef);
  if (!access) throw new AppError('NOT_FOUND', 'Project not found');
  if (actor.kind === 'apiKey' && access.project.id !== actor.projectId) {
    throw denied('This API key belongs to another project');
  }
  if (!access.role) throw denied('You are not a member of this project');
  onStanding?.(access.project.id);
  const required = rules.role ?? 'viewer';
  if (!roleAtLeast(access.role, required)) throw denied(`This operation needs ${ROLE_DESCRIPTION[required]}`);
  return { project: access.project, role: access.role };
}

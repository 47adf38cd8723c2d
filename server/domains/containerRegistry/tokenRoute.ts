import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { containerRepositories } from '../../../db/schema';
import { resolveActor } from '../../platform/auth/actor';
import { hasScopes } from '../../platform/auth/scopes';
import { AppError } from '../../platform/errors';
import type { RawRoute } from '../../platform/rest/rawRoutes';
import type { RepositoryAccess } from '../../providers/registry';
import { allowedActions, parseScopes, tokenSubject, type RegistryCaller, type ScopeTarget } from './access';
import { liveRegistryNamed } from './registries';
import { startedRegistry } from './registry';
import { REPOSITORY_NAME_PATTERN } from './schema';

export const REGISTRY_TOKEN_PATH = '/registry/token';
/** Short, so closing a repository (its egress cap, a suspension) reaches tokens already handed out soon. */
export const REGISTRY_TOKEN_TTL_SECONDS = 300;

/**
 * The registry's token realm (Docker's token authentication). `docker login <host>` sends an API
 * key as the password (any username) in Basic auth; anonymous requests get tokens for public pulls
 * only. Scopes are granted per repository by `allowedActions`; what is not granted is left out of
 * the token, and the registry then answers 401 to the request that needed it. The answer is the
 * protocol's own JSON, not the API envelope, since registry clients read it.
 */
export const registryTokenRoute: RawRoute = {
  method: 'GET',
  path: REGISTRY_TOKEN_PATH,
  access: { kind: 'public' },
  async handle(request) {
    const provider = await startedRegistry();
    const service = request.query.get('service');
    if (service !== null && service !== provider.service) {
      throw new AppError('BAD_REQUEST', `Unknown registry service "${service}"; this realm issues tokens for ${provider.service}`);
    }
    const caller = await callerOf(request.headers.authorization);
    const requested = parseScopes(request.query.getAll('scope'));
    if (requested.length === 0 && caller.kind === 'apiKey' && !hasScopes(caller.scopes, ['registry:read'])) {
      throw new AppError('FORBIDDEN', 'This API key has no registry scope: give it registry:read (and registry:write to push)');
    }
    const access: RepositoryAccess[] = [];
    const ownProjects: string[] = [];
    for (const scope of requested) {
      const target = await scopeTarget(scope.repository);
      const actions = allowedActions(caller, target, scope.actions);
      if (actions.length === 0) continue;
      access.push({ repository: scope.repository, actions });
      if (target) ownProjects.push(target.projectId);
    }
    const issued = await provider.issueToken(tokenSubject(caller, ownProjects), access, REGISTRY_TOKEN_TTL_SECONDS);
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify({ token: issued.token, access_token: issued.token, expires_in: issued.expiresIn, issued_at: issued.issuedAt }),
    };
  },
};

async function callerOf(authorization: string | undefined): Promise<RegistryCaller> {
  if (!authorization) return { kind: 'anonymous' };
  const key = keyIn(authorization);
  if (!key) throw new AppError('UNAUTHORIZED', 'Log in with an API key as the password (any username)');
  const actor = await resolveActor({ authorization: `Bearer ${key}` });
  if (actor.kind !== 'apiKey') throw new AppError('UNAUTHORIZED', actor.kind === 'invalid' ? actor.reason : 'Invalid API key');
  return { kind: 'apiKey', keyId: actor.keyId, projectId: actor.projectId, scopes: actor.scopes, role: actor.role };
}

function keyIn(authorization: string): string | null {
  const basic = authorization.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i)?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const password = colon >= 0 ? decoded.slice(colon + 1) : '';
    return password.length > 0 ? password : null;
  }
  return authorization.match(/^Bearer\s+(\S+)$/i)?.[1] ?? null;
}

/** The repository a scope names, `<registry>/<repository>`; null when no live registry has it or the name cannot be one. */
async function scopeTarget(name: string): Promise<ScopeTarget | null> {
  const slash = name.indexOf('/');
  if (slash <= 0) return null;
  const repositoryName = name.slice(slash + 1);
  if (repositoryName.length > 128 || !REPOSITORY_NAME_PATTERN.test(repositoryName)) return null;
  const db = await getDb();
  const registry = await liveRegistryNamed(db, name.slice(0, slash));
  if (!registry) return null;
  const [repository] = await db
    .select({ visibility: containerRepositories.visibility })
    .from(containerRepositories)
    .where(and(eq(containerRepositories.registryId, registry.id), eq(containerRepositories.name, repositoryName), isNull(containerRepositories.deletedAt)));
  return {
    projectId: registry.projectId,
    exists: Boolean(repository),
    visibility: repository?.visibility ?? 'PRIVATE',
    suspended: registry.billingSuspendedAt !== null,
  };
}

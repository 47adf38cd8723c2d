import { and, asc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { apiKeys, containerRepositories, memberships, type RepositoryVisibility } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { monthKeyOf } from '../../billing/period';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { allowedActions, type RegistryCaller, type ScopeTarget } from './access';
import { purgeRepository, upstream } from './images';
import { liveRegistry } from './registries';
import { startedRegistry } from './registry';
import type { Repository, RepositoryCredentials, RegistryUser, UpdateRepositoryInput } from './schema';
import { fullName, toRepositoryView, type RegistryRow, type RepositoryRow } from './views';

export interface NewRepository {
  name: string;
  visibility: RepositoryVisibility;
  publicEgressCapGb?: number | null;
}

export async function listRepositories(projectId: string, registryId: string): Promise<Repository[]> {
  const registry = await liveRegistry(projectId, registryId);
  const db = await getDb();
  const rows = await db
    .select()
    .from(containerRepositories)
    .where(and(eq(containerRepositories.registryId, registry.id), isNull(containerRepositories.deletedAt)))
    .orderBy(asc(containerRepositories.name));
  return rows.map((row) => toRepositoryView(registry, row));
}

export async function getRepository(projectId: string, registryId: string, repositoryId: string): Promise<Repository> {
  const { registry, repository } = await liveRepository(projectId, registryId, repositoryId);
  return toRepositoryView(registry, repository);
}

/**
 * Makes a repository with the registry's current tag mutability, scanning, encryption and
 * lifecycle defaults. PUBLIC needs `publicEgressCapGb`; PRIVATE takes none.
 */
export async function createRepository(projectId: string, registryId: string, actorUserId: string, input: NewRepository): Promise<Repository> {
  const registry = await liveRegistry(projectId, registryId);
  const cap = capFor(input.visibility, input.publicEgressCapGb);
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      const row = await insertRepository(tx, registry, input.name, input.visibility, cap);
      await emit(tx, projectId, 'container_repository.created', {
        registryId,
        repositoryId: row.id,
        name: row.name,
        visibility: row.visibility,
        by: actorUserId,
      });
      return toRepositoryView(registry, row);
    });
  } catch (err) {
    if (isUniqueViolation(err, 'container_repositories_live_name_key')) {
      throw new AppError('CONFLICT', `Registry "${registry.name}" already has a repository named "${input.name}"`);
    }
    throw err;
  }
}

/** The row a repository starts as, whether made through the API or by a first push. */
export async function insertRepository(
  tx: DbOrTx,
  registry: RegistryRow,
  name: string,
  visibility: RepositoryVisibility,
  publicEgressCapGb: number | null,
): Promise<RepositoryRow> {
  const now = new Date();
  const [row] = await tx
    .insert(containerRepositories)
    .values({
      id: newId('crepo'),
      registryId: registry.id,
      projectId: registry.projectId,
      name,
      visibility,
      publicEgressCapGb,
      egressPeriod: monthKeyOf(now),
      imageTagMutability: registry.imageTagMutability,
      scanOnPush: registry.scanOnPush,
      encryptionType: registry.encryptionType,
      kmsKeyArn: registry.kmsKeyArn,
      gcEnabled: registry.lifecycleEnabled,
      gcKeepLastN: registry.lifecycleKeepLastN,
      gcDeleteUntagged: true,
      gcUntaggedAfterDays: registry.lifecycleUntaggedAfterDays,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

/**
 * Changes retention and visibility. PUBLIC needs a cap (the one sent, or the one it has); PRIVATE
 * clears it. A repository the cap closed opens again, with a fresh allowance for the month, when
 * it is set PUBLIC again or its cap is raised.
 */
export async function updateRepository(
  projectId: string,
  registryId: string,
  repositoryId: string,
  actorUserId: string,
  input: UpdateRepositoryInput,
): Promise<Repository> {
  const changed = Object.entries(input).filter(([, value]) => value !== undefined);
  if (changed.length === 0)
    throw new AppError('BAD_REQUEST', 'Send at least one of gcEnabled, gcKeepLastN, gcDeleteUntagged, gcUntaggedAfterDays, visibility, publicEgressCapGb');
  const { registry, repository } = await liveRepository(projectId, registryId, repositoryId);
  const closedByCap = repository.visibility === 'PRIVATE' && repository.publicEgressCapHitAt !== null;
  const capRaised = input.publicEgressCapGb != null && repository.publicEgressCapGb != null && input.publicEgressCapGb > repository.publicEgressCapGb;
  const reopening = closedByCap && (input.visibility === 'PUBLIC' || (input.visibility === undefined && capRaised));
  const visibility = reopening ? 'PUBLIC' : (input.visibility ?? repository.visibility);
  const wantedCap = input.publicEgressCapGb === undefined ? repository.publicEgressCapGb : input.publicEgressCapGb;
  // A repository the cap closed keeps its cap while PRIVATE, so that raising it can reopen it.
  const cap = visibility === 'PRIVATE' && closedByCap && input.visibility !== 'PRIVATE' ? wantedCap : capFor(visibility, wantedCap);
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [saved] = await tx
      .update(containerRepositories)
      .set({
        gcEnabled: input.gcEnabled ?? repository.gcEnabled,
        gcKeepLastN: input.gcKeepLastN ?? repository.gcKeepLastN,
        gcDeleteUntagged: input.gcDeleteUntagged ?? repository.gcDeleteUntagged,
        gcUntaggedAfterDays: input.gcUntaggedAfterDays ?? repository.gcUntaggedAfterDays,
        visibility,
        publicEgressCapGb: cap,
        ...(reopening ? { publicEgressCapHitAt: null, publicEgressUsedBytes: 0, egressPeriod: monthKeyOf(new Date()) } : {}),
        ...(input.visibility === 'PRIVATE' ? { publicEgressCapHitAt: null } : {}),
        updatedAt: new Date(),
      })
      .where(eq(containerRepositories.id, repository.id))
      .returning();
    await emit(tx, projectId, 'container_repository.updated', {
      registryId,
      repositoryId,
      name: repository.name,
      changed: changed.map(([field]) => field),
      visibility,
      reopened: reopening,
      by: actorUserId,
    });
    return toRepositoryView(registry, saved!);
  });
}

/** Deletes the repository's images at the registry (502 and kept when that fails), then the repository. */
export async function deleteRepository(projectId: string, registryId: string, repositoryId: string, actorUserId: string): Promise<void> {
  const { registry, repository } = await liveRepository(projectId, registryId, repositoryId);
  await purgeRepository(registry, repository);
  const db = await getDb();
  await db.transaction(async (tx) => {
    const now = new Date();
    const [deleted] = await tx
      .update(containerRepositories)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(containerRepositories.id, repository.id), isNull(containerRepositories.deletedAt)))
      .returning({ id: containerRepositories.id });
    if (deleted) await emit(tx, projectId, 'container_repository.deleted', { registryId, repositoryId, name: repository.name, by: actorUserId });
  });
}

/**
 * Who can reach the repository with `docker login`, by the token endpoint's own rules: the
 * project's live API keys it would grant pull or push, and anyone for pulls while the repository
 * is PUBLIC. `error` is set, with no users, when the registry cannot be reached.
 */
export async function repositoryCredentials(projectId: string, registryId: string, repositoryId: string): Promise<RepositoryCredentials> {
  const { registry, repository } = await liveRepository(projectId, registryId, repositoryId);
  const provider = await startedRegistry();
  const login = { host: provider.host(), username: 'any', passwordHint: 'An API key of this project with registry:read (and registry:write to push)' };
  try {
    await upstream(() => provider.listTags(fullName(registry.name, repository.name)));
  } catch (err) {
    return { users: [], error: err instanceof Error ? err.message : 'The container registry could not be reached', login };
  }
  const db = await getDb();
  const keys = await db
    .select({ key: apiKeys, role: memberships.role })
    .from(apiKeys)
    .leftJoin(memberships, and(eq(memberships.projectId, apiKeys.projectId), eq(memberships.userId, apiKeys.createdByUserId)))
    .where(and(eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt));
  const target: ScopeTarget = { projectId, exists: true, visibility: repository.visibility, suspended: registry.billingSuspendedAt !== null };
  const now = Date.now();
  const users: RegistryUser[] = [];
  for (const { key, role } of keys) {
    if (key.expiresAt && key.expiresAt.getTime() <= now) continue;
    const caller: RegistryCaller = { kind: 'apiKey', keyId: key.id, projectId, scopes: key.scopes, role };
    // What the token endpoint would grant the key, beyond what anyone may do.
    const actions = allowedActions(caller, { ...target, visibility: 'PRIVATE' }, ['pull', 'push']);
    if (actions.length === 0) continue;
    users.push({
      kind: 'apiKey',
      id: key.id,
      name: key.name,
      keyPrefix: key.prefix,
      actions,
      lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
      expiresAt: key.expiresAt?.toISOString() ?? null,
    });
  }
  if (allowedActions({ kind: 'anonymous' }, target, ['pull']).length > 0) {
    users.push({ kind: 'anonymous', id: null, name: 'Anyone (public pulls)', keyPrefix: null, actions: ['pull'], lastUsedAt: null, expiresAt: null });
  }
  return { users, error: null, login };
}

export async function liveRepository(
  projectId: string,
  registryId: string,
  repositoryId: string,
): Promise<{ registry: RegistryRow; repository: RepositoryRow }> {
  const registry = await liveRegistry(projectId, registryId);
  const db = await getDb();
  const [repository] = await db
    .select()
    .from(containerRepositories)
    .where(and(eq(containerRepositories.id, repositoryId), eq(containerRepositories.registryId, registry.id), isNull(containerRepositories.deletedAt)));
  if (!repository) throw new AppError('NOT_FOUND', 'Repository not found');
  return { registry, repository };
}

function capFor(visibility: RepositoryVisibility, cap: number | null | undefined): number | null {
  if (visibility === 'PRIVATE') return null;
  if (cap == null) {
    throw new AppError('VALIDATION_ERROR', 'publicEgressCapGb (1 to 10000 GB) is required for a PUBLIC repository', {
      fields: { publicEgressCapGb: 'required when visibility is PUBLIC' },
    });
  }
  return cap;
}

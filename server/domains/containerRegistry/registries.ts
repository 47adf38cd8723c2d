import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { containerRegistries, containerRepositories } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Preview } from '../../billing/preview';
import { endBillingItem, previewPurchase, purchaseCreation } from '../../billing/purchases';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { purgeRepository, registryUsage } from './images';
import { startedRegistry } from './registry';
import type { CreateRegistryInput, Registry, UpdateRegistryInput } from './schema';
import { toRegistryView, type RegistryRow, type RepositoryRow } from './views';

export const REGISTRY_RESOURCE_TYPE = 'container_registry';
/** USD 1 a month, in minor units; storage and egress are measured besides. */
export const REGISTRY_MONTHLY = 100;

export async function listRegistries(projectId: string): Promise<Registry[]> {
  await startedRegistry();
  const db = await getDb();
  const rows = await db
    .select()
    .from(containerRegistries)
    .where(and(eq(containerRegistries.projectId, projectId), isNull(containerRegistries.deletedAt)))
    .orderBy(desc(containerRegistries.createdAt), desc(containerRegistries.id));
  const repositories = await liveRepositoriesOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toRegistryView(row, repositories.get(row.id) ?? []));
}

export async function getRegistry(projectId: string, registryId: string): Promise<Registry> {
  const row = await liveRegistry(projectId, registryId);
  const db = await getDb();
  return toRegistryView(row, (await liveRepositoriesOf(db, [row.id])).get(row.id) ?? []);
}

export function previewRegistry(projectId: string): Promise<Preview> {
  return previewPurchase(projectId, REGISTRY_MONTHLY);
}

/**
 * Buys a registry: the name is checked first (409 when any live registry holds it), then the
 * engine charges the prorated USD 1 and the row is written with the charge. Nothing exists at the
 * registry until the first push: names are paths there, so there is nothing to provision.
 */
export async function createRegistry(projectId: string, actorUserId: string, input: CreateRegistryInput): Promise<{ deployed: true; id: string }> {
  const db = await getDb();
  await assertNameFree(db, input.name);
  const registryId = newId('creg');
  try {
    await purchaseCreation({
      projectId,
      actorUserId,
      resourceType: REGISTRY_RESOURCE_TYPE,
      resourceKey: input.name,
      category: 'containerRegistry',
      description: `Container registry ${input.name} (${input.region})`,
      monthly: REGISTRY_MONTHLY,
      assertAvailable: (tx) => assertNameFree(tx, input.name),
      fulfil: async (tx, { billingItemId }) => {
        const now = new Date();
        await tx.insert(containerRegistries).values({
          id: registryId,
          projectId,
          name: input.name,
          region: input.region,
          imageTagMutability: input.imageTagMutability,
          scanOnPush: input.scanOnPush,
          encryptionType: input.encryptionType,
          kmsKeyArn: input.encryptionType === 'KMS' ? (input.kmsKeyArn ?? null) : null,
          lifecycleEnabled: input.lifecycleEnabled,
          lifecycleKeepLastN: input.lifecycleKeepLastN,
          lifecycleUntaggedAfterDays: input.lifecycleUntaggedAfterDays,
          billingItemId,
          createdAt: now,
          updatedAt: now,
        });
        await emit(tx, projectId, 'container_registry.created', { registryId, name: input.name, region: input.region, by: actorUserId });
        return { resourceId: registryId, result: undefined };
      },
    });
  } catch (err) {
    if (isUniqueViolation(err, 'container_registries_live_name_key')) throw nameTaken(input.name);
    throw err;
  }
  return { deployed: true, id: registryId };
}

/**
 * Changes settings. Tag mutability and scanning are applied to every existing repository at once;
 * encryption only to repositories created afterwards; lifecycle fields are the defaults of new
 * repositories (each repository's own retention is changed on the repository).
 */
export async function updateRegistry(projectId: string, registryId: string, actorUserId: string, input: UpdateRegistryInput): Promise<Registry> {
  const changed = Object.entries(input).filter(([, value]) => value !== undefined);
  if (changed.length === 0) throw new AppError('BAD_REQUEST', 'Send at least one setting to change');
  const row = await liveRegistry(projectId, registryId);
  const encryptionType = input.encryptionType ?? row.encryptionType;
  const kmsKeyArn = encryptionType === 'KMS' ? (input.kmsKeyArn ?? row.kmsKeyArn) : null;
  if (encryptionType === 'KMS' && !kmsKeyArn) {
    throw new AppError('VALIDATION_ERROR', 'kmsKeyArn is required when encryptionType is KMS', {
      fields: { kmsKeyArn: 'required when encryptionType is KMS' },
    });
  }
  const db = await getDb();
  return db.transaction(async (tx) => {
    const now = new Date();
    const [saved] = await tx
      .update(containerRegistries)
      .set({
        imageTagMutability: input.imageTagMutability ?? row.imageTagMutability,
        scanOnPush: input.scanOnPush ?? row.scanOnPush,
        encryptionType,
        kmsKeyArn,
        lifecycleEnabled: input.lifecycleEnabled ?? row.lifecycleEnabled,
        lifecycleKeepLastN: input.lifecycleKeepLastN ?? row.lifecycleKeepLastN,
        lifecycleUntaggedAfterDays: input.lifecycleUntaggedAfterDays ?? row.lifecycleUntaggedAfterDays,
        updatedAt: now,
      })
      .where(eq(containerRegistries.id, row.id))
      .returning();
    const repositories = await tx
      .update(containerRepositories)
      .set({ imageTagMutability: saved!.imageTagMutability, scanOnPush: saved!.scanOnPush, updatedAt: now })
      .where(and(eq(containerRepositories.registryId, row.id), isNull(containerRepositories.deletedAt)))
      .returning();
    await emit(tx, projectId, 'container_registry.updated', {
      registryId: row.id,
      name: row.name,
      changed: changed.map(([field]) => field),
      by: actorUserId,
    });
    return toRegistryView(
      saved!,
      repositories.sort((a, b) => a.name.localeCompare(b.name)),
    );
  });
}

/**
 * Billing stops first: the final reading of what the registry stores is taken from the registry
 * and recorded with the end of its billing item, in one transaction with the deletion of the row
 * and its repositories. When the registry cannot be read, nothing changes and the answer is 502.
 * Then every repository's images are deleted at the registry; what fails there is retried by the
 * purge job, since the registry is already gone for the customer and no longer billed.
 */
export async function deleteRegistry(projectId: string, registryId: string, actorUserId: string): Promise<void> {
  const row = await liveRegistry(projectId, registryId);
  const db = await getDb();
  const repositories = (await liveRepositoriesOf(db, [row.id])).get(row.id) ?? [];
  const usage = await registryUsage(row, repositories);
  const now = new Date();
  const deleted = await db.transaction(async (tx) => {
    const [marked] = await tx
      .update(containerRegistries)
      .set({ deletedAt: now, updatedAt: now, finalUsage: { ...usage, measuredAt: now.toISOString() } })
      .where(and(eq(containerRegistries.id, row.id), isNull(containerRegistries.deletedAt)))
      .returning({ id: containerRegistries.id });
    if (!marked) return false;
    await endBillingItem(tx, projectId, REGISTRY_RESOURCE_TYPE, row.id, now);
    await tx
      .update(containerRepositories)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(containerRepositories.registryId, row.id), isNull(containerRepositories.deletedAt)));
    await emit(tx, projectId, 'container_registry.deleted', {
      registryId: row.id,
      name: row.name,
      repositories: repositories.length,
      storageBytes: usage.storageBytes,
      by: actorUserId,
    });
    return true;
  });
  if (!deleted) return;
  for (const repository of repositories) {
    try {
      await purgeRepository(row, repository);
    } catch (err) {
      getLogger().warn({ err, registryId: row.id, repositoryId: repository.id }, 'images of a deleted registry left for the purge job');
    }
  }
}

export async function liveRegistry(projectId: string, registryId: string): Promise<RegistryRow> {
  await startedRegistry();
  const db = await getDb();
  const [row] = await db
    .select()
    .from(containerRegistries)
    .where(and(eq(containerRegistries.id, registryId), eq(containerRegistries.projectId, projectId), isNull(containerRegistries.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Container registry not found');
  return row;
}

export async function liveRegistryNamed(db: DbOrTx, name: string): Promise<RegistryRow | null> {
  const [row] = await db
    .select()
    .from(containerRegistries)
    .where(and(eq(containerRegistries.name, name), isNull(containerRegistries.deletedAt)));
  return row ?? null;
}

async function liveRepositoriesOf(db: DbOrTx, registryIds: string[]): Promise<Map<string, RepositoryRow[]>> {
  const byRegistry = new Map<string, RepositoryRow[]>();
  if (registryIds.length === 0) return byRegistry;
  const rows = await db
    .select()
    .from(containerRepositories)
    .where(and(inArray(containerRepositories.registryId, registryIds), isNull(containerRepositories.deletedAt)))
    .orderBy(asc(containerRepositories.name));
  for (const row of rows) byRegistry.set(row.registryId, [...(byRegistry.get(row.registryId) ?? []), row]);
  return byRegistry;
}

async function assertNameFree(db: DbOrTx, name: string): Promise<void> {
  if (await liveRegistryNamed(db, name)) throw nameTaken(name);
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `The registry name "${name}" is taken; registry names are shared by every project`);
}

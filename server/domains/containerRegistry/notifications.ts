import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { containerImages, containerRepositories } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { monthKeyOf } from '../../billing/period';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getRegistryProvider, type RegistryEvent } from '../../providers/registry';
import { liveRegistryNamed } from './registries';
import { insertRepository } from './repositories';
import { simulatedScanner, type ImageScanner } from './scanner';
import { BYTES_PER_GB, fullName, type RegistryRow, type RepositoryRow } from './views';

const MANIFEST_TYPES = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
  'application/vnd.docker.distribution.manifest.v1+json',
]);

const holder = globalThis as unknown as { __imageScanner?: ImageScanner };

export function imageScanner(): ImageScanner {
  return holder.__imageScanner ?? simulatedScanner;
}

/** Test hook: scan with another scanner (null: the default again). */
export function setImageScannerForTests(scanner: ImageScanner | null): void {
  holder.__imageScanner = scanner ?? undefined;
}

/** IMMUTABLE for a repository that says so; a name no repository has yet follows its registry. */
export async function tagMutabilityOf(repository: string): Promise<'MUTABLE' | 'IMMUTABLE'> {
  const target = await resolve(repository, false);
  if (!target) return 'MUTABLE';
  return target.repository?.imageTagMutability ?? target.registry.imageTagMutability;
}

/**
 * What the registry's notifications change: a manifest push records the image (scanned when the
 * repository scans on push) and makes the repository on a first push; a manifest pull records the
 * pull time; blob pulls count egress, and anonymous ones count against a PUBLIC repository's cap,
 * which closes it to PRIVATE when reached. Deliveries can repeat: every change is idempotent or
 * keyed by the event.
 */
export async function handleRegistryEvents(events: readonly RegistryEvent[]): Promise<void> {
  for (const event of events) {
    const target = await resolve(event.repository, event.action === 'push');
    if (!target?.repository) continue;
    const { registry, repository } = target;
    const isManifest = MANIFEST_TYPES.has(event.mediaType);
    if (event.action === 'push' && isManifest) await recordPush(registry, repository, event);
    else if (event.action === 'pull' && isManifest) await recordManifestPull(repository, event);
    else if (event.action === 'pull') await countEgress(registry, repository, event);
  }
}

async function resolve(name: string, createOnPush: boolean): Promise<{ registry: RegistryRow; repository: RepositoryRow | null } | null> {
  const slash = name.indexOf('/');
  if (slash <= 0) return null;
  const registryName = name.slice(0, slash);
  const repositoryName = name.slice(slash + 1);
  const db = await getDb();
  const registry = await liveRegistryNamed(db, registryName);
  if (!registry) return null;
  const [repository] = await db
    .select()
    .from(containerRepositories)
    .where(and(eq(containerRepositories.registryId, registry.id), eq(containerRepositories.name, repositoryName), isNull(containerRepositories.deletedAt)));
  if (repository || !createOnPush) return { registry, repository: repository ?? null };
  try {
    const created = await db.transaction(async (tx) => {
      const row = await insertRepository(tx, registry, repositoryName, 'PRIVATE', null);
      await emit(tx, registry.projectId, 'container_repository.created', {
        registryId: registry.id,
        repositoryId: row.id,
        name: row.name,
        visibility: row.visibility,
        by: null,
      });
      return row;
    });
    return { registry, repository: created };
  } catch (err) {
    // Made through the API a moment before: that row is the repository.
    if (!isUniqueViolation(err, 'container_repositories_live_name_key')) throw err;
    return resolve(name, false);
  }
}

async function recordPush(registry: RegistryRow, repository: RepositoryRow, event: RegistryEvent): Promise<void> {
  const name = fullName(registry.name, repository.name);
  const manifest = await getRegistryProvider().manifest(name, event.digest);
  if (!manifest) return;
  const pushedAt = new Date(event.timestamp);
  const findings = repository.scanOnPush ? await imageScanner().scan(name, event.digest) : null;
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx
      .insert(containerImages)
      .values({
        id: newId('cimg'),
        repositoryId: repository.id,
        digest: event.digest,
        mediaType: manifest.mediaType,
        sizeBytes: manifest.sizeBytes,
        pushedAt,
        scanStatus: findings ? 'COMPLETE' : null,
        scanFindings: findings,
      })
      .onConflictDoUpdate({
        target: [containerImages.repositoryId, containerImages.digest],
        set: {
          pushedAt: sql`greatest(${containerImages.pushedAt}, ${at(pushedAt)})`,
          removedAt: null,
          expiredAt: null,
          ...(findings ? { scanStatus: 'COMPLETE' as const, scanFindings: findings } : {}),
        },
      });
    await tx
      .update(containerRepositories)
      .set({ lastPushedAt: sql`greatest(coalesce(${containerRepositories.lastPushedAt}, ${at(pushedAt)}), ${at(pushedAt)})` })
      .where(eq(containerRepositories.id, repository.id));
    await emit(tx, registry.projectId, 'container_image.pushed', {
      registryId: registry.id,
      repositoryId: repository.id,
      repository: name,
      digest: event.digest,
      tag: event.tag,
      scanFindings: findings,
    });
  });
}

async function recordManifestPull(repository: RepositoryRow, event: RegistryEvent): Promise<void> {
  const pulledAt = new Date(event.timestamp);
  const db = await getDb();
  await db
    .update(containerImages)
    .set({ lastPulledAt: sql`greatest(coalesce(${containerImages.lastPulledAt}, ${at(pulledAt)}), ${at(pulledAt)})` })
    .where(and(eq(containerImages.repositoryId, repository.id), eq(containerImages.digest, event.digest)));
  await db
    .update(containerRepositories)
    .set({ lastPulledAt: sql`greatest(coalesce(${containerRepositories.lastPulledAt}, ${at(pulledAt)}), ${at(pulledAt)})` })
    .where(eq(containerRepositories.id, repository.id));
}

/**
 * Adds a blob pull to the month's egress; an anonymous one also to the public allowance. Counters
 * of an earlier month start again from this pull. Reaching the cap closes the repository.
 */
async function countEgress(registry: RegistryRow, repository: RepositoryRow, event: RegistryEvent): Promise<void> {
  const period = monthKeyOf(new Date(event.timestamp));
  const anonymous = event.actor === null;
  const samePeriod = sql`${containerRepositories.egressPeriod} = ${period}`;
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [counted] = await tx
      .update(containerRepositories)
      .set({
        egressBytes: sql`case when ${samePeriod} then ${containerRepositories.egressBytes} else 0 end + ${event.size}::bigint`,
        publicEgressUsedBytes: sql`case when ${samePeriod} then ${containerRepositories.publicEgressUsedBytes} else 0 end + ${anonymous ? event.size : 0}::bigint`,
        egressPeriod: period,
      })
      .where(eq(containerRepositories.id, repository.id))
      .returning();
    if (!counted || !anonymous || counted.visibility !== 'PUBLIC' || counted.publicEgressCapGb === null) return;
    if (counted.publicEgressUsedBytes < counted.publicEgressCapGb * BYTES_PER_GB) return;
    const now = new Date();
    const [closed] = await tx
      .update(containerRepositories)
      .set({ visibility: 'PRIVATE', publicEgressCapHitAt: now, updatedAt: now })
      .where(and(eq(containerRepositories.id, repository.id), eq(containerRepositories.visibility, 'PUBLIC')))
      .returning({ id: containerRepositories.id });
    if (!closed) return;
    await emit(tx, registry.projectId, 'container_repository.egress_cap_hit', {
      registryId: registry.id,
      repositoryId: repository.id,
      name: repository.name,
      publicEgressCapGb: counted.publicEgressCapGb,
      publicEgressUsedBytes: counted.publicEgressUsedBytes,
    });
    getLogger().info({ repositoryId: repository.id }, 'public repository closed: anonymous egress reached its cap');
  });
}

/** A timestamp parameter typed for PostgreSQL, which cannot infer it inside greatest() and coalesce(). */
function at(date: Date) {
  return sql`${date.toISOString()}::timestamptz`;
}

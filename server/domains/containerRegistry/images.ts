import { and, asc, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import { getDb } from '../../../db';
import { containerImages, containerRegistries, containerRepositories, type ScanFindings } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError, callUpstream } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import type { TagRef } from '../../providers/registry';
import { startedRegistry } from './registry';
import { SEVERITIES } from './scanner';
import type { Image } from './schema';
import { fullName, type RegistryRow, type RepositoryRow } from './views';

type ImageRow = typeof containerImages.$inferSelect;

export const DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Registry failures answer 502 UPSTREAM_ERROR; the platform's own refusals pass through. */
export function upstream<T>(call: () => Promise<T>): Promise<T> {
  return callUpstream('The container registry could not complete the request; try again', call);
}

/**
 * The images of a repository as the registry has them now: its tags read at request time and
 * grouped by digest, with what the registry's notifications told us (push and pull times, scan).
 * An image the registry shows that no notification announced yet is recorded on the way; one it
 * no longer has is dropped, except those the retention policy expired, which stay listed until
 * the registry's garbage collection frees them.
 */
export async function listImages(registry: RegistryRow, repository: RepositoryRow): Promise<Image[]> {
  const name = fullName(registry.name, repository.name);
  const provider = await startedRegistry();
  const tags = await upstream(() => provider.listTags(name));
  const tagsByDigest = groupTags(tags);
  const db = await getDb();
  const rows = await db
    .select()
    .from(containerImages)
    .where(and(eq(containerImages.repositoryId, repository.id), isNull(containerImages.removedAt)));
  const known = new Map(rows.map((row) => [row.digest, row]));
  const images: Image[] = [];
  for (const [digest, digestTags] of tagsByDigest) {
    const row = known.get(digest) ?? (await recordUnannounced(repository, name, digest));
    if (row) images.push(toImageView(row, digestTags));
  }
  for (const row of rows) {
    if (tagsByDigest.has(row.digest)) continue;
    if (row.expiredAt) {
      images.push(toImageView(row, []));
      continue;
    }
    const manifest = await upstream(() => provider.manifest(name, row.digest));
    if (manifest) images.push(toImageView(row, []));
    else await db.update(containerImages).set({ removedAt: new Date() }).where(eq(containerImages.id, row.id));
  }
  return images.sort((a, b) => b.pushedAt.localeCompare(a.pushedAt) || a.digest.localeCompare(b.digest));
}

/** Deletes a manifest and every tag on it, by digest only (a tag is refused with 400). */
export async function deleteImage(registry: RegistryRow, repository: RepositoryRow, digest: string, actorUserId: string): Promise<void> {
  if (!DIGEST_PATTERN.test(digest)) {
    throw new AppError('BAD_REQUEST', 'Images are deleted by digest (sha256: followed by 64 hex digits, URL-encoded); deleting by tag is not supported');
  }
  const name = fullName(registry.name, repository.name);
  const removed = await upstream(async () => (await startedRegistry()).deleteManifest(name, digest));
  if (!removed) throw new AppError('NOT_FOUND', `Image ${digest} not found in ${name}`);
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx
      .update(containerImages)
      .set({ removedAt: new Date() })
      .where(and(eq(containerImages.repositoryId, repository.id), eq(containerImages.digest, digest)));
    await emit(tx, repository.projectId, 'container_image.deleted', {
      registryId: registry.id,
      repositoryId: repository.id,
      repository: name,
      digest,
      by: actorUserId,
    });
  });
}

/** Deletes every image of a repository at the registry and marks the repository purged. */
export async function purgeRepository(registry: Pick<RegistryRow, 'name'>, repository: RepositoryRow): Promise<void> {
  const name = fullName(registry.name, repository.name);
  const provider = await startedRegistry();
  const db = await getDb();
  const rows = await db
    .select({ digest: containerImages.digest })
    .from(containerImages)
    .where(and(eq(containerImages.repositoryId, repository.id), isNull(containerImages.removedAt)));
  const digests = new Set([...(await upstream(() => provider.listTags(name))).map((tag) => tag.digest), ...rows.map((row) => row.digest)]);
  for (const digest of digests) await upstream(() => provider.deleteManifest(name, digest));
  const now = new Date();
  await db
    .update(containerImages)
    .set({ removedAt: now })
    .where(and(eq(containerImages.repositoryId, repository.id), isNull(containerImages.removedAt)));
  await db.update(containerRepositories).set({ purgedAt: now }).where(eq(containerRepositories.id, repository.id));
}

/** Finishes the purges a delete could not: repositories deleted while the registry was unreachable. */
export async function purgeDeletedRepositories(): Promise<number> {
  const db = await getDb();
  const pending = await db
    .select({ repository: containerRepositories, registryName: containerRegistries.name })
    .from(containerRepositories)
    .innerJoin(containerRegistries, eq(containerRegistries.id, containerRepositories.registryId))
    .where(and(isNotNull(containerRepositories.deletedAt), isNull(containerRepositories.purgedAt)))
    .orderBy(asc(containerRepositories.deletedAt));
  let purged = 0;
  for (const { repository, registryName } of pending) {
    try {
      await purgeRepository({ name: registryName }, repository);
      purged += 1;
    } catch (err) {
      getLogger().warn({ err, repositoryId: repository.id }, 'deleted repository not purged this pass');
    }
  }
  return purged;
}

/** What the registry holds for a registry now (the reading taken when its billing stops). */
export async function registryUsage(registry: RegistryRow, repositories: readonly RepositoryRow[]): Promise<{ storageBytes: number; egressBytes: number }> {
  const provider = await startedRegistry();
  let storageBytes = 0;
  for (const repository of repositories) {
    const name = fullName(registry.name, repository.name);
    const digests = new Set((await upstream(() => provider.listTags(name))).map((tag) => tag.digest));
    for (const digest of digests) storageBytes += (await upstream(() => provider.manifest(name, digest)))?.sizeBytes ?? 0;
  }
  return { storageBytes, egressBytes: repositories.reduce((sum, repository) => sum + repository.egressBytes, 0) };
}

/**
 * The retention pass over one repository: of its tagged images the `gcKeepLastN` most recently
 * pushed stay and older ones are deleted; untagged images older than `gcUntaggedAfterDays` are
 * deleted when `gcDeleteUntagged` is on. Deleted images are marked expired and stay listed until
 * garbage collection. Returns the digests expired.
 */
export async function applyRetention(registry: RegistryRow, repository: RepositoryRow, now = new Date()): Promise<string[]> {
  if (!repository.gcEnabled) return [];
  const name = fullName(registry.name, repository.name);
  const provider = await startedRegistry();
  const tagged = new Set((await upstream(() => provider.listTags(name))).map((tag) => tag.digest));
  const db = await getDb();
  const rows = await db
    .select()
    .from(containerImages)
    .where(and(eq(containerImages.repositoryId, repository.id), isNull(containerImages.removedAt), isNull(containerImages.expiredAt)));
  const newestFirst = (a: ImageRow, b: ImageRow) => b.pushedAt.getTime() - a.pushedAt.getTime() || a.digest.localeCompare(b.digest);
  const expire = rows
    .filter((row) => tagged.has(row.digest))
    .sort(newestFirst)
    .slice(repository.gcKeepLastN);
  if (repository.gcDeleteUntagged) {
    const cutoff = now.getTime() - repository.gcUntaggedAfterDays * DAY_MS;
    expire.push(...rows.filter((row) => !tagged.has(row.digest) && row.pushedAt.getTime() < cutoff));
  }
  const expired: string[] = [];
  for (const row of expire) {
    await upstream(() => provider.deleteManifest(name, row.digest));
    await db.update(containerImages).set({ expiredAt: now }).where(eq(containerImages.id, row.id));
    expired.push(row.digest);
  }
  if (expired.length > 0) {
    await db.transaction((tx) =>
      emit(tx, repository.projectId, 'container_image.expired', { registryId: registry.id, repositoryId: repository.id, repository: name, digests: expired }),
    );
  }
  return expired;
}

/** The retention pass over every live repository; a repository the registry fails on waits for the next pass. */
export async function applyRetentionEverywhere(now = new Date()): Promise<number> {
  const db = await getDb();
  const pairs = await db
    .select({ registry: containerRegistries, repository: containerRepositories })
    .from(containerRepositories)
    .innerJoin(containerRegistries, eq(containerRegistries.id, containerRepositories.registryId))
    .where(and(isNull(containerRepositories.deletedAt), isNull(containerRegistries.deletedAt), eq(containerRepositories.gcEnabled, true)));
  let expired = 0;
  for (const { registry, repository } of pairs) {
    try {
      expired += (await applyRetention(registry, repository, now)).length;
    } catch (err) {
      getLogger().warn({ err, repositoryId: repository.id }, 'retention not applied this pass');
    }
  }
  return expired;
}

/** Runs the registry's garbage collection; images expired before it started are then gone for good. */
export async function collectGarbage(now = new Date()): Promise<void> {
  await (await startedRegistry()).collectGarbage();
  const db = await getDb();
  await db
    .update(containerImages)
    .set({ removedAt: now })
    .where(and(isNotNull(containerImages.expiredAt), lt(containerImages.expiredAt, now), isNull(containerImages.removedAt)));
}

function groupTags(tags: readonly TagRef[]): Map<string, string[]> {
  const byDigest = new Map<string, string[]>();
  for (const { tag, digest } of tags) byDigest.set(digest, [...(byDigest.get(digest) ?? []), tag]);
  for (const list of byDigest.values()) list.sort();
  return byDigest;
}

async function recordUnannounced(repository: RepositoryRow, name: string, digest: string): Promise<ImageRow | null> {
  const manifest = await upstream(async () => (await startedRegistry()).manifest(name, digest));
  if (!manifest) return null;
  const db = await getDb();
  const [row] = await db
    .insert(containerImages)
    .values({ id: newId('cimg'), repositoryId: repository.id, digest, mediaType: manifest.mediaType, sizeBytes: manifest.sizeBytes, pushedAt: new Date() })
    .onConflictDoUpdate({ target: [containerImages.repositoryId, containerImages.digest], set: { removedAt: null, expiredAt: null } })
    .returning();
  return row ?? null;
}

function toImageView(row: ImageRow, tags: string[]): Image {
  return {
    digest: row.digest,
    tags,
    sizeBytes: row.sizeBytes,
    pushedAt: row.pushedAt.toISOString(),
    lastPulledAt: row.lastPulledAt?.toISOString() ?? null,
    scanStatus: row.scanStatus,
    scanFindings: row.scanStatus && row.scanFindings ? bySeverity(row.scanFindings) : null,
    expiredAt: row.expiredAt?.toISOString() ?? null,
  };
}

/** Most severe first (PostgreSQL keeps JSON keys in an order of its own). */
function bySeverity(findings: ScanFindings): ScanFindings {
  const known = SEVERITIES.filter((severity) => severity in findings).map((severity) => [severity, findings[severity]!] as const);
  const others = Object.entries(findings).filter(([severity]) => !(SEVERITIES as readonly string[]).includes(severity));
  return Object.fromEntries([...known, ...others]);
}

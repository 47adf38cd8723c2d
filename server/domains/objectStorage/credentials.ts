import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { buckets, storageCredentials } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError, invalidField } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getObjectStorageProvider, type CredentialScope } from '../../providers/objectStorage';
import type { StorageCredential } from './schema';

type CredentialRow = typeof storageCredentials.$inferSelect;
type Access = CredentialRow['access'];

export interface IssuedStorageCredential extends StorageCredential {
  secretAccessKey: string;
}

/** Every credential of the project, oldest first. */
export async function listCredentials(projectId: string): Promise<StorageCredential[]> {
  const db = await getDb();
  const rows = await db.select().from(storageCredentials).where(eq(storageCredentials.projectId, projectId)).orderBy(asc(storageCredentials.createdAt));
  return views(projectId, rows);
}

/** Every credential that reaches the bucket: scoped to it, and project-wide. */
export async function credentialsOfBucket(projectId: string, bucketId: string): Promise<StorageCredential[]> {
  return (await listCredentials(projectId)).filter((c) => c.buckets === null || c.buckets.some((b) => b.id === bucketId));
}

/**
 * Issues an access key at the endpoint limited to the buckets (or to every bucket of the project)
 * and the access asked for, and records it. The secret is answered once and kept nowhere here.
 */
export async function issueCredential(
  projectId: string,
  actorUserId: string,
  request: { name: string; bucketIds: string[] | null; access: Access; legacy?: boolean },
): Promise<IssuedStorageCredential> {
  const scoped = request.bucketIds === null ? null : await projectBucketsById(projectId, request.bucketIds);
  const db = await getDb();
  const [clash] = await db
    .select({ id: storageCredentials.id })
    .from(storageCredentials)
    .where(and(eq(storageCredentials.projectId, projectId), eq(storageCredentials.name, request.name)));
  if (clash) throw nameTaken(request.name);
  const provider = getObjectStorageProvider();
  const issued = await endpointCall(async () =>
    provider.issueCredential(`${projectId}/${request.name}`, await scopeOf(projectId, scoped?.map((b) => b.name) ?? null, request.access)),
  );
  try {
    const [row] = await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(storageCredentials)
        .values({
          id: newId('cred'),
          projectId,
          name: request.name,
          accessKeyId: issued.accessKeyId,
          bucketIds: scoped?.map((b) => b.id) ?? null,
          access: request.access,
          legacy: request.legacy ?? false,
          createdBy: actorUserId,
        })
        .returning();
      await emit(tx, projectId, 'storage_credential.created', {
        credentialId: inserted[0]!.id,
        name: request.name,
        accessKeyId: issued.accessKeyId,
        buckets: scoped?.map((b) => b.id) ?? null,
        access: request.access,
        by: actorUserId,
      });
      return inserted;
    });
    const [view] = await views(projectId, [row!]);
    return { ...view!, secretAccessKey: issued.secretAccessKey };
  } catch (err) {
    await provider.revokeCredential(issued.accessKeyId).catch((undo: unknown) => {
      getLogger().error({ err: undo, accessKeyId: issued.accessKeyId }, 'access key of a failed creation could not be revoked');
    });
    if (isUniqueViolation(err, 'storage_credentials_project_name_key')) throw nameTaken(request.name);
    throw err;
  }
}

/** Changes what a credential reaches; the legacy (iam-users) ones are bound to their bucket (409). */
export async function rescopeCredential(
  projectId: string,
  credentialId: string,
  actorUserId: string,
  change: { bucketIds?: string[] | null; access?: Access },
): Promise<StorageCredential> {
  const row = await credentialOf(projectId, credentialId);
  if (row.legacy) throw new AppError('CONFLICT', `Credential "${row.name}" was made through iam-users: it reaches its one bucket and cannot be re-scoped`);
  const request = { access: change.access ?? row.access };
  const scoped =
    change.bucketIds === undefined
      ? await liveBucketsOf(projectId, row.bucketIds)
      : change.bucketIds && (await projectBucketsById(projectId, change.bucketIds));
  await endpointCall(async () =>
    getObjectStorageProvider().rescopeCredential(row.accessKeyId, await scopeOf(projectId, scoped?.map((b) => b.name) ?? null, request.access)),
  );
  const db = await getDb();
  const saved = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(storageCredentials)
      .set({ bucketIds: scoped?.map((b) => b.id) ?? null, access: request.access })
      .where(eq(storageCredentials.id, row.id))
      .returning();
    await emit(tx, projectId, 'storage_credential.rescoped', {
      credentialId: row.id,
      buckets: scoped?.map((b) => b.id) ?? null,
      access: request.access,
      by: actorUserId,
    });
    return updated!;
  });
  const [view] = await views(projectId, [saved]);
  return view!;
}

/** Revokes the key at the endpoint first (502 and kept when that fails), then forgets it. */
export async function revokeCredential(projectId: string, credentialId: string, actorUserId: string): Promise<void> {
  const row = await credentialOf(projectId, credentialId);
  await endpointCall(() => getObjectStorageProvider().revokeCredential(row.accessKeyId));
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.delete(storageCredentials).where(eq(storageCredentials.id, row.id));
    await emit(tx, projectId, 'storage_credential.revoked', { credentialId: row.id, name: row.name, accessKeyId: row.accessKeyId, by: actorUserId });
  });
}

/** The legacy list of one bucket: its iam-users credentials. */
export async function legacyIamUsers(projectId: string, bucketId: string) {
  const db = await getDb();
  const rows = await db
    .select()
    .from(storageCredentials)
    .where(and(eq(storageCredentials.projectId, projectId), eq(storageCredentials.legacy, true)))
    .orderBy(asc(storageCredentials.createdAt));
  return rows
    .filter((r) => r.bucketIds?.includes(bucketId))
    .map((r) => ({ iamUserName: r.name, accessKeyId: r.accessKeyId, createdAt: r.createdAt.toISOString() }));
}

export async function createLegacyIamUser(projectId: string, bucketId: string, bucketName: string, actorUserId: string) {
  const name = `${bucketName}-${newId('u').slice(-8).toLowerCase()}`;
  const issued = await issueCredential(projectId, actorUserId, { name, bucketIds: [bucketId], access: 'full', legacy: true });
  return { iamUserName: issued.name, accessKeyId: issued.accessKeyId, createdAt: issued.createdAt, secretAccessKey: issued.secretAccessKey };
}

export async function deleteLegacyIamUser(projectId: string, bucketId: string, iamUserName: string, actorUserId: string): Promise<void> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(storageCredentials)
    .where(and(eq(storageCredentials.projectId, projectId), eq(storageCredentials.name, iamUserName), eq(storageCredentials.legacy, true)));
  if (!row || !row.bucketIds?.includes(bucketId)) throw new AppError('NOT_FOUND', 'IAM user not found for this bucket');
  await revokeCredential(projectId, row.id, actorUserId);
}

/**
 * Project-wide credentials reach every live bucket of the project, so their scope at the endpoint
 * follows bucket creations and deletions. A failure is logged; the next change or the hourly pass
 * applies it.
 */
export async function syncProjectWideCredentials(projectId: string): Promise<void> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(storageCredentials)
    .where(and(eq(storageCredentials.projectId, projectId), isNull(storageCredentials.bucketIds)));
  for (const row of rows) {
    try {
      await getObjectStorageProvider().rescopeCredential(row.accessKeyId, await scopeOf(projectId, null, row.access));
    } catch (err) {
      getLogger().error({ err, credentialId: row.id }, 'project-wide credential not re-scoped to the project buckets');
    }
  }
}

async function scopeOf(projectId: string, bucketNames: string[] | null, access: Access): Promise<CredentialScope> {
  const db = await getDb();
  const live = await db
    .select({ name: buckets.name })
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), isNull(buckets.deletedAt)));
  return { buckets: bucketNames, projectBuckets: live.map((b) => b.name), access };
}

/** The buckets a credential keeps when a change leaves them out: those not deleted since (null: every bucket). */
async function liveBucketsOf(projectId: string, ids: string[] | null): Promise<Array<{ id: string; name: string }> | null> {
  if (ids === null) return null;
  const db = await getDb();
  const live = await db
    .select({ id: buckets.id, name: buckets.name })
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), inArray(buckets.id, ids), isNull(buckets.deletedAt)));
  if (live.length === 0) throw invalidField('bucketIds', 'every bucket this credential reached has been deleted; name the buckets it should reach');
  return live;
}

async function projectBucketsById(projectId: string, ids: string[]): Promise<Array<{ id: string; name: string }>> {
  const wanted = [...new Set(ids)];
  const db = await getDb();
  const found = await db
    .select({ id: buckets.id, name: buckets.name })
    .from(buckets)
    .where(and(eq(buckets.projectId, projectId), inArray(buckets.id, wanted), isNull(buckets.deletedAt)));
  const missing = wanted.filter((id) => !found.some((b) => b.id === id));
  if (missing.length > 0) {
    throw new AppError('VALIDATION_ERROR', `bucketIds: no bucket ${missing.map((id) => `"${id}"`).join(', ')} in this project`, {
      fields: { bucketIds: 'unknown bucket' },
    });
  }
  return found;
}

async function credentialOf(projectId: string, credentialId: string): Promise<CredentialRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(storageCredentials)
    .where(and(eq(storageCredentials.id, credentialId), eq(storageCredentials.projectId, projectId)));
  if (!row) throw new AppError('NOT_FOUND', 'Credential not found');
  return row;
}

async function views(projectId: string, rows: CredentialRow[]): Promise<StorageCredential[]> {
  const db = await getDb();
  const names = new Map(
    (await db.select({ id: buckets.id, name: buckets.name }).from(buckets).where(eq(buckets.projectId, projectId))).map((b) => [b.id, b.name]),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    accessKeyId: row.accessKeyId,
    buckets: row.bucketIds?.map((id) => ({ id, name: names.get(id) ?? id })) ?? null,
    access: row.access,
    legacy: row.legacy,
    createdAt: row.createdAt.toISOString(),
  }));
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `A credential named "${name}" already exists in this project`);
}

async function endpointCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError && err.code !== 'NOT_FOUND') throw err;
    throw new AppError('UPSTREAM_ERROR', 'The object storage endpoint could not complete the request; try again', { cause: err });
  }
}

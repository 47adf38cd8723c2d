import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { servers, serverSshKeys, sshKeys } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { consumeRateLimit } from '../../platform/rateLimit';
import type { DeletedSshKey, GeneratedSshKey, SshKey } from './schema';
import { generateEd25519KeyPair, parsePublicKey, type ParsedPublicKey } from './keyFormat';

/** Key generation per project per hour: generating is cheap for us, but it is a key factory for anyone holding a token. */
export const SSH_KEY_GENERATIONS_PER_HOUR = 10;

type SshKeyRow = typeof sshKeys.$inferSelect;

/** The page of our docs that every SSH key error points to. */
/** The panel's page about adding keys; every refusal of the key operations links to it. */
export const SSH_KEY_DOCS_PATH = '/docs/ssh-keys';

/** The project's keys, newest first. */
export async function listSshKeys(projectId: string): Promise<SshKey[]> {
  const db = await getDb();
  const rows = await db.select().from(sshKeys).where(eq(sshKeys.projectId, projectId)).orderBy(desc(sshKeys.createdAt), desc(sshKeys.id));
  return rows.map(toView);
}

/** Registers a pasted public key; the same key (by fingerprint) twice in a project is a 409 naming the first. */
export async function addSshKey(projectId: string, actorUserId: string, name: string, publicKey: string): Promise<SshKey> {
  return insertKey(projectId, actorUserId, name, parsePublicKey(publicKey));
}

/**
 * Makes an ed25519 pair and registers its public half. The private half is only in the return
 * value: it is never written anywhere, and the logger redacts `privateKey` fields.
 */
export async function generateSshKey(projectId: string, actorUserId: string, name: string): Promise<GeneratedSshKey> {
  await consumeRateLimit({
    policy: 'ssh-key-generation',
    key: `ssh-key-generate:project:${projectId}`,
    limit: SSH_KEY_GENERATIONS_PER_HOUR,
    windowSeconds: 3600,
  });
  const pair = generateEd25519KeyPair(name);
  const view = await insertKey(projectId, actorUserId, name, pair.publicKey);
  return { ...view, privateKey: pair.privateKey };
}

/** Removes the key from the project; servers that trust it keep trusting it, and the answer says how many. */
export async function deleteSshKey(projectId: string, sshKeyId: string, actorUserId: string): Promise<DeletedSshKey> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(sshKeys)
      .where(and(eq(sshKeys.id, sshKeyId), eq(sshKeys.projectId, projectId)))
      .returning({ id: sshKeys.id, name: sshKeys.name, fingerprint: sshKeys.fingerprint });
    if (!deleted) throw new AppError('NOT_FOUND', 'SSH key not found');
    const stillAuthorisedOn = await liveServersTrusting(tx, sshKeyId);
    await emit(tx, projectId, 'ssh_key.deleted', { sshKeyId, name: deleted.name, fingerprint: deleted.fingerprint, stillAuthorisedOn, by: actorUserId });
    return { stillAuthorisedOn };
  });
}

async function insertKey(projectId: string, actorUserId: string, name: string, key: ParsedPublicKey): Promise<SshKey> {
  const db = await getDb();
  await refuseDuplicate(db, projectId, key.fingerprint);
  const now = new Date();
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(sshKeys)
        .values({
          id: newId('ssh'),
          projectId,
          name,
          publicKey: key.publicKey,
          fingerprint: key.fingerprint,
          keyType: key.keyType,
          bits: key.bits,
          comment: key.comment,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await emit(tx, projectId, 'ssh_key.created', { sshKeyId: row!.id, name, fingerprint: key.fingerprint, by: actorUserId });
      return toView(row!);
    });
  } catch (err) {
    // Two requests registered the same key at once: the loser answers as if it had come second.
    if (isUniqueViolation(err, 'ssh_keys_project_fingerprint_key')) await refuseDuplicate(db, projectId, key.fingerprint);
    throw err;
  }
}

async function refuseDuplicate(db: DbOrTx, projectId: string, fingerprint: string): Promise<void> {
  const [existing] = await db
    .select({ id: sshKeys.id, name: sshKeys.name })
    .from(sshKeys)
    .where(and(eq(sshKeys.projectId, projectId), eq(sshKeys.fingerprint, fingerprint)));
  if (existing) {
    const message = `This key is already registered in the project as "${existing.name}" (${existing.id}, ${fingerprint})`;
    throw new AppError('CONFLICT', message, { fields: { publicKey: message } });
  }
}

async function liveServersTrusting(db: DbOrTx, sshKeyId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(serverSshKeys)
    .innerJoin(servers, eq(servers.id, serverSshKeys.serverId))
    .where(and(eq(serverSshKeys.sshKeyId, sshKeyId), isNull(servers.terminatedAt)));
  return row?.n ?? 0;
}

function toView(row: SshKeyRow): SshKey {
  return {
    id: row.id,
    organizationId: row.projectId,
    name: row.name,
    publicKey: row.publicKey,
    fingerprint: row.fingerprint,
    keyType: row.keyType,
    bits: row.bits,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { apiKeys, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Scope } from '../../platform/auth/scopes';
import { generateApiKey } from '../../platform/auth/tokens';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import type { ApiKey, CreatedApiKey } from './schema';

const columns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
  creatorId: users.id,
  creatorName: users.name,
  creatorEmail: users.email,
};

/** Keys of the project that are not revoked, newest first. Hashes never leave the database. */
export async function listApiKeys(projectId: string): Promise<ApiKey[]> {
  const db = await getDb();
  const rows = await db
    .select(columns)
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(and(eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toView);
}

/** Creates a key; the full value is returned this once and only its SHA-256 hash is stored. */
export async function createApiKey(input: { projectId: string; userId: string; name: string; scopes: Scope[]; expiresAt?: string }): Promise<CreatedApiKey> {
  const db = await getDb();
  const { key, prefix, hash } = generateApiKey();
  const id = newId('key');
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({
      id,
      projectId: input.projectId,
      createdByUserId: input.userId,
      name: input.name,
      prefix,
      keyHash: hash,
      scopes: [...input.scopes].sort(),
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
    });
    await emit(tx, input.projectId, 'api_key.created', { apiKeyId: id, name: input.name, scopes: input.scopes, by: input.userId });
  });
  const [row] = await db.select(columns).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.createdByUserId)).where(eq(apiKeys.id, id));
  return { ...toView(row!), key };
}

/** Revokes a key; the next request made with it is refused (keys are looked up on every request). */
export async function revokeApiKey(projectId: string, keyId: string, userId: string): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, name: apiKeys.name });
    if (!row) throw new AppError('NOT_FOUND', 'API key not found');
    await emit(tx, projectId, 'api_key.revoked', { apiKeyId: row.id, name: row.name, by: userId });
  });
}

function toView(row: {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  creatorId: string;
  creatorName: string;
  creatorEmail: string;
}): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    createdBy: { id: row.creatorId, name: row.creatorName, email: row.creatorEmail },
  };
}

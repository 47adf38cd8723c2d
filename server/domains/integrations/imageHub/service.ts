import { eq } from 'drizzle-orm';
import { getDb } from '../../../../db';
import { imageHubConnections } from '../../../../db/schema';
import { open, seal } from '../../../platform/encryption/envelope';
import { AppError, invalidField } from '../../../platform/errors';
import { emit } from '../../../platform/events';
import { getImageHub, type ImageHubCredential, type ImageHubRepository, type ImageHubTag } from '../../../providers/imageHub';

/**
 * The project's image hub account: a username and access token checked with the hub, the token
 * sealed to the project and never returned.
 */

export interface ImageHubStatus {
  connected: boolean;
  username: string | null;
  connectedAt: string | null;
}

export async function imageHubStatus(projectId: string): Promise<ImageHubStatus> {
  const row = await connectionRow(projectId);
  return row
    ? { connected: true, username: row.username, connectedAt: row.connectedAt.toISOString() }
    : { connected: false, username: null, connectedAt: null };
}

/** Checks the credential with the hub, then stores it in place of any earlier one. A refused one is 422 on `accessToken`; nothing changes. */
export async function connectImageHub(projectId: string, userId: string, credential: ImageHubCredential): Promise<ImageHubStatus> {
  let username: string;
  try {
    ({ username } = await getImageHub().verify(credential));
  } catch (err) {
    if (err instanceof AppError && err.code === 'IMAGE_HUB_CREDENTIAL_INVALID') {
      throw invalidField('accessToken', 'the image hub refused this username and access token; check both and that the token is active');
    }
    throw err;
  }
  const values = { username, sealedAccessToken: seal(credential.accessToken, projectId), connectedBy: userId, connectedAt: new Date() };
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx
      .insert(imageHubConnections)
      .values({ projectId, ...values })
      .onConflictDoUpdate({ target: imageHubConnections.projectId, set: values });
    await emit(tx, projectId, 'image_hub.connected', { username, by: userId });
  });
  return imageHubStatus(projectId);
}

export async function disconnectImageHub(projectId: string, userId: string): Promise<ImageHubStatus> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const removed = await tx.delete(imageHubConnections).where(eq(imageHubConnections.projectId, projectId)).returning();
    if (removed.length > 0) await emit(tx, projectId, 'image_hub.disconnected', { by: userId });
  });
  return imageHubStatus(projectId);
}

export async function listImageHubRepositories(projectId: string): Promise<ImageHubRepository[]> {
  return getImageHub().listRepositories(await requireCredential(projectId));
}

export async function listImageHubTags(projectId: string, namespace: string, repository: string): Promise<ImageHubTag[]> {
  return getImageHub().listTags(await requireCredential(projectId), namespace, repository);
}

async function requireCredential(projectId: string): Promise<ImageHubCredential> {
  const row = await connectionRow(projectId);
  if (!row)
    throw new AppError('IMAGE_HUB_NOT_CONNECTED', 'No image hub account is connected to this project; connect one with a username and access token first');
  return { username: row.username, accessToken: open(row.sealedAccessToken, projectId) };
}

async function connectionRow(projectId: string) {
  const db = await getDb();
  const [row] = await db.select().from(imageHubConnections).where(eq(imageHubConnections.projectId, projectId));
  return row ?? null;
}

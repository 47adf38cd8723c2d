import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { getDb, type DbOrTx, type Tx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { billingItems, secretAuditEntries, secretPacks, secrets, users } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { previewPurchase, purchaseCreation } from '../../billing/purchases';
import type { Preview } from '../../billing/previewSchema';
import { getConfig } from '../../platform/config';
import { effectiveConfiguration, type Environment } from '../../platform/configuration';
import { open, seal } from '../../platform/encryption/envelope';
import { AppError } from '../../platform/errors';
import { lockProjectResource } from '../../platform/projectLocks';
import { emit } from '../../platform/events';
import {
  SECRET_PACK_SIZE,
  type CreatedSecret,
  type Secret,
  type SecretAuditAction,
  type SecretAuditEntry,
  type SecretsUsage,
  type UpdatedSecret,
} from './schema';

/** What billing calls the subscription item of a pack purchase. */
export const SECRET_PACK_RESOURCE = 'secret_pack';

const creator = alias(users, 'secret_creator');
const updater = alias(users, 'secret_updater');

/** The project's secrets, by environment then name; never a value. `effective` resolves one environment's set instead. */
export async function listSecrets(projectId: string, filter: { environment?: Environment; effective?: boolean }): Promise<Secret[]> {
  const db = await getDb();
  if (filter.effective) {
    const environment = filter.environment ?? 'default';
    const rows = await selectSecrets(db, projectId);
    return effectiveConfiguration(rows, environment).map(toView);
  }
  const rows = await selectSecrets(db, projectId, filter.environment);
  return rows.map(toView);
}

export async function getSecret(projectId: string, secretId: string): Promise<Secret> {
  const db = await getDb();
  const [row] = await selectSecrets(db, projectId, undefined, secretId);
  if (!row) throw new AppError('NOT_FOUND', 'Secret not found');
  return toView(row);
}

/**
 * Creates a secret and returns its value once. The project row is locked while the limit is
 * counted, so concurrent creations cannot overshoot it; the unique index settles a name taken twice at once.
 */
export async function createSecret(
  projectId: string,
  actorUserId: string,
  input: { name: string; value: string; description?: string; environment: Environment },
): Promise<CreatedSecret> {
  const db = await getDb();
  const id = newId('sec');
  try {
    await db.transaction(async (tx) => {
      await lockProjectResource(tx, projectId, 'secrets');
      await refuseTakenName(tx, projectId, input.environment, input.name);
      const usage = await usageOf(tx, projectId);
      if (usage.used >= usage.limit) {
        throw new AppError(
          'SECRET_LIMIT_REACHED',
          `This project holds ${usage.used} of ${usage.limit} secrets; buy a pack of ${SECRET_PACK_SIZE} more or delete a secret first`,
        );
      }
      const now = new Date();
      await tx.insert(secrets).values({
        id,
        projectId,
        name: input.name,
        environment: input.environment,
        description: input.description ?? '',
        sealedValue: seal(input.value, id),
        version: 1,
        createdBy: actorUserId,
        updatedBy: actorUserId,
        createdAt: now,
        updatedAt: now,
      });
      await recordAudit(tx, projectId, id, 'CREATED', actorUserId, now);
      await emit(tx, projectId, 'secret.created', { secretId: id, name: input.name, environment: input.environment, version: 1, by: actorUserId });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'secrets_project_environment_name_key')) throw takenName(input.environment, input.name);
    throw err;
  }
  return { ...(await getSecret(projectId, id)), value: input.value, maskedValue: maskSecretValue(input.value) };
}

/** Replaces the value (and the description when given), one version up, and returns the new value once. */
export async function updateSecret(
  projectId: string,
  secretId: string,
  actorUserId: string,
  input: { value: string; description?: string },
): Promise<UpdatedSecret> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const now = new Date();
    const [updated] = await tx
      .update(secrets)
      .set({
        sealedValue: seal(input.value, secretId),
        ...(input.description === undefined ? {} : { description: input.description }),
        version: sql`${secrets.version} + 1`,
        updatedBy: actorUserId,
        updatedAt: now,
      })
      .where(and(eq(secrets.id, secretId), eq(secrets.projectId, projectId)))
      .returning({ name: secrets.name, environment: secrets.environment, version: secrets.version });
    if (!updated) throw new AppError('NOT_FOUND', 'Secret not found');
    await recordAudit(tx, projectId, secretId, 'UPDATED', actorUserId, now);
    await emit(tx, projectId, 'secret.updated', { secretId, ...updated, by: actorUserId });
  });
  return { ...(await getSecret(projectId, secretId)), value: input.value };
}

/** Deletes the secret; its audit trail stays. Packs bought are kept: deleting never refunds. */
export async function deleteSecret(projectId: string, secretId: string, actorUserId: string): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(secrets)
      .where(and(eq(secrets.id, secretId), eq(secrets.projectId, projectId)))
      .returning({ name: secrets.name, environment: secrets.environment, version: secrets.version });
    if (!deleted) throw new AppError('NOT_FOUND', 'Secret not found');
    await recordAudit(tx, projectId, secretId, 'DELETED', actorUserId, new Date());
    await emit(tx, projectId, 'secret.deleted', { secretId, ...deleted, by: actorUserId });
  });
}

/** The trail of one secret, newest first; it outlives the secret. */
export async function secretAudit(projectId: string, secretId: string): Promise<SecretAuditEntry[]> {
  const db = await getDb();
  const rows = await db
    .select({ entry: secretAuditEntries, actor: { id: users.id, name: users.name, email: users.email } })
    .from(secretAuditEntries)
    .innerJoin(users, eq(users.id, secretAuditEntries.actorUserId))
    .where(and(eq(secretAuditEntries.projectId, projectId), eq(secretAuditEntries.secretId, secretId)))
    .orderBy(desc(secretAuditEntries.createdAt), desc(secretAuditEntries.id));
  if (rows.length === 0) throw new AppError('NOT_FOUND', 'Secret not found');
  return rows.map(({ entry, actor }) => ({
    id: entry.id,
    secretId: entry.secretId,
    action: entry.action,
    actor,
    createdAt: entry.createdAt.toISOString(),
  }));
}

export async function secretsUsage(projectId: string): Promise<SecretsUsage> {
  return usageOf(await getDb(), projectId);
}

/** What buying `packs` packs would charge now; the upgrade charges exactly this at the same instant. */
export async function previewSecretsUpgrade(projectId: string, packs: number): Promise<Preview> {
  return previewPurchase(projectId, packs * requirePackPrice());
}

/**
 * Buys packs as a subscription item of their own, charged prorated now and in full at every
 * month's close. A refused or failed charge leaves nothing bought (the billing engine records the
 * packs only in the transaction that settles the payment).
 */
export async function upgradeSecrets(projectId: string, actorUserId: string, packs: number): Promise<SecretsUsage> {
  const packPrice = requirePackPrice();
  const packId = newId('spk');
  await purchaseCreation({
    projectId,
    actorUserId,
    resourceType: SECRET_PACK_RESOURCE,
    resourceKey: packId,
    category: 'other',
    description: `Secrets: ${packs} ${packs === 1 ? 'pack' : 'packs'} of ${SECRET_PACK_SIZE}`,
    monthly: packs * packPrice,
    fulfil: async (tx, { billingItemId }) => {
      // Counted before the insert: the billing engine writes the new item after this returns.
      const paidPacks = (await paidPacksOf(tx, projectId)) + packs;
      await tx.insert(secretPacks).values({ id: packId, projectId, packs, billingItemId, purchasedBy: actorUserId });
      await emit(tx, projectId, 'secrets.upgraded', {
        packs,
        paidPacks,
        limit: getConfig().SECRETS_FREE_LIMIT + paidPacks * SECRET_PACK_SIZE,
        by: actorUserId,
      });
      return { resourceId: packId, result: undefined };
    },
  });
  return secretsUsage(projectId);
}

/**
 * The plaintext set a deployment in `environment` receives: its own secrets and the `default` ones
 * it does not override, name → value.
 */
export async function effectiveSecrets(projectId: string, environment: Environment): Promise<Record<string, string>> {
  const db = await getDb();
  const rows = await db
    .select({ id: secrets.id, name: secrets.name, environment: secrets.environment, sealedValue: secrets.sealedValue })
    .from(secrets)
    .where(eq(secrets.projectId, projectId));
  return Object.fromEntries(effectiveConfiguration(rows, environment).map((row) => [row.name, open(row.sealedValue, row.id)]));
}

/**
 * A reminder of which value this is, never enough to use it: a fixed run of bullets (the length is
 * not told), between the first two and last two characters only when the value is long enough
 * that four characters leave most of it hidden.
 */
export function maskSecretValue(value: string): string {
  const chars = [...value];
  const bullets = '••••••••';
  if (chars.length < 12) return bullets;
  return `${chars.slice(0, 2).join('')}${bullets}${chars.slice(-2).join('')}`;
}

function requirePackPrice(): number {
  const price = getConfig().SECRETS_PACK_PRICE_MONTHLY;
  if (price === undefined) throw new AppError('SECRET_PACKS_NOT_SOLD', 'Packs of secrets are not sold on this platform (no pack price is configured)');
  return price;
}

async function usageOf(db: DbOrTx, projectId: string): Promise<SecretsUsage> {
  const config = getConfig();
  const [used] = await db.select({ n: count() }).from(secrets).where(eq(secrets.projectId, projectId));
  const paidPacks = await paidPacksOf(db, projectId);
  const price = config.SECRETS_PACK_PRICE_MONTHLY;
  return {
    used: used?.n ?? 0,
    limit: config.SECRETS_FREE_LIMIT + paidPacks * SECRET_PACK_SIZE,
    freeLimit: config.SECRETS_FREE_LIMIT,
    packSize: SECRET_PACK_SIZE,
    paidPacks,
    packPrice: price === undefined ? null : { monthly: price, currency: config.BILLING_CURRENCY.toUpperCase() },
  };
}

/** Packs whose subscription item is still active. */
async function paidPacksOf(db: DbOrTx, projectId: string): Promise<number> {
  const [row] = await db
    .select({ packs: sql<string>`coalesce(sum(${secretPacks.packs}), 0)` })
    .from(secretPacks)
    .innerJoin(billingItems, eq(billingItems.id, secretPacks.billingItemId))
    .where(and(eq(secretPacks.projectId, projectId), isNull(billingItems.endedAt)));
  return Number(row?.packs ?? 0);
}

async function refuseTakenName(tx: Tx, projectId: string, environment: Environment, name: string): Promise<void> {
  const [existing] = await tx
    .select({ id: secrets.id })
    .from(secrets)
    .where(and(eq(secrets.projectId, projectId), eq(secrets.environment, environment), eq(secrets.name, name)));
  if (existing) throw takenName(environment, name);
}

function takenName(environment: Environment, name: string): AppError {
  const message = `A secret named ${name} already exists in the ${environment} environment`;
  return new AppError('CONFLICT', message, { fields: { name: message } });
}

async function recordAudit(tx: Tx, projectId: string, secretId: string, action: SecretAuditAction, actorUserId: string, at: Date): Promise<void> {
  await tx.insert(secretAuditEntries).values({ id: newId('sau'), projectId, secretId, action, actorUserId, createdAt: at });
}

function selectSecrets(db: DbOrTx, projectId: string, environment?: Environment, secretId?: string) {
  return db
    .select({
      secret: secrets,
      creator: { id: creator.id, name: creator.name, email: creator.email },
      updater: { id: updater.id, name: updater.name, email: updater.email },
    })
    .from(secrets)
    .innerJoin(creator, eq(creator.id, secrets.createdBy))
    .innerJoin(updater, eq(updater.id, secrets.updatedBy))
    .where(
      and(eq(secrets.projectId, projectId), environment ? eq(secrets.environment, environment) : undefined, secretId ? eq(secrets.id, secretId) : undefined),
    )
    .orderBy(asc(secrets.environment), asc(secrets.name))
    .then((rows) => rows.map((row) => ({ ...row, name: row.secret.name, environment: row.secret.environment })));
}

type SecretRow = Awaited<ReturnType<typeof selectSecrets>>[number];

function toView({ secret, creator: createdByUser, updater: updatedByUser }: SecretRow): Secret {
  return {
    id: secret.id,
    name: secret.name,
    description: secret.description,
    environment: secret.environment,
    version: secret.version,
    createdBy: secret.createdBy,
    updatedBy: secret.updatedBy,
    createdAt: secret.createdAt.toISOString(),
    updatedAt: secret.updatedAt.toISOString(),
    createdByUser,
    updatedByUser,
  };
}

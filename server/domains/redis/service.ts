import { and, asc, desc, eq, gte, inArray, isNull, lt, ne } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { redisDatabases, redisUsageSamples } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Preview } from '../../billing/preview';
import { creditFailedCreation, endBillingItem, previewPurchase, purchaseCreation } from '../../billing/purchases';
import { open, seal } from '../../platform/encryption/envelope';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getRedisProvider, type RedisEndpoint, type RedisUsage } from '../../providers/redis';
import { knownPlan, monthlyPrice, sellablePlan } from './catalogue';
import type { CreateRedisInput, RedisDatabase, RedisDatabaseWithCredentials, RedisUsageView } from './schema';

export const REDIS_RESOURCE_TYPE = 'redis';
const REDIS_ID_PREFIX = 'rds';
const MB = 1024 * 1024;

/** A database the provider reports failed is started again this many times before it is FAILED. */
export const MAX_START_ATTEMPTS = 3;
/** SPEC: usage may lag up to a minute. */
export const USAGE_MAX_AGE_MS = 60_000;
const HISTORY_WINDOW_MS = 60 * 60_000;
/** Samples are kept a day: the chart shows the last hour, the rest is for support. */
export const SAMPLE_RETENTION_MS = 24 * 60 * 60_000;

export type RedisRow = typeof redisDatabases.$inferSelect;

export interface CreateRedisRequest extends CreateRedisInput {
  projectId: string;
  actorUserId: string;
}

/** Live databases, newest first, provisioning ones settled against the provider; no passwords. */
export async function listRedis(projectId: string): Promise<RedisDatabase[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(redisDatabases)
    .where(and(eq(redisDatabases.projectId, projectId), isNull(redisDatabases.terminatedAt)))
    .orderBy(desc(redisDatabases.createdAt), desc(redisDatabases.id));
  const settled = await Promise.all(rows.map((row) => settle(row)));
  return settled.map(toView);
}

/** The single read: with the default user's password and a connection URL. */
export async function getRedis(projectId: string, redisId: string): Promise<RedisDatabaseWithCredentials> {
  const row = await settle(await liveDatabase(projectId, redisId));
  const password = open(row.sealedPassword, row.id);
  return { ...toView(row), username: 'default', password, url: connectionUrl(row, password) };
}

/**
 * Buys and starts a database. The plan, region and options are checked against the catalogue and
 * the name against the project before anything is charged; then the billing engine records the
 * purchase, charges the card, asks the provider to start the database (a provider failure refunds
 * the charge and answers 502) and writes the row, its billing item and the charge history in one
 * transaction. The provider answers at once; the database is PROVISIONING until it serves.
 */
export async function createRedis(request: CreateRedisRequest): Promise<RedisDatabase> {
  const { projectId, actorUserId, name, replication, dataPersistence } = request;
  const plan = await sellablePlan(request);
  const db = await getDb();
  await assertNameFree(db, projectId, name);
  const redisId = newId(REDIS_ID_PREFIX);
  const provider = getRedisProvider();
  try {
    const receipt = await purchaseCreation<RedisRow, RedisEndpoint>({
      projectId,
      actorUserId,
      resourceType: REDIS_RESOURCE_TYPE,
      resourceKey: name,
      category: 'redis',
      description: `Redis ${name} (${plan.slug}${replication ? ' with replication' : ''}, ${request.region})`,
      monthly: monthlyPrice(plan, replication),
      assertAvailable: (tx) => assertNameFree(tx, projectId, name),
      provision: () => upstream(() => provider.provision({ id: redisId, memoryMb: plan.memoryMb, replication, persistence: dataPersistence })),
      unprovision: () => discardDatabase(redisId),
      fulfil: async (tx, { billingItemId, provisioned: endpoint }) => {
        const now = new Date();
        const [row] = await tx
          .insert(redisDatabases)
          .values({
            id: redisId,
            projectId,
            name,
            planSlug: plan.slug,
            region: request.region,
            memoryMb: plan.memoryMb,
            replication,
            dataPersistence,
            status: 'PROVISIONING',
            host: endpoint.host,
            port: endpoint.port,
            tls: endpoint.tls,
            sealedPassword: seal(endpoint.password, redisId),
            billingItemId,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await emit(tx, projectId, 'redis.created', { redisId, name, plan: plan.slug, region: request.region, replication, by: actorUserId });
        return { resourceId: redisId, result: row! };
      },
    });
    return toView(receipt.result);
  } catch (err) {
    if (isUniqueViolation(err, 'redis_databases_project_live_name_key')) throw nameTaken(name);
    throw err;
  }
}

/**
 * Stops the database's processes and removes its data at the provider, then stops billing and
 * hides it. A provider failure answers 502 and keeps everything, so the call can be repeated.
 */
export async function deleteRedis(projectId: string, redisId: string, actorUserId: string): Promise<void> {
  const row = await liveDatabase(projectId, redisId);
  await upstream(() => getRedisProvider().deprovision(row.id));
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [terminated] = await tx
      .update(redisDatabases)
      .set({ terminatedAt: now, updatedAt: now })
      .where(and(eq(redisDatabases.id, redisId), isNull(redisDatabases.terminatedAt)))
      .returning({ id: redisDatabases.id });
    if (!terminated) return;
    await endBillingItem(tx, projectId, REDIS_RESOURCE_TYPE, redisId, now);
    await emit(tx, projectId, 'redis.deleted', { redisId, name: row.name, by: actorUserId });
  });
}

/** What creating a database of the plan would charge now and monthly; replication bills a second unit. */
export async function previewRedis(projectId: string, planSlug: string, replication: boolean): Promise<Preview> {
  const plan = await knownPlan(planSlug);
  if (replication && !plan.supportsReplication) {
    throw new AppError('VALIDATION_ERROR', `replication: plan ${plan.slug} does not support replication`, {
      fields: { replication: 'not supported by this plan' },
    });
  }
  return previewPurchase(projectId, monthlyPrice(plan, replication));
}

/**
 * Memory, network and operations as read from the database, at most a minute old (a fresher
 * reading is taken when the last is older), with the last hour of readings for a chart. While
 * the database is not READY every figure is 0.
 */
export async function redisUsage(projectId: string, redisId: string, now = new Date()): Promise<RedisUsageView> {
  const row = await settle(await liveDatabase(projectId, redisId));
  const limit = usableMemoryMb(row) * MB;
  if (row.status !== 'READY') {
    return { memoryUsedBytes: 0, memoryLimitBytes: limit, networkInBytes: 0, networkOutBytes: 0, operations: 0, sampledAt: null, history: [] };
  }
  const db = await getDb();
  const history = await db
    .select()
    .from(redisUsageSamples)
    .where(and(eq(redisUsageSamples.redisId, redisId), gte(redisUsageSamples.sampledAt, new Date(now.getTime() - HISTORY_WINDOW_MS))))
    .orderBy(asc(redisUsageSamples.sampledAt));
  let latest = history.at(-1);
  if (!latest || now.getTime() - latest.sampledAt.getTime() >= USAGE_MAX_AGE_MS) {
    try {
      latest = await recordSample(row, now);
      history.push(latest);
    } catch (err) {
      // A reading within the minute SPEC allows is still an answer; anything older is not.
      if (!latest || now.getTime() - latest.sampledAt.getTime() > USAGE_MAX_AGE_MS) throw err;
      getLogger().warn({ err, redisId }, 'redis usage served from the last reading: the provider failed');
    }
  }
  return {
    memoryUsedBytes: latest.memoryUsedBytes,
    // The plan is ours: the limit is what was bought, whatever a provider that lost track would say.
    memoryLimitBytes: limit,
    networkInBytes: latest.networkInBytes,
    networkOutBytes: latest.networkOutBytes,
    operations: latest.operations,
    sampledAt: latest.sampledAt.toISOString(),
    history: history.map((s) => ({
      at: s.sampledAt.toISOString(),
      memoryUsedBytes: s.memoryUsedBytes,
      networkInBytes: s.networkInBytes,
      networkOutBytes: s.networkOutBytes,
      operations: s.operations,
    })),
  };
}

/**
 * The minute's reading of every READY database (so the chart has points even when nobody looks),
 * and the purge of readings past their retention. Returns how many were read.
 */
export async function sampleUsage(now = new Date()): Promise<number> {
  const db = await getDb();
  await db.delete(redisUsageSamples).where(lt(redisUsageSamples.sampledAt, new Date(now.getTime() - SAMPLE_RETENTION_MS)));
  const ready = await db
    .select()
    .from(redisDatabases)
    .where(and(eq(redisDatabases.status, 'READY'), isNull(redisDatabases.terminatedAt)));
  let sampled = 0;
  for (const row of ready) {
    try {
      await recordSample(row, now);
      sampled += 1;
    } catch (err) {
      getLogger().warn({ err, redisId: row.id }, 'redis usage not read this minute');
    }
  }
  return sampled;
}

/** Settles every PROVISIONING database, so none waits for a reader to become READY. Returns how many changed. */
export async function settleProvisioningDatabases(): Promise<number> {
  const db = await getDb();
  const pending = await db
    .select()
    .from(redisDatabases)
    .where(and(eq(redisDatabases.status, 'PROVISIONING'), isNull(redisDatabases.terminatedAt)));
  let changed = 0;
  for (const row of pending) if ((await settle(row)) !== row) changed += 1;
  return changed;
}

/** At app start: the provider takes over (or starts again) the databases that should be running. */
export async function adoptDatabases(): Promise<void> {
  const db = await getDb();
  const rows = await db
    .select({ id: redisDatabases.id })
    .from(redisDatabases)
    .where(and(isNull(redisDatabases.terminatedAt), ne(redisDatabases.status, 'FAILED')));
  await getRedisProvider().adopt(rows.map((r) => r.id));
}

/**
 * Moves a PROVISIONING database on from what the provider reports: ready makes it READY; failed
 * starts it again (the provider revives a failed id on a repeated provision) until
 * MAX_START_ATTEMPTS, after which it is FAILED, its billing stopped and its charge credited back.
 * A provider that cannot answer leaves the row as it is.
 */
async function settle(row: RedisRow): Promise<RedisRow> {
  if (row.status !== 'PROVISIONING') return row;
  const provider = getRedisProvider();
  let status;
  try {
    status = await provider.status(row.id);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'NOT_FOUND')) {
      getLogger().warn({ err, redisId: row.id }, 'redis status not settled: the provider failed');
      return row;
    }
    status = 'failed' as const;
  }
  if (status === 'provisioning') return row;
  const db = await getDb();
  const now = new Date();
  if (status === 'ready') {
    const [saved] = await db
      .update(redisDatabases)
      .set({ status: 'READY', updatedAt: now })
      .where(and(eq(redisDatabases.id, row.id), eq(redisDatabases.status, 'PROVISIONING')))
      .returning();
    return saved ?? row;
  }
  if (row.startAttempts < MAX_START_ATTEMPTS) return restart(row, now);
  return db.transaction(async (tx) => {
    const [failed] = await tx
      .update(redisDatabases)
      .set({ status: 'FAILED', updatedAt: now })
      .where(and(eq(redisDatabases.id, row.id), eq(redisDatabases.status, 'PROVISIONING')))
      .returning();
    if (!failed) return row;
    const credited = await creditFailedCreation(tx, row.projectId, row.billingItemId, 'Redis database could not be started', now);
    await emit(tx, row.projectId, 'redis.failed', { redisId: row.id, name: row.name, credited });
    getLogger().error({ redisId: row.id, attempts: row.startAttempts }, 'redis database failed: billing stopped and its charge credited back');
    return failed;
  });
}

/** Asks the provider to start a failed database again; it may come back on a new endpoint. */
async function restart(row: RedisRow, now: Date): Promise<RedisRow> {
  let endpoint: RedisEndpoint;
  try {
    endpoint = await getRedisProvider().provision({ id: row.id, memoryMb: row.memoryMb, replication: row.replication, persistence: row.dataPersistence });
  } catch (err) {
    getLogger().warn({ err, redisId: row.id }, 'redis database could not be started again');
    endpoint = { host: row.host, port: row.port, tls: row.tls, password: '' };
  }
  const db = await getDb();
  const [saved] = await db
    .update(redisDatabases)
    .set({
      startAttempts: row.startAttempts + 1,
      updatedAt: now,
      host: endpoint.host,
      port: endpoint.port,
      tls: endpoint.tls,
      ...(endpoint.password ? { sealedPassword: seal(endpoint.password, row.id) } : {}),
    })
    .where(and(eq(redisDatabases.id, row.id), eq(redisDatabases.status, 'PROVISIONING'), eq(redisDatabases.startAttempts, row.startAttempts)))
    .returning();
  return saved ?? row;
}

async function recordSample(row: RedisRow, now: Date) {
  const usage: RedisUsage = await upstream(() => getRedisProvider().usage(row.id));
  const sample = { redisId: row.id, sampledAt: now, ...usage };
  const db = await getDb();
  await db.insert(redisUsageSamples).values(sample).onConflictDoNothing();
  return sample;
}

export async function liveDatabase(projectId: string, redisId: string): Promise<RedisRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(redisDatabases)
    .where(and(eq(redisDatabases.id, redisId), eq(redisDatabases.projectId, projectId), isNull(redisDatabases.terminatedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Redis database not found');
  return row;
}

/** The live databases of projects, for the suspension hook. */
export async function liveDatabasesOf(projectIds: string[]): Promise<RedisRow[]> {
  if (projectIds.length === 0) return [];
  const db = await getDb();
  return db
    .select()
    .from(redisDatabases)
    .where(and(inArray(redisDatabases.projectId, projectIds), isNull(redisDatabases.terminatedAt)));
}

async function assertNameFree(db: DbOrTx, projectId: string, name: string): Promise<void> {
  const [clash] = await db
    .select({ id: redisDatabases.id })
    .from(redisDatabases)
    .where(and(eq(redisDatabases.projectId, projectId), eq(redisDatabases.name, name), isNull(redisDatabases.terminatedAt)));
  if (clash) throw nameTaken(name);
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `A Redis database named "${name}" already exists in this project`);
}

/** Undoes a provisioning whose purchase failed; what cannot be removed now is logged for an operator. */
async function discardDatabase(redisId: string): Promise<void> {
  try {
    await getRedisProvider().deprovision(redisId);
  } catch (err) {
    getLogger().error({ err, redisId }, 'redis database of a failed purchase could not be removed');
  }
}

/** Provider failures answer 502; a database the provider no longer knows is one too, not a 404 of ours. */
export async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError && err.code !== 'NOT_FOUND') throw err;
    throw new AppError('UPSTREAM_ERROR', 'The Redis provider could not complete the request; try again', { cause: err });
  }
}

function usableMemoryMb(row: Pick<RedisRow, 'memoryMb' | 'replication'>): number {
  return row.replication ? Math.floor(row.memoryMb / 2) : row.memoryMb;
}

function connectionUrl(row: RedisRow, password: string): string {
  return `${row.tls ? 'rediss' : 'redis'}://default:${encodeURIComponent(password)}@${row.host}:${row.port}`;
}

export function toView(row: RedisRow): RedisDatabase {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    planSlug: row.planSlug,
    region: row.region,
    memoryMb: row.memoryMb,
    usableMemoryMb: usableMemoryMb(row),
    replication: row.replication,
    dataPersistence: row.dataPersistence,
    status: row.status,
    host: row.host,
    port: row.port,
    tls: row.tls,
    readOnly: row.suspendedAt !== null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { redisDatabases } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getRedisProvider } from '../../providers/redis';
import { liveDatabasesOf, type RedisRow } from './service';

/**
 * A billing suspension makes the project's databases read-only: writes are refused (NOPERM), reads
 * and the data stay, so an application degrades instead of losing its cache or queue. Lifting it
 * gives writes back. Nothing is deleted, and deleting a database still works and stops its billing.
 * A database the provider cannot reach is logged and left for the dunning job's next pass.
 */
export const redisSuspension: SuspensionHook = {
  resource: 'Redis databases',
  async suspend(projectId) {
    const rows = (await liveDatabasesOf([projectId])).filter((r) => r.suspendedAt === null && r.status !== 'FAILED');
    for (const row of rows) await applyAccessMode(row, true);
  },
  async resume(projectId) {
    const rows = (await liveDatabasesOf([projectId])).filter((r) => r.suspendedAt !== null);
    for (const row of rows) await applyAccessMode(row, false);
  },
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: redisDatabases.projectId })
      .from(redisDatabases)
      .where(and(isNotNull(redisDatabases.suspendedAt), isNull(redisDatabases.terminatedAt)));
    return rows.map((r) => r.projectId);
  },
};

async function applyAccessMode(row: RedisRow, readOnly: boolean): Promise<void> {
  try {
    await getRedisProvider().setReadOnly(row.id, readOnly);
  } catch (err) {
    getLogger().error({ err, redisId: row.id, readOnly }, 'billing suspension could not change a Redis database; the dunning job retries');
    return;
  }
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [saved] = await tx
      .update(redisDatabases)
      .set({ suspendedAt: readOnly ? now : null, updatedAt: now })
      .where(and(eq(redisDatabases.id, row.id), readOnly ? isNull(redisDatabases.suspendedAt) : isNotNull(redisDatabases.suspendedAt)))
      .returning({ id: redisDatabases.id });
    if (saved) {
      await emit(tx, row.projectId, readOnly ? 'redis.suspended' : 'redis.resumed', {
        redisId: row.id,
        name: row.name,
        reason: readOnly ? 'invoice_unpaid' : 'invoice_paid',
      });
    }
  });
}

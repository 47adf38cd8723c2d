import { eq, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../../db';
import { rateLimits } from '../../../../db/schema';
import type { RateLimitStore } from '../store';

/** The parameters of a GCRA step as SQL (bigint microseconds); `stepUs` is cost × interval. */
interface GcraStepParams {
  nowUs: SQL;
  stepUs: SQL;
  capacityUs: SQL;
}

/**
 * One GCRA step (see ../gcra.ts) as a single upsert: a key without a row starts one step on from
 * now; an existing row moves on only when the step fits, so concurrent requests serialise on the row
 * lock and each sees the TAT the previous one left. It returns the new TAT, or no row when the step
 * does not fit.
 */
function gcraStepSql(key: SQL, step: GcraStepParams): SQL {
  const next = sql`greatest(r.tat_us, ${step.nowUs}) + ${step.stepUs}`;
  return sql`insert into ${rateLimits} as r (key, tat_us) values (${key}, ${step.nowUs} + ${step.stepUs})
    on conflict (key) do update set tat_us = ${next} where ${next} - ${step.nowUs} <= ${step.capacityUs} returning tat_us`;
}

/**
 * Budgets in PostgreSQL, shared by every instance on the database. A step is one prepared
 * statement; only a refused step reads the row again, to say when to come back.
 */
export function createPostgresStore(database: () => Promise<Db>): RateLimitStore {
  const prepared = new WeakMap<Db, ReturnType<typeof prepare>>();

  async function statements() {
    const db = await database();
    let found = prepared.get(db);
    if (!found) {
      found = prepare(db);
      prepared.set(db, found);
    }
    return found;
  }

  return {
    kind: 'postgres',
    async apply(key, step) {
      const { take, read } = await statements();
      const [taken] = await take.execute({ key, nowUs: step.nowUs, stepUs: step.cost * step.intervalUs, capacityUs: step.capacityUs });
      if (taken) return { allowed: true, tatUs: taken.tatUs };
      const [current] = await read.execute({ key });
      // The row only goes once its time has passed; if a purge got there first, the budget was just spent.
      return { allowed: false, tatUs: current?.tatUs ?? step.nowUs + step.capacityUs };
    },
    async purge(nowUs) {
      const db = await database();
      const dropped = await db.delete(rateLimits).where(lte(rateLimits.tatUs, nowUs)).returning({ key: rateLimits.key });
      return dropped.length;
    },
    async close() {},
  };
}

function prepare(db: Db) {
  const spent = db.$with('spent', { tatUs: sql<number>`tat_us`.mapWith(Number).as('tat_us') }).as(
    gcraStepSql(sql`${sql.placeholder('key')}`, {
      nowUs: sql`${sql.placeholder('nowUs')}::bigint`,
      stepUs: sql`${sql.placeholder('stepUs')}::bigint`,
      capacityUs: sql`${sql.placeholder('capacityUs')}::bigint`,
    }),
  );
  return {
    take: db.with(spent).select({ tatUs: spent.tatUs }).from(spent).prepare('rate_limit_take'),
    read: db
      .select({ tatUs: rateLimits.tatUs })
      .from(rateLimits)
      .where(eq(rateLimits.key, sql.placeholder('key')))
      .prepare('rate_limit_read'),
  };
}

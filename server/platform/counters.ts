import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db';
import type { DeletionBlocker } from './domain';

/** The `_count` counters of a project, as SPEC names them. */
export const PROJECT_COUNTERS = ['servers', 'domains', 'members', 'apps', 'objectStorages', 'containerRegistries', 'databaseClusters'] as const;

export type ProjectCounter = (typeof PROJECT_COUNTERS)[number];
export type ProjectCounts = Record<ProjectCounter, number>;

/**
 * A counter says where its rows live rather than how to count them, so the registry can read every
 * counter of a project in one prepared statement: project reads are the API's most frequent call.
 */
export interface ResourceCounter {
  counter: ProjectCounter;
  /** How a project deletion refusal names what remains ("2 servers"). */
  label: string;
  /** Whether a remaining resource blocks project deletion (members do not). */
  blocksProjectDeletion: boolean;
  table: PgTable;
  projectIdColumn: PgColumn;
  /** Which rows count (live ones); every row when absent. */
  live?: SQL;
}

const counters = new Map<ProjectCounter, ResourceCounter>();
let preparedFor = new WeakMap<Db, ReturnType<typeof buildSingleProjectCount>>();

/** `server/app.ts` registers the counters of the domain manifests; unregistered counters read 0. */
export function registerResourceCounter(counter: ResourceCounter): void {
  counters.set(counter.counter, counter);
  preparedFor = new WeakMap();
}

export function registeredCounters(): ProjectCounter[] {
  return [...counters.keys()];
}

export function emptyCounts(): ProjectCounts {
  // A literal rather than built from PROJECT_COUNTERS: it runs on every project read, and the type
  // still fails to compile if the two ever disagree.
  return { servers: 0, domains: 0, members: 0, apps: 0, objectStorages: 0, containerRegistries: 0, databaseClusters: 0 };
}

/** Every counter of one project in one prepared statement (or in the caller's transaction). */
export async function countOneProject(db: DbOrTx, projectId: string): Promise<ProjectCounts> {
  const counts = emptyCounts();
  if (counters.size === 0) return counts;
  // Prepared statements belong to the root handle; inside a transaction the same query runs unprepared.
  const isRootDb = !('rollback' in db);
  const [row] = isRootDb
    ? await singleProjectCount(db as Db).execute({ projectId })
    : await db.select(countColumns(sql`${projectId}`)).from(sql`(select 1) as one`);
  for (const [name, value] of Object.entries(row ?? {})) counts[name as ProjectCounter] = Number(value);
  return counts;
}

export async function countProjectResources(db: DbOrTx, projectIds: string[]): Promise<Map<string, ProjectCounts>> {
  const result = new Map<string, ProjectCounts>();
  if (projectIds.length === 1) {
    result.set(projectIds[0]!, await countOneProject(db, projectIds[0]!));
    return result;
  }
  for (const id of projectIds) result.set(id, emptyCounts());
  if (projectIds.length === 0) return result;
  for (const counter of counters.values()) {
    const rows = await db
      .select({ projectId: counter.projectIdColumn, n: count() })
      .from(counter.table)
      .where(and(inArray(counter.projectIdColumn, projectIds), counter.live))
      .groupBy(counter.projectIdColumn);
    for (const { projectId, n } of rows) {
      const entry = result.get(String(projectId));
      if (entry) entry[counter.counter] = n;
    }
  }
  return result;
}

const deletionBlockers: DeletionBlocker[] = [];

/** `server/app.ts` registers the manifests' blockers: paid resources that `_count` does not show. */
export function registerDeletionBlocker(blocker: DeletionBlocker): void {
  deletionBlockers.push(blocker);
}

/** What still holds a project back from deletion, e.g. ["2 servers", "1 domain", "1 Redis database"]. */
export async function remainingResources(db: DbOrTx, projectId: string): Promise<string[]> {
  const counts = await countOneProject(db, projectId);
  const remaining: string[] = [];
  const named = (n: number, label: string) => `${n} ${n === 1 ? label : `${label}s`}`;
  for (const counter of counters.values()) {
    const n = counts[counter.counter];
    if (counter.blocksProjectDeletion && n > 0) remaining.push(named(n, counter.label));
  }
  for (const blocker of deletionBlockers) {
    const [row] = await db
      .select({ n: count() })
      .from(blocker.table)
      .where(and(eq(blocker.projectIdColumn, projectId), blocker.live));
    if (row && row.n > 0) remaining.push(named(row.n, blocker.label));
  }
  return remaining;
}

function countColumns(projectId: SQL): Record<string, SQL<number>> {
  const columns: Record<string, SQL<number>> = {};
  for (const counter of counters.values()) {
    const where = counter.live ? sql`${counter.projectIdColumn} = ${projectId} and ${counter.live}` : sql`${counter.projectIdColumn} = ${projectId}`;
    columns[counter.counter] = sql<number>`(select count(*)::int from ${counter.table} where ${where})`;
  }
  return columns;
}

function singleProjectCount(db: Db) {
  let prepared = preparedFor.get(db);
  if (!prepared) {
    prepared = buildSingleProjectCount(db);
    preparedFor.set(db, prepared);
  }
  return prepared;
}

function buildSingleProjectCount(db: Db) {
  return db
    .select(countColumns(sql`${sql.placeholder('projectId')}`))
    .from(sql`(select 1) as one`)
    .prepare(`project_counts_${[...counters.keys()].sort().join('_')}`);
}

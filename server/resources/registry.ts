import type { DbOrTx } from '../../db';

/** The `_count` counters of a project, as SPEC names them. */
export const PROJECT_COUNTERS = [
  'servers',
  'domains',
  'members',
  'apps',
  'objectStorages',
  'containerRegistries',
  'databaseClusters',
] as const;

export type ProjectCounter = (typeof PROJECT_COUNTERS)[number];
export type ProjectCounts = Record<ProjectCounter, number>;

export interface ResourceCounter {
  counter: ProjectCounter;
  /** How a project deletion refusal names what remains ("2 servers"). */
  label: string;
  /** Counts live resources per project for the given project ids. */
  count(db: DbOrTx, projectIds: string[]): Promise<Map<string, number>>;
  /** Whether a remaining resource blocks project deletion (members do not). */
  blocksProjectDeletion: boolean;
}

const counters = new Map<ProjectCounter, ResourceCounter>();

/** Each resource domain registers its counter here when it is built; unregistered counters read 0. */
export function registerResourceCounter(counter: ResourceCounter): void {
  counters.set(counter.counter, counter);
}

export function emptyCounts(): ProjectCounts {
  return Object.fromEntries(PROJECT_COUNTERS.map((c) => [c, 0])) as ProjectCounts;
}

export async function countProjectResources(db: DbOrTx, projectIds: string[]): Promise<Map<string, ProjectCounts>> {
  const result = new Map<string, ProjectCounts>();
  for (const id of projectIds) result.set(id, emptyCounts());
  if (projectIds.length === 0) return result;
  await Promise.all(
    [...counters.values()].map(async (counter) => {
      const counts = await counter.count(db, projectIds);
      for (const [projectId, n] of counts) {
        const entry = result.get(projectId);
        if (entry) entry[counter.counter] = n;
      }
    }),
  );
  return result;
}

/** What still holds a project back from deletion, e.g. ["2 servers", "1 domain"]. */
export async function remainingResources(db: DbOrTx, projectId: string): Promise<string[]> {
  const counts = (await countProjectResources(db, [projectId])).get(projectId);
  if (!counts) return [];
  const remaining: string[] = [];
  for (const counter of counters.values()) {
    const n = counts[counter.counter];
    if (counter.blocksProjectDeletion && n > 0) remaining.push(`${n} ${n === 1 ? counter.label : `${counter.label}s`}`);
  }
  return remaining;
}

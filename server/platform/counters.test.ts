import { describe, expect, it } from 'vitest';
import { getDb, type Db } from '../../db';
import { createProject, createUser } from '../../test/helpers';
import { countOneProject, PROJECT_COUNTERS, registeredCounters } from './counters';

interface CountingSession {
  prepareQuery: (...args: unknown[]) => { execute: (...args: unknown[]) => Promise<unknown> };
}

const seen = { prepared: 0, executed: 0 };

/** Counts, from here on, every statement prepared and run at the session every query goes through. */
function instrument(db: Db): void {
  const session = (db as unknown as { session: CountingSession }).session;
  const original = session.prepareQuery;
  session.prepareQuery = (...args) => {
    seen.prepared += 1;
    const query = original.apply(session, args);
    const execute = query.execute.bind(query);
    query.execute = (...executeArgs) => {
      seen.executed += 1;
      return execute(...executeArgs);
    };
    return query;
  };
}

async function statementsDuring(work: () => Promise<unknown>): Promise<{ prepared: number; executed: number }> {
  seen.prepared = 0;
  seen.executed = 0;
  await work();
  return { ...seen };
}

describe('project `_count`', () => {
  it('reads all seven counters, every one registered by its domain, in one statement prepared once for every read', async () => {
    expect(registeredCounters().sort()).toEqual([...PROJECT_COUNTERS].sort());

    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const db = await getDb();
    instrument(db);

    const first = await statementsDuring(() => countOneProject(db, projectId));
    expect(first).toEqual({ prepared: 1, executed: 1 });
    let counts: Awaited<ReturnType<typeof countOneProject>> | undefined;
    const later = await statementsDuring(async () => {
      counts = await countOneProject(db, projectId);
      await countOneProject(db, projectId);
    });
    expect(later).toEqual({ prepared: 0, executed: 2 });
    expect(counts).toEqual({ servers: 0, domains: 0, members: 1, apps: 0, objectStorages: 0, containerRegistries: 0, databaseClusters: 0 });
  });
});

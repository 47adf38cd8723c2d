import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { mailMessages } from '../../../db/schema';
import { queryRows } from '../../../test/db';
import { createProject, createUser } from '../../../test/helpers';
import { emit } from '.';
import { configureEventHandlers, dispatchAllPendingEvents, MAX_DISPATCH_ATTEMPTS, type DispatchedEvent } from './dispatch';

describe('the event dispatcher', () => {
  let projectId: string;

  beforeAll(async () => {
    ({ projectId } = await createProject(await createUser()));
    await dispatchAllPendingEvents();
  });
  afterEach(() => configureEventHandlers([]));

  async function record(...types: string[]): Promise<string[]> {
    const db = await getDb();
    return db.transaction(async (tx) => {
      const ids: string[] = [];
      for (const type of types) ids.push(await emit(tx, projectId, type, { marker: type }));
      return ids;
    });
  }

  it('hands each event to every handler once, in the order they were recorded, and marks it dispatched', async () => {
    const seen: Array<[string, string]> = [];
    const ours = (name: string) => ({
      name,
      handle: async (_tx: unknown, event: DispatchedEvent) => {
        if (event.projectId === projectId) seen.push([name, event.type]);
      },
    });
    configureEventHandlers([ours('a'), ours('b')]);
    const ids = await record('project.renamed', 'ssh_key.created', 'ssh_key.deleted');
    await dispatchAllPendingEvents();
    await dispatchAllPendingEvents();
    expect(seen).toEqual([
      ['a', 'project.renamed'],
      ['b', 'project.renamed'],
      ['a', 'ssh_key.created'],
      ['b', 'ssh_key.created'],
      ['a', 'ssh_key.deleted'],
      ['b', 'ssh_key.deleted'],
    ]);
    const rows = await queryRows<{ undispatched: number }>(sql`select count(*)::int as undispatched from events where id in ${ids} and dispatched_at is null`);
    expect(rows[0]?.undispatched).toBe(0);
  });

  it('commits what a handler writes with the dispatch, and rolls back only the failing event, which is tried again', async () => {
    const to = `dispatch-${randomUUID()}@example.com`;
    let failures = 0;
    configureEventHandlers([
      {
        name: 'writer',
        handle: async (tx, event) => {
          if (event.projectId !== projectId) return;
          await tx.insert(mailMessages).values({ id: randomUUID(), to, subject: event.type, text: '' });
          if (event.type === 'project.renamed' && failures < 2) {
            failures += 1;
            throw new Error('handler failed');
          }
        },
      },
    ]);
    await record('project.renamed', 'ssh_key.created');
    await dispatchAllPendingEvents();
    const subjects = async () =>
      (await queryRows<{ subject: string }>(sql`select subject from mail_messages where "to" = ${to} order by subject`)).map((r) => r.subject);
    expect(await subjects()).toEqual(['ssh_key.created']);
    await dispatchAllPendingEvents();
    await dispatchAllPendingEvents();
    expect(await subjects()).toEqual(['project.renamed', 'ssh_key.created']);
    await dispatchAllPendingEvents();
    expect(await subjects()).toEqual(['project.renamed', 'ssh_key.created']);
  });

  it(`sets an event aside after ${MAX_DISPATCH_ATTEMPTS} failed dispatches, so the ones behind it go on`, async () => {
    configureEventHandlers([
      {
        name: 'broken',
        handle: async (_tx, event) => {
          if (event.projectId === projectId) throw new Error('always fails');
        },
      },
    ]);
    const [id] = await record('project.renamed');
    for (let i = 0; i < MAX_DISPATCH_ATTEMPTS - 1; i += 1) await dispatchAllPendingEvents();
    const state = async () =>
      (
        await queryRows<{ attempts: number; dispatched: boolean }>(
          sql`select dispatch_attempts as attempts, dispatched_at is not null as dispatched from events where id = ${id}`,
        )
      )[0];
    expect(await state()).toEqual({ attempts: MAX_DISPATCH_ATTEMPTS - 1, dispatched: false });
    await dispatchAllPendingEvents();
    expect(await state()).toEqual({ attempts: MAX_DISPATCH_ATTEMPTS, dispatched: true });
  });
});

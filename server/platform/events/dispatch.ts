import { asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { getDb, type Tx } from '../../../db';
import { events } from '../../../db/schema';
import { getLogger } from '../logger';

/** An event as the handlers get it. */
export interface DispatchedEvent {
  id: string;
  projectId: string | null;
  type: string;
  payload: Record<string, unknown>;
  createdAt: Date;
}

/**
 * What a domain does with every recorded event (queue webhook deliveries, write notifications),
 * registered through its manifest (`eventHandlers`). It runs inside the dispatcher's transaction,
 * so what it writes commits exactly when the event is marked dispatched: each event reaches each
 * handler once, whatever crashes in between. It must only write to the database, never call out.
 */
export interface EventHandler {
  /** Names the handler in logs. */
  name: string;
  handle(tx: Tx, event: DispatchedEvent): Promise<void>;
}

/** After this many failed dispatches an event is set aside (logged, marked dispatched) so the ones behind it go on. */
export const MAX_DISPATCH_ATTEMPTS = 5;
const BATCH = 100;

const holder = globalThis as unknown as { __eventHandlers?: readonly EventHandler[] };

/** Installs the handlers (`server/app.ts` does, from the domain manifests). */
export function configureEventHandlers(handlers: readonly EventHandler[]): void {
  holder.__eventHandlers = handlers;
}

/**
 * Hands the oldest undispatched events to every handler and marks them dispatched, each event in a
 * savepoint of its own so that one failing handler does not hold back the others. Several workers
 * can run it at once: rows another one holds are skipped. Returns how many events were dispatched.
 */
export async function dispatchPendingEvents(limit = BATCH): Promise<number> {
  const handlers = holder.__eventHandlers ?? [];
  const db = await getDb();
  const log = getLogger().child({ component: 'events' });
  return db.transaction(async (tx) => {
    const rows = await tx.select().from(events).where(isNull(events.dispatchedAt)).orderBy(asc(events.seq)).limit(limit).for('update', { skipLocked: true });
    const done: string[] = [];
    for (const row of rows) {
      const event: DispatchedEvent = {
        id: row.id,
        projectId: row.projectId,
        type: row.type,
        payload: row.payload as Record<string, unknown>,
        createdAt: row.createdAt,
      };
      try {
        await tx.transaction(async (savepoint) => {
          for (const handler of handlers) await handler.handle(savepoint, event);
        });
        done.push(row.id);
      } catch (err) {
        const attempts = row.dispatchAttempts + 1;
        const setAside = attempts >= MAX_DISPATCH_ATTEMPTS;
        log.error({ err, eventId: row.id, type: row.type, attempts, setAside }, 'event handler failed');
        await tx
          .update(events)
          .set({ dispatchAttempts: attempts, ...(setAside ? { dispatchedAt: sql`now()` } : {}) })
          .where(eq(events.id, row.id));
      }
    }
    if (done.length > 0)
      await tx
        .update(events)
        .set({ dispatchedAt: sql`now()` })
        .where(inArray(events.id, done));
    return done.length;
  });
}

/** Dispatches until nothing is left: what tests and the worker's loop call. */
export async function dispatchAllPendingEvents(): Promise<number> {
  let total = 0;
  for (;;) {
    const dispatched = await dispatchPendingEvents();
    total += dispatched;
    if (dispatched < BATCH) return total;
  }
}

/**
 * The worker's loop: dispatches whatever is pending every `intervalMs`, one pass at a time. Returns
 * the function that stops it (and waits for the pass under way).
 */
export function startEventDispatcher(intervalMs: number): () => Promise<void> {
  const log = getLogger().child({ component: 'events' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = dispatchAllPendingEvents()
      .catch((err: unknown) => log.error({ err }, 'event dispatch failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

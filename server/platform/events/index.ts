import { events } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { DbOrTx } from '../../../db';

const holder = globalThis as unknown as { __eventTypes?: ReadonlySet<string> };

/** Installs the event catalogue (`server/app.ts` does, from the domain manifests). */
export function configureEventTypes(declarations: Iterable<string | { type: string }>): void {
  const set = new Set<string>();
  for (const declaration of declarations) {
    const type = typeof declaration === 'string' ? declaration : declaration.type;
    if (!/^[a-z][a-z_]*\.[a-z][a-z_]*$/.test(type)) throw new Error(`Event type ${type} is not <resource>.<happening> in snake_case`);
    if (set.has(type)) throw new Error(`Two domains declare the event type ${type}`);
    set.add(type);
  }
  holder.__eventTypes = set;
}

/** Every event type a domain declares; what webhooks and notifications can subscribe to. */
export function eventTypes(): readonly string[] {
  return [...(holder.__eventTypes ?? [])].sort();
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the
 * change it describes was committed. Notifications and webhook deliveries are built on this table.
 * A type no manifest declares is a programming error: subscribers could never ask for it.
 */
export async function emit(tx: DbOrTx, projectId: string | null, type: string, payload: Record<string, unknown>): Promise<string> {
  const declared = holder.__eventTypes;
  if (declared && !declared.has(type)) throw new Error(`Event type ${type} is not declared by any domain manifest`);
  const id = newId('evt');
  await tx.insert(events).values({ id, projectId, type, payload });
  return id;
}

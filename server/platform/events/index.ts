import { events } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { DbOrTx } from '../../../db';
import type { EventDeclaration } from '../domain';

const holder = globalThis as unknown as { __eventCatalogue?: ReadonlyMap<string, EventDeclaration> };

/** Installs the event catalogue (`server/app.ts` does, from the domain manifests). */
export function configureEventTypes(declarations: Iterable<EventDeclaration>): void {
  const catalogue = new Map<string, EventDeclaration>();
  for (const declaration of declarations) {
    const { type } = declaration;
    if (!/^[a-z][a-z_]*\.[a-z][a-z_]*$/.test(type)) throw new Error(`Event type ${type} is not <resource>.<happening> in snake_case`);
    if (catalogue.has(type)) throw new Error(`Two domains declare the event type ${type}`);
    catalogue.set(type, declaration);
  }
  holder.__eventCatalogue = catalogue;
}

/** Every event type a domain declares; what webhooks and notifications can subscribe to. */
export function eventTypes(): readonly string[] {
  return [...(holder.__eventCatalogue?.keys() ?? [])].sort();
}

/** The catalogue, sorted by type: each type with the sentence customers read and an example payload. */
export function eventCatalogue(): readonly EventDeclaration[] {
  return [...(holder.__eventCatalogue?.values() ?? [])].sort((a, b) => (a.type < b.type ? -1 : 1));
}

/** One type's declaration, undefined for a type no manifest declares. */
export function eventDeclaration(type: string): EventDeclaration | undefined {
  return holder.__eventCatalogue?.get(type);
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the
 * change it describes was committed. Notifications and webhook deliveries are built on this table.
 * A type no manifest declares is a programming error: subscribers could never ask for it.
 */
export async function emit(tx: DbOrTx, projectId: string | null, type: string, payload: Record<string, unknown>): Promise<string> {
  const declared = holder.__eventCatalogue;
  if (declared && !declared.has(type)) throw new Error(`Event type ${type} is not declared by any domain manifest`);
  const id = newId('evt');
  await tx.insert(events).values({ id, projectId, type, payload });
  return id;
}

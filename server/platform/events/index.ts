import { events } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { DbOrTx } from '../../../db';

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the
 * change it describes was committed. Notifications and webhook deliveries are built on this table.
 */
export async function emit(
  tx: DbOrTx,
  projectId: string | null,
  type: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const id = newId('evt');
  await tx.insert(events).values({ id, projectId, type, payload });
  return id;
}

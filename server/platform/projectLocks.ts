import { sql } from 'drizzle-orm';
import type { Tx } from '../../db';

/**
 * Makes the transaction's writes of one kind of resource in one project take turns with every other
 * transaction doing the same, until it ends: so a count limit (5 secrets, 20 webhook endpoints, 500
 * variables) holds under concurrent creations, which could otherwise both count one under it. A lock
 * of its own (transaction-scoped advisory), so readers and other writers of the project row wait for nothing.
 */
export async function lockProjectResource(tx: Tx, projectId: string, resource: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${resource}), hashtext(${projectId}))`);
}

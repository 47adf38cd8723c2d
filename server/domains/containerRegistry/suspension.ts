import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { containerRegistries } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';

/**
 * A billing suspension closes the project's registries to pushes and to anonymous pulls: the token
 * endpoint stops granting them (tokens already handed out run out within five minutes). Pulls with
 * the project's own keys keep working so customers can still get their images out, and deleting
 * a registry still stops its billing. Paying the invoice opens them again.
 */
export const containerRegistrySuspension: SuspensionHook = {
  resource: 'container registries',
  suspend: (projectId) => mark(projectId, true),
  resume: (projectId) => mark(projectId, false),
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: containerRegistries.projectId })
      .from(containerRegistries)
      .where(and(isNotNull(containerRegistries.billingSuspendedAt), isNull(containerRegistries.deletedAt)));
    return rows.map((row) => row.projectId);
  },
};

async function mark(projectId: string, suspending: boolean): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const now = new Date();
    const changed = await tx
      .update(containerRegistries)
      .set({ billingSuspendedAt: suspending ? now : null, updatedAt: now })
      .where(
        and(
          eq(containerRegistries.projectId, projectId),
          isNull(containerRegistries.deletedAt),
          suspending ? isNull(containerRegistries.billingSuspendedAt) : isNotNull(containerRegistries.billingSuspendedAt),
        ),
      )
      .returning({ id: containerRegistries.id, name: containerRegistries.name });
    for (const registry of changed) {
      await emit(tx, projectId, suspending ? 'container_registry.suspended' : 'container_registry.resumed', {
        registryId: registry.id,
        name: registry.name,
        reason: suspending ? 'invoice_unpaid' : 'invoice_paid',
      });
    }
  });
}

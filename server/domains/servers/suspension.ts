import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { servers } from '../../../db/schema';
import type { SuspensionHook } from '../../platform/domain';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getInfraProvider, type PowerAction } from '../../providers/infra';
import { reconcile, upstream, type ServerRow } from './service';

/**
 * A billing suspension powers the project's running servers off at the provider and marks them;
 * lifting it powers the marked ones back on. Servers that were already off stay off, and nothing is
 * deleted: disks, addresses and keys are kept, and deleting a server still works and stops its
 * billing. A server that is still applying an action is left for the dunning job's next pass.
 */
export const serverSuspension: SuspensionHook = {
  resource: 'servers',
  suspend: suspendProjectServers,
  resume: resumeProjectServers,
  async projectsWithSuspendedResources() {
    const db = await getDb();
    const rows = await db
      .selectDistinct({ projectId: servers.projectId })
      .from(servers)
      .where(and(isNotNull(servers.suspendedAt), isNull(servers.terminatedAt)));
    return rows.map((r) => r.projectId);
  },
};

async function suspendProjectServers(projectId: string): Promise<void> {
  const db = await getDb();
  const live = await db
    .select()
    .from(servers)
    .where(and(eq(servers.projectId, projectId), isNull(servers.terminatedAt), isNull(servers.deleteRequestedAt), isNull(servers.suspendedAt)));
  if (live.length === 0) return;
  for (const row of await reconcile(live)) {
    if (row.status !== 'RUNNING') continue;
    await applySuspensionAction(row, 'power_off', 'server.suspended', new Date());
  }
}

async function resumeProjectServers(projectId: string): Promise<void> {
  const db = await getDb();
  const marked = await db
    .select()
    .from(servers)
    .where(and(eq(servers.projectId, projectId), isNull(servers.terminatedAt), isNotNull(servers.suspendedAt)));
  if (marked.length === 0) return;
  const now = new Date();
  for (const row of await reconcile(marked)) {
    if (row.status === 'OFF' && !row.deleteRequestedAt) {
      await applySuspensionAction(row, 'power_on', 'server.resumed', now);
    } else if (row.status === 'RUNNING' || row.deleteRequestedAt) {
      // Already back on (a member powered it on after the payment), or on its way out: only the mark goes.
      await db.transaction(async (tx) => {
        const [cleared] = await tx
          .update(servers)
          .set({ suspendedAt: null, updatedAt: now })
          .where(and(eq(servers.id, row.id), isNotNull(servers.suspendedAt)))
          .returning({ id: servers.id });
        if (cleared) await emit(tx, projectId, 'server.resumed', { serverId: row.id, name: row.name, action: null, reason: 'invoice_paid' });
      });
    }
  }
}

/**
 * Sends the action and records it with the suspension mark set (power_off) or cleared (power_on).
 * One server the provider refuses must not keep the others running, or stopped: it is logged and
 * retried on the dunning job's next pass.
 */
async function applySuspensionAction(
  row: ServerRow,
  action: Extract<PowerAction, 'power_off' | 'power_on'>,
  event: 'server.suspended' | 'server.resumed',
  now: Date,
): Promise<void> {
  try {
    await upstream(() => getInfraProvider().performAction(row.providerMachineId, action));
  } catch (err) {
    getLogger().error({ err, serverId: row.id, action }, 'billing suspension could not apply a power action; the dunning job retries');
    return;
  }
  const suspending = action === 'power_off';
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [saved] = await tx
      .update(servers)
      .set({ status: 'PROVISIONING', pendingAction: action, suspendedAt: suspending ? now : null, updatedAt: now })
      .where(and(eq(servers.id, row.id), suspending ? isNull(servers.suspendedAt) : isNotNull(servers.suspendedAt)))
      .returning({ id: servers.id });
    if (saved) await emit(tx, row.projectId, event, { serverId: row.id, name: row.name, action, reason: suspending ? 'invoice_unpaid' : 'invoice_paid' });
  });
}

import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../db';
import { projects } from '../../db/schema';
import { AppError } from '../platform/errors';
import type { SuspensionHook } from '../platform/domain';
import { getLogger } from '../platform/logger';

const hooks = new Map<string, SuspensionHook>();

/** `server/app.ts` registers the hooks of the domain manifests. */
export function registerSuspensionHook(hook: SuspensionHook): void {
  hooks.set(hook.resource, hook);
}

/** Refuses what a project blocked over an unpaid invoice may not do (402 PROJECT_BLOCKED), naming it. */
export async function assertProjectNotBlocked(db: DbOrTx, projectId: string, what: string): Promise<void> {
  const [project] = await db.select({ blockedAt: projects.blockedAt, blockedReason: projects.blockedReason }).from(projects).where(eq(projects.id, projectId));
  if (project?.blockedAt) {
    throw new AppError(
      'PROJECT_BLOCKED',
      `This project is blocked (${project.blockedReason ?? 'unpaid invoice'}), so ${what} is refused; pay the open invoice first`,
    );
  }
}

/** Refuses what would bring a paid resource of a suspended project back into service. */
export async function assertProjectNotSuspended(db: DbOrTx, projectId: string, what: string): Promise<void> {
  const [project] = await db.select({ suspendedAt: projects.suspendedAt }).from(projects).where(eq(projects.id, projectId));
  if (project?.suspendedAt) {
    throw new AppError(
      'PROJECT_SUSPENDED',
      `This project is suspended for an unpaid invoice, so ${what} is refused. Pay the invoice on the Billing page and its resources come back on.`,
    );
  }
}

/**
 * Runs every hook's `suspend` for the project while it is still suspended (a payment may have
 * lifted it meanwhile). One failing hook does not keep the others' resources running.
 */
export async function stopSuspendedResources(projectId: string): Promise<void> {
  const db = await getDb();
  const [project] = await db.select({ suspendedAt: projects.suspendedAt }).from(projects).where(eq(projects.id, projectId));
  if (!project?.suspendedAt) return;
  for (const hook of hooks.values()) await runHook(hook, 'suspend', projectId);
}

/** Runs every hook's `resume` for a project whose suspension was lifted. */
export async function restartResumedResources(projectId: string): Promise<void> {
  for (const hook of hooks.values()) await runHook(hook, 'resume', projectId);
}

/**
 * Brings every project's resources in line with its suspension: what still runs in a suspended
 * project is stopped, and what is still stopped in a project no longer suspended is brought back.
 * A provider that failed during the suspension or the payment is caught up with here.
 */
export async function enforceSuspensions(): Promise<void> {
  const db = await getDb();
  const suspended = await db.select({ id: projects.id }).from(projects).where(isNotNull(projects.suspendedAt));
  for (const { id } of suspended) await stopSuspendedResources(id);
  for (const hook of hooks.values()) {
    const held = await hook.projectsWithSuspendedResources();
    if (held.length === 0) continue;
    const lifted = await db
      .select({ id: projects.id })
      .from(projects)
      .where(and(inArray(projects.id, held), isNull(projects.suspendedAt)));
    for (const { id } of lifted) await runHook(hook, 'resume', id);
  }
}

async function runHook(hook: SuspensionHook, step: 'suspend' | 'resume', projectId: string): Promise<void> {
  try {
    await hook[step](projectId);
  } catch (err) {
    getLogger().error({ err, projectId, resource: hook.resource, step }, 'a billing suspension step did not complete; the dunning job retries it');
  }
}

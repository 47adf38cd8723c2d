import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { apps, deploymentLogLines, deployments, projects } from '../../../db/schema';
import { assertProjectNotSuspended } from '../../billing/suspension';
import { AppError } from '../../platform/errors';
import type { PushEvent } from '../../providers/gitHosts/types';
import { enqueueBuild, queueDeployment } from './queue';
import { branchHead, reachableRepository } from './repositories';
import { liveApp, type DeploymentRow } from './rows';
import type { DeploymentView, DeploymentWithLogView } from './schema';

export async function listDeployments(projectId: string, appId: string): Promise<DeploymentView[]> {
  const { app } = await liveApp(projectId, appId);
  const db = await getDb();
  const rows = await db.select().from(deployments).where(eq(deployments.appId, app.id)).orderBy(desc(deployments.createdAt), desc(deployments.id));
  return rows.map(toDeploymentView);
}

export async function getDeployment(projectId: string, appId: string, deploymentId: string): Promise<DeploymentWithLogView> {
  const { app } = await liveApp(projectId, appId);
  const db = await getDb();
  const [row] = await db
    .select()
    .from(deployments)
    .where(and(eq(deployments.id, deploymentId), eq(deployments.appId, app.id)));
  if (!row) throw new AppError('NOT_FOUND', 'Deployment not found');
  const log = await db.select().from(deploymentLogLines).where(eq(deploymentLogLines.deploymentId, row.id)).orderBy(asc(deploymentLogLines.seq));
  return { ...toDeploymentView(row), log: log.map((l) => ({ seq: l.seq, at: l.at.toISOString(), line: l.line })) };
}

/**
 * Queues a deployment of the head commit of the app's branch, read from the host now. A suspended
 * project's apps are not deployed (402 PROJECT_SUSPENDED); a repository or branch that is gone is
 * a 409 (point the app at another branch).
 */
export async function deployManually(projectId: string, appId: string, actorUserId: string): Promise<DeploymentView> {
  const { app } = await liveApp(projectId, appId);
  const db = await getDb();
  const what = `deploying app "${app.name}"`;
  await assertProjectNotSuspended(db, projectId, what);
  if (app.status === 'SUSPENDED') throw suspendedApp(app.name);
  const repository = await reachableRepository(projectId, app.gitHost, app.repository);
  if (!repository) throw new AppError('CONFLICT', `${app.repository} is no longer reachable with the project's connection to ${app.gitHost}`);
  const head = await branchHead(repository, app.branch);
  if (!head) throw new AppError('CONFLICT', `${app.repository} has no branch "${app.branch}" any more; point the app at another branch first`);
  const deployment = await db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(apps)
      .where(and(eq(apps.id, app.id), isNull(apps.deletedAt)))
      .for('update');
    if (!locked) throw new AppError('NOT_FOUND', 'App not found');
    if (locked.status === 'SUSPENDED') throw suspendedApp(app.name);
    return queueDeployment(tx, locked, { trigger: 'MANUAL', commit: head, createdBy: actorUserId });
  });
  await enqueueBuild(app.id);
  return toDeploymentView(deployment);
}

/**
 * A push to a branch of a repository, for the projects whose connection received it: every live,
 * active app of theirs that builds that branch of that repository (the name compared without
 * letter case) with auto-deploy on queues a deployment of the pushed commit. Apps of a suspended
 * project queue nothing. Answers how many were queued.
 */
export async function queuePushDeployments(projectIds: readonly string[], push: PushEvent): Promise<number> {
  if (projectIds.length === 0) return 0;
  const db = await getDb();
  const queued = await db.transaction(async (tx) => {
    const targets = await tx
      .select({ app: apps })
      .from(apps)
      .innerJoin(projects, eq(projects.id, apps.projectId))
      .where(
        and(
          inArray(apps.projectId, [...projectIds]),
          isNull(apps.deletedAt),
          eq(apps.status, 'ACTIVE'),
          isNull(projects.suspendedAt),
          eq(apps.gitHost, push.host),
          sql`lower(${apps.repository}) = lower(${push.repository})`,
          eq(apps.branch, push.branch),
          eq(apps.autoDeploy, true),
        ),
      )
      .orderBy(asc(apps.createdAt))
      .for('update', { of: apps });
    for (const { app } of targets) {
      await queueDeployment(tx, app, { trigger: 'PUSH', commit: { sha: push.commitSha, message: push.commitMessage }, deliveryId: push.deliveryId });
    }
    return targets.map(({ app }) => app.id);
  });
  for (const appId of queued) await enqueueBuild(appId);
  return queued.length;
}

function suspendedApp(name: string): AppError {
  return new AppError(
    'PROJECT_SUSPENDED',
    `App "${name}" is suspended for an unpaid invoice, so deploying it is refused. Pay the invoice on the Billing page and it can be deployed again.`,
  );
}

export function toDeploymentView(row: DeploymentRow): DeploymentView {
  return {
    id: row.id,
    appId: row.appId,
    status: row.status,
    trigger: row.trigger,
    branch: row.branch,
    commitSha: row.commitSha,
    commitMessage: row.commitMessage,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

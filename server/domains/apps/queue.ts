import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db';
import { deployments, type DeploymentStatus, type DeploymentTrigger } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { emit } from '../../platform/events';
import { enqueueJob } from '../../platform/jobs';
import { getLogger } from '../../platform/logger';
import type { AppRow, DeploymentRow } from './rows';

/**
 * The deployment queue of an app: deployments are rows in QUEUED order, and a job names only the
 * app, so whichever build job runs takes the app's oldest queued deployment (builds.ts).
 */

export const BUILD_APP = 'apps.build';

/** Why deployments still queued when the project's suspension reaches them end FAILED. */
export const SUSPENDED_REASON = 'the project is suspended for an unpaid invoice';

export interface BuildAppData {
  appId: string;
}

export interface DeploymentRequest {
  trigger: DeploymentTrigger;
  commit: { sha: string; message: string };
  deliveryId?: string;
  createdBy?: string | null;
}

/** Queues a deployment of the app's branch at `commit`, inside the caller's transaction. Send its job with `enqueueBuild` after the commit. */
export async function queueDeployment(tx: DbOrTx, app: AppRow, request: DeploymentRequest): Promise<DeploymentRow> {
  const [row] = await tx
    .insert(deployments)
    .values({
      id: newId('dpl'),
      appId: app.id,
      projectId: app.projectId,
      trigger: request.trigger,
      branch: app.branch,
      commitSha: request.commit.sha,
      commitMessage: request.commit.message,
      deliveryId: request.deliveryId ?? null,
      createdBy: request.createdBy ?? null,
    })
    .returning();
  await emit(tx, app.projectId, 'deployment.queued', {
    appId: app.id,
    name: app.name,
    deploymentId: row!.id,
    trigger: request.trigger,
    branch: app.branch,
    commitSha: request.commit.sha,
    commitMessage: request.commit.message,
    by: request.createdBy ?? null,
  });
  return row!;
}

/**
 * Sends the app's build job. A job that cannot be sent is logged and left to the recovery job,
 * which queues a build for every app with a deployment waiting: the deployment is already committed.
 */
export async function enqueueBuild(appId: string): Promise<void> {
  try {
    await enqueueJob<BuildAppData>(BUILD_APP, { appId });
  } catch (err) {
    getLogger().error({ err, appId }, 'the build job of an app could not be sent; the recovery job sends it');
  }
}

/** Ends the app's deployments in `statuses` FAILED with `reason`, inside the caller's transaction. */
export async function failDeployments(tx: DbOrTx, app: AppRow, statuses: readonly DeploymentStatus[], reason: string, now: Date): Promise<number> {
  const failed = await tx
    .update(deployments)
    .set({ status: 'FAILED', failureReason: reason, finishedAt: now })
    .where(and(eq(deployments.appId, app.id), inArray(deployments.status, [...statuses])))
    .returning();
  for (const deployment of failed) await emitFailed(tx, app, deployment, reason);
  return failed.length;
}

export async function emitFailed(tx: DbOrTx, app: AppRow, deployment: DeploymentRow, reason: string): Promise<void> {
  await emit(tx, app.projectId, 'deployment.failed', {
    appId: app.id,
    name: app.name,
    deploymentId: deployment.id,
    branch: deployment.branch,
    commitSha: deployment.commitSha,
    reason,
  });
}

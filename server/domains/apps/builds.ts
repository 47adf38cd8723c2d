import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { apps, deploymentLogLines, deployments } from '../../../db/schema';
import { open } from '../../platform/encryption/envelope';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getBuildProvider, type BuildOutcome, type BuildReporter } from '../../providers/builds';
import { deploymentSource } from '../integrations';
import { emitFailed, enqueueBuild, failDeployments, SUSPENDED_REASON } from './queue';
import type { AppRow, DeploymentRow } from './rows';

/**
 * Runs the builds of an app one at a time, in the order they were queued. A build job names only
 * the app: it takes the oldest QUEUED deployment, and only while none of the app's is BUILDING, so
 * jobs sent for the same app at once build each deployment once and never two together; the job
 * that builds keeps taking the next until the queue is empty.
 */

/** A build still BUILDING this long after it began lost its worker (a crash, a deploy of ours); it ends FAILED. */
export const BUILD_TIMEOUT_MS = 30 * 60_000;
/** A deployment QUEUED this long whose app builds nothing had its job lost; the recovery job sends another. */
export const REQUEUE_AFTER_MS = 60_000;

/** Builds the app's queued deployments one after the other; answers how many it built. */
export async function runBuilds(appId: string): Promise<number> {
  let built = 0;
  for (let claimed = await claimNext(appId); claimed; claimed = await claimNext(appId)) {
    await build(claimed.app, claimed.deployment);
    built += 1;
  }
  return built;
}

/**
 * The recovery pass: builds that stopped answering end FAILED, and apps with deployments waiting
 * in vain get a build job again. Answers how many builds it ended.
 */
export async function recoverBuilds(now = new Date()): Promise<number> {
  const db = await getDb();
  const ended = await db.transaction(async (tx) => {
    const stale = await tx
      .update(deployments)
      .set({ status: 'FAILED', failureReason: 'the build stopped responding and was abandoned; deploy again', finishedAt: now })
      .where(and(eq(deployments.status, 'BUILDING'), lt(deployments.startedAt, new Date(now.getTime() - BUILD_TIMEOUT_MS))))
      .returning();
    for (const deployment of stale) {
      const [app] = await tx.select().from(apps).where(eq(apps.id, deployment.appId));
      if (app) await emitFailed(tx, app, deployment, deployment.failureReason!);
    }
    return stale.length;
  });
  const waiting = await db
    .selectDistinct({ appId: deployments.appId })
    .from(deployments)
    .where(
      and(
        eq(deployments.status, 'QUEUED'),
        lt(deployments.createdAt, new Date(now.getTime() - REQUEUE_AFTER_MS)),
        sql`not exists (select 1 from ${deployments} as building where building.app_id = ${deployments.appId} and building.status = 'BUILDING')`,
      ),
    );
  for (const { appId } of waiting) await enqueueBuild(appId);
  return ended;
}

/** Moves the app's oldest QUEUED deployment to BUILDING, with the app locked, unless one is building already. */
async function claimNext(appId: string): Promise<{ app: AppRow; deployment: DeploymentRow } | null> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [app] = await tx.select().from(apps).where(eq(apps.id, appId)).for('update');
    if (!app || app.deletedAt) return null;
    const [building] = await tx
      .select({ id: deployments.id })
      .from(deployments)
      .where(and(eq(deployments.appId, appId), eq(deployments.status, 'BUILDING')))
      .limit(1);
    if (building) return null;
    if (app.status === 'SUSPENDED') {
      await failDeployments(tx, app, ['QUEUED'], SUSPENDED_REASON, new Date());
      return null;
    }
    const [next] = await tx
      .select()
      .from(deployments)
      .where(and(eq(deployments.appId, appId), eq(deployments.status, 'QUEUED')))
      .orderBy(asc(deployments.createdAt), asc(deployments.id))
      .limit(1);
    if (!next) return null;
    const [started] = await tx
      .update(deployments)
      .set({ status: 'BUILDING', startedAt: new Date() })
      .where(and(eq(deployments.id, next.id), eq(deployments.status, 'QUEUED')))
      .returning();
    return started ? { app, deployment: started } : null;
  });
}

/**
 * One build: the source at the commit (for hosts 2 and 3 the deployment copy, brought up to date
 * first), then the build provider, then the outcome. A failure to reach the source is the
 * deployment's failure, with the host's reason; anything else unexpected fails it without
 * details in the reason and is logged for an operator.
 */
async function build(app: AppRow, deployment: DeploymentRow): Promise<void> {
  const reporter = logOf(deployment.id);
  let outcome: BuildOutcome;
  try {
    if (!deployment.commitSha) throw new AppError('CONFLICT', 'the deployment names no commit');
    await reporter.log(`Deploying ${deployment.commitSha.slice(0, 7)} of ${app.repository}@${deployment.branch} (${deployment.trigger.toLowerCase()})`);
    const { source, sourceCopy } = await deploymentSource(app.projectId, app.gitHost, app.repository, deployment.commitSha);
    if (sourceCopy) {
      const db = await getDb();
      await db.update(deployments).set({ sourceCopy }).where(eq(deployments.id, deployment.id));
      await reporter.log(`Building from the deployment copy ${sourceCopy}`);
    }
    outcome = await getBuildProvider().build(
      {
        deploymentId: deployment.id,
        appId: app.id,
        appName: app.name,
        region: app.region,
        commitSha: deployment.commitSha,
        services: app.services.map((service) => ({
          ...service,
          envVars: service.envVars.map((v) => (v.secret ? { ...v, value: open(v.value, app.id) } : v)),
        })),
        source,
      },
      reporter,
    );
  } catch (err) {
    if (!(err instanceof AppError)) getLogger().error({ err, appId: app.id, deploymentId: deployment.id }, 'a build stopped on an unexpected error');
    outcome = { status: 'FAILED', reason: err instanceof AppError ? err.message : 'the build stopped on an internal error; deploy again' };
  }
  await finish(app.id, deployment, outcome);
}

/**
 * Records the outcome, unless the deployment ended meanwhile (the app was deleted, the build was
 * abandoned). A LIVE deployment becomes the app's live one and the one it replaces SUPERSEDED;
 * should a newer deployment already be live, this one is SUPERSEDED at once instead.
 */
async function finish(appId: string, deployment: DeploymentRow, outcome: BuildOutcome): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [app] = await tx.select().from(apps).where(eq(apps.id, appId)).for('update');
    if (!app) return;
    const now = new Date();
    if (outcome.status === 'FAILED') {
      const [failed] = await tx
        .update(deployments)
        .set({ status: 'FAILED', failureReason: outcome.reason, finishedAt: now })
        .where(and(eq(deployments.id, deployment.id), eq(deployments.status, 'BUILDING')))
        .returning();
      if (failed) await emitFailed(tx, app, failed, outcome.reason);
      return;
    }
    const [current] = app.liveDeploymentId ? await tx.select().from(deployments).where(eq(deployments.id, app.liveDeploymentId)) : [];
    const newerIsLive = current !== undefined && current.status === 'LIVE' && current.createdAt > deployment.createdAt;
    const [done] = await tx
      .update(deployments)
      .set({ status: newerIsLive ? 'SUPERSEDED' : 'LIVE', finishedAt: now })
      .where(and(eq(deployments.id, deployment.id), eq(deployments.status, 'BUILDING')))
      .returning();
    if (!done || newerIsLive) return;
    const superseded = current?.status === 'LIVE' ? current.id : null;
    if (superseded)
      await tx
        .update(deployments)
        .set({ status: 'SUPERSEDED' })
        .where(and(eq(deployments.id, superseded), eq(deployments.status, 'LIVE')));
    await tx.update(apps).set({ liveDeploymentId: done.id, updatedAt: now }).where(eq(apps.id, appId));
    await emit(tx, app.projectId, 'deployment.live', {
      appId,
      name: app.name,
      deploymentId: done.id,
      branch: done.branch,
      commitSha: done.commitSha,
      supersededDeploymentId: superseded,
    });
  });
}

/** Writes the deployment's log lines with increasing `seq`; the provider's start is a line of it (the deployment is BUILDING from its claim). */
function logOf(deploymentId: string): BuildReporter {
  let seq = 0;
  const log = async (line: string) => {
    seq += 1;
    const db = await getDb();
    await db.insert(deploymentLogLines).values({ deploymentId, seq, line });
  };
  return { log, building: () => log('Build started') };
}

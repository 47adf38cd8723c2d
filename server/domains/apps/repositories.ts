import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { apps } from '../../../db/schema';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import type { GitCommit, GitHost } from '../../providers/gitHosts/types';
import { openProjectRepository, unwatchRepository, type ProjectRepository } from '../integrations';

/**
 * An app's repository as the project's git connection reaches it. A repository or branch the
 * connection cannot find answers null here, so each caller can say which of its fields is wrong.
 */

export async function reachableRepository(projectId: string, host: GitHost, fullName: string): Promise<ProjectRepository | null> {
  try {
    return await openProjectRepository(projectId, host, fullName);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

export async function branchHead(repository: ProjectRepository, branch: string): Promise<GitCommit | null> {
  try {
    return await repository.headCommit(branch);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/**
 * Removes the project's push webhook of the repository once no live app of the project builds it.
 * The app is gone whatever the host answers: a hook left behind queues nothing, so a failure is
 * logged rather than answered.
 */
export async function releaseRepository(projectId: string, host: GitHost, fullName: string): Promise<void> {
  const db = await getDb();
  const [user] = await db
    .select({ id: apps.id })
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.gitHost, host), sql`lower(${apps.repository}) = lower(${fullName})`, isNull(apps.deletedAt)))
    .limit(1);
  if (user) return;
  try {
    await unwatchRepository(projectId, host, fullName);
  } catch (err) {
    getLogger().warn({ err, projectId, host, repository: fullName }, 'the push webhook of a repository no app builds any more could not be removed');
  }
}

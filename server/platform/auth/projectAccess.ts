import { and, eq, getTableColumns, or, sql } from 'drizzle-orm';
import { getDb, type Db } from '../../../db';
import { memberships, projects } from '../../../db/schema';
import type { ProjectRole } from './roles';

export interface ProjectAccess {
  /** The whole row: a project read answers from it without reading it again. */
  project: typeof projects.$inferSelect;
  /** The user's role in the project, or null when they are not a member. */
  role: ProjectRole | null;
}

/** Finds a project by id or slug together with the user's membership, in one prepared query. */
export async function resolveProjectAccess(userId: string, idOrSlug: string): Promise<ProjectAccess | null> {
  const db = await getDb();
  const [row] = await accessQuery(db).execute({ ref: idOrSlug, slug: idOrSlug.toLowerCase(), userId });
  if (!row) return null;
  const { role, ...project } = row;
  return { project, role };
}

const prepared = new WeakMap<Db, ReturnType<typeof buildAccessQuery>>();

function accessQuery(db: Db) {
  let query = prepared.get(db);
  if (!query) {
    query = buildAccessQuery(db);
    prepared.set(db, query);
  }
  return query;
}

function buildAccessQuery(db: Db) {
  return db
    .select({ ...getTableColumns(projects), role: memberships.role })
    .from(projects)
    .leftJoin(memberships, and(eq(memberships.projectId, projects.id), eq(memberships.userId, sql.placeholder('userId'))))
    .where(or(eq(projects.id, sql.placeholder('ref')), eq(projects.slug, sql.placeholder('slug'))))
    .limit(1)
    .prepare('project_access');
}

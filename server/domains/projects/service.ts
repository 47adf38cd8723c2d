import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { memberships, projectCharges, projects } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { ProjectRole } from '../../platform/auth/roles';
import { unpaidInvoices } from '../../billing/monthlyClose';
import { monthKeyOf } from '../../billing/period';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { countOneProject, countProjectResources, emptyCounts, remainingResources, type ProjectCounts } from '../../platform/counters';
import type { Project, ResourceHistoryEntry } from './schema';

type ProjectRow = typeof projects.$inferSelect;

/** Projects the user is a member of, newest first; `onlyProjectId` narrows it to an API key's project. */
export async function listProjects(userId: string, onlyProjectId?: string): Promise<Project[]> {
  const db = await getDb();
  const filter = onlyProjectId ? and(eq(memberships.userId, userId), eq(projects.id, onlyProjectId)) : eq(memberships.userId, userId);
  const rows = await db
    .select({ project: projects, role: memberships.role })
    .from(projects)
    .innerJoin(memberships, eq(memberships.projectId, projects.id))
    .where(filter)
    .orderBy(desc(projects.createdAt), desc(projects.id));
  const counts = await countProjectResources(
    db,
    rows.map((r) => r.project.id),
  );
  return rows.map((r) => toView(r.project, r.role, counts.get(r.project.id)));
}

/**
 * The project as its access check just read it (the most frequent read of the API: the row is not
 * read twice), with its counters.
 */
export async function getProject(project: ProjectRow, role: ProjectRole): Promise<Project> {
  const db = await getDb();
  return toView(project, role, await countOneProject(db, project.id));
}

/** Creates the project and its owner membership in one transaction. */
export async function createProject(userId: string, name: string): Promise<{ projectId: string; projectSlug: string }> {
  const db = await getDb();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await db.transaction(async (tx) => {
        await assertNameFree(tx, userId, name);
        const slug = await freeSlug(tx, name);
        const id = newId('prj');
        await tx.insert(projects).values({ id, name, slug, createdByUserId: userId, billerUserId: userId });
        await tx.insert(memberships).values({ projectId: id, userId, role: 'owner' });
        await emit(tx, id, 'project.created', { projectId: id, name, createdBy: userId });
        return { projectId: id, projectSlug: slug };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'projects_creator_name_key')) throw duplicateName(name);
      // Two creations raced for the same slug: the loser picks another one.
      if (isUniqueViolation(err, 'projects_slug_key') && attempt < 3) continue;
      throw err;
    }
  }
}

export async function renameProject(projectId: string, actorUserId: string, name: string): Promise<Pick<Project, 'id' | 'name' | 'slug' | 'billingEmail'>> {
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx.select().from(projects).where(eq(projects.id, projectId)).for('update');
      if (!current) throw new AppError('NOT_FOUND', 'Project not found');
      await assertNameFree(tx, current.createdByUserId, name, projectId);
      const [row] = await tx
        .update(projects)
        .set({ name, updatedAt: new Date() })
        .where(eq(projects.id, projectId))
        .returning({ id: projects.id, name: projects.name, slug: projects.slug, billingEmail: projects.billingEmail });
      await emit(tx, projectId, 'project.renamed', { projectId, from: current.name, to: name, by: actorUserId });
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'projects_creator_name_key')) throw duplicateName(name);
    throw err;
  }
}

export async function setBillingEmail(projectId: string, actorUserId: string, billingEmail: string | null): Promise<Pick<Project, 'billingEmail'>> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(projects)
      .set({ billingEmail, updatedAt: new Date() })
      .where(eq(projects.id, projectId))
      .returning({ billingEmail: projects.billingEmail });
    if (!row) throw new AppError('NOT_FOUND', 'Project not found');
    await emit(tx, projectId, 'project.billing_email_changed', { projectId, by: actorUserId });
    return row;
  });
}

/**
 * Deletes the project unless resources remain or an invoice is unpaid (409 naming them);
 * memberships, keys and invitations go with it. Its invoices, all paid by then, are kept: they
 * stay in the billing history of whoever paid them.
 */
export async function deleteProject(projectId: string, actorUserId: string): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [locked] = await tx.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.id, projectId)).for('update');
    if (!locked) throw new AppError('NOT_FOUND', 'Project not found');
    const remaining = await remainingResources(tx, projectId);
    if (remaining.length > 0) {
      throw new AppError('CONFLICT', `Project still holds resources: ${remaining.join(', ')}. Delete them first.`);
    }
    const unpaid = await unpaidInvoices(tx, projectId);
    if (unpaid.length > 0) {
      const listed = unpaid.map((invoice) => `${invoice.period} (${invoice.id}, ${invoice.status})`);
      throw new AppError('CONFLICT', `Project has unpaid invoices: ${listed.join(', ')}. Pay them on the Billing page before deleting the project.`);
    }
    await emit(tx, null, 'project.deleted', { projectId, name: locked.name, by: actorUserId });
    await tx.delete(projects).where(eq(projects.id, projectId));
  });
}

const CATEGORIES = ['servers', 'domains', 'apps', 'objectStorage', 'containerRegistry', 'databases', 'redis', 'email', 'other'] as const;

/** The last five closed UTC months and the month in progress, oldest first, summed by category. */
export async function resourceHistory(projectId: string, now = new Date()): Promise<ResourceHistoryEntry[]> {
  const months: Date[] = [];
  for (let back = 5; back >= 0; back -= 1) {
    months.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)));
  }
  const db = await getDb();
  const rows = await db
    .select({
      month: sql<string>`to_char(date_trunc('month', ${projectCharges.chargedAt} at time zone 'UTC'), 'YYYY-MM')`,
      category: projectCharges.category,
      total: sql<string>`sum(${projectCharges.amount})`,
    })
    .from(projectCharges)
    .where(and(eq(projectCharges.projectId, projectId), gte(projectCharges.chargedAt, months[0]!)))
    .groupBy(sql`1`, projectCharges.category);
  const current = monthKeyOf(months.at(-1)!);
  return months.map((start) => {
    const key = monthKeyOf(start);
    const entry = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Omit<ResourceHistoryEntry, 'month' | 'inProgress'>;
    for (const row of rows) if (row.month === key) entry[row.category] = Number(row.total);
    return { month: key, ...entry, inProgress: key === current };
  });
}

async function assertNameFree(tx: DbOrTx, creatorId: string, name: string, exceptProjectId?: string): Promise<void> {
  const [clash] = await tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.createdByUserId, creatorId), sql`lower(${projects.name}) = lower(${name})`))
    .limit(1);
  if (clash && clash.id !== exceptProjectId) throw duplicateName(name);
}

function duplicateName(name: string): AppError {
  const message = `A project named "${name}" already exists (names are case-insensitive)`;
  return new AppError('CONFLICT', message, { fields: { name: message } });
}

export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return base || 'project';
}

async function freeSlug(tx: DbOrTx, name: string): Promise<string> {
  const base = slugify(name);
  const candidates = [base, ...Array.from({ length: 4 }, () => `${base}-${Math.random().toString(36).slice(2, 7)}`)];
  const taken = await tx.select({ slug: projects.slug }).from(projects).where(inArray(projects.slug, candidates));
  const takenSet = new Set(taken.map((t) => t.slug));
  const free = candidates.find((c) => !takenSet.has(c));
  if (!free) throw new AppError('CONFLICT', 'Could not find a free project slug; try another name');
  return free;
}

function toView(row: ProjectRow, role: ProjectRole, counts: ProjectCounts | undefined): Project {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    billingEmail: row.billingEmail,
    blockedAt: row.blockedAt?.toISOString() ?? null,
    blockedReason: row.blockedReason,
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    role,
    _count: counts ?? emptyCounts(),
  };
}

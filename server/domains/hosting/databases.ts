import { randomBytes } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { hostingDatabases, hostingSites } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { open, seal } from '../../platform/encryption/envelope';
import { AppError, callUpstream } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getHostingDatabaseProvider } from '../../providers/hosting';
import type { HostingDatabaseView } from './schema';
import { TIER_LIMITS } from './tiers';

type SiteRow = typeof hostingSites.$inferSelect;
type DatabaseRow = typeof hostingDatabases.$inferSelect;
export type DatabaseWithPassword = HostingDatabaseView & { dbPassword: string };

export async function listDatabases(site: SiteRow): Promise<HostingDatabaseView[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(hostingDatabases)
    .where(and(eq(hostingDatabases.siteId, site.id), isNull(hostingDatabases.deletedAt)))
    .orderBy(asc(hostingDatabases.createdAt), asc(hostingDatabases.name));
  return rows.map((row) => toView(site, row));
}

export async function getDatabase(site: SiteRow, databaseId: string): Promise<DatabaseWithPassword> {
  const row = await liveDatabase(site, databaseId);
  return { ...toView(site, row), dbPassword: open(row.sealedPassword, row.id) };
}

/**
 * Makes a MySQL database and a user limited to it, with the tier's connection limit. The tier's
 * database limit is a 400; a name the site already has, 409. The server is asked first, so a row
 * never names a database that does not exist; a failure there is 502 and nothing is kept.
 */
export async function createDatabase(site: SiteRow, name: string, actorUserId: string | null): Promise<DatabaseWithPassword> {
  const db = await getDb();
  const live = await db
    .select({ name: hostingDatabases.name })
    .from(hostingDatabases)
    .where(and(eq(hostingDatabases.siteId, site.id), isNull(hostingDatabases.deletedAt)));
  const limits = TIER_LIMITS[site.tier];
  if (live.some((row) => row.name === name)) throw new AppError('CONFLICT', `Site "${site.siteName}" already has a database named "${name}"`);
  if (live.length >= limits.databases) {
    throw new AppError('BAD_REQUEST', `The ${site.tier} tier allows ${limits.databases} databases per site; delete one or change the tier`);
  }
  const id = newId('hdb');
  const dbName = `${site.siteName}_${name}`;
  const dbUser = `${site.siteName.slice(0, 24)}_${randomBytes(4).toString('hex').slice(0, 7)}`;
  const password = randomBytes(18).toString('base64url');
  const provider = getHostingDatabaseProvider();
  await upstream(() => provider.createDatabase({ dbName, dbUser, password, maxConnections: limits.connectionsPerDatabase }));
  try {
    const row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(hostingDatabases)
        .values({ id, siteId: site.id, name, dbName, dbUser, sealedPassword: seal(password, id) })
        .returning();
      await emit(tx, site.projectId, 'hosting_database.created', { tenantId: site.id, databaseId: id, name, dbName, by: actorUserId });
      return inserted!;
    });
    return { ...toView(site, row), dbPassword: password };
  } catch (err) {
    await provider
      .dropDatabase(dbName, dbUser)
      .catch((dropErr: unknown) => getLogger().error({ err: dropErr, dbName }, 'database of a failed creation not dropped'));
    if (isUniqueViolation(err, 'hosting_databases_live_name_key'))
      throw new AppError('CONFLICT', `Site "${site.siteName}" already has a database named "${name}"`);
    throw err;
  }
}

/** Drops the database and its user at the server (502 and kept when that fails), then the row. */
export async function deleteDatabase(site: SiteRow, databaseId: string, actorUserId: string): Promise<void> {
  const row = await liveDatabase(site, databaseId);
  await upstream(() => getHostingDatabaseProvider().dropDatabase(row.dbName, row.dbUser));
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(hostingDatabases)
      .set({ deletedAt: new Date() })
      .where(and(eq(hostingDatabases.id, row.id), isNull(hostingDatabases.deletedAt)))
      .returning({ id: hostingDatabases.id });
    if (deleted) await emit(tx, site.projectId, 'hosting_database.deleted', { tenantId: site.id, databaseId: row.id, name: row.name, by: actorUserId });
  });
}

/** Every live database of a site, for the site's deletion and tier changes. */
export async function liveDatabasesOf(siteId: string): Promise<DatabaseRow[]> {
  const db = await getDb();
  return db
    .select()
    .from(hostingDatabases)
    .where(and(eq(hostingDatabases.siteId, siteId), isNull(hostingDatabases.deletedAt)));
}

async function liveDatabase(site: SiteRow, databaseId: string): Promise<DatabaseRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(hostingDatabases)
    .where(and(eq(hostingDatabases.id, databaseId), eq(hostingDatabases.siteId, site.id), isNull(hostingDatabases.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Database not found');
  return row;
}

export function upstream<T>(call: () => Promise<T>): Promise<T> {
  return callUpstream('The database server could not complete the request; try again', call);
}

function toView(site: SiteRow, row: DatabaseRow): HostingDatabaseView {
  const provider = getHostingDatabaseProvider();
  return {
    id: row.id,
    name: row.name,
    dbName: row.dbName,
    dbUser: row.dbUser,
    host: provider.host(),
    port: provider.port(),
    maxConnections: TIER_LIMITS[site.tier].connectionsPerDatabase,
    createdAt: row.createdAt.toISOString(),
  };
}

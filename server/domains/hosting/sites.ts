import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { hostingDatabases, hostingDomains, hostingSites, type HostingTier } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Preview, TierChangePreview } from '../../billing/preview';
import { endBillingItem, previewPurchase, previewTierChangeOf, purchaseCreation, purchaseTierChange } from '../../billing/purchases';
import { getConfig } from '../../platform/config';
import { open, seal } from '../../platform/encryption/envelope';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getHostingDatabaseProvider } from '../../providers/hosting';
import { getWebServingProvider } from '../../providers/hosting/web';
import { createDatabase, liveDatabasesOf, upstream as databaseUpstream, type DatabaseWithPassword } from './databases';
import { siteHome, siteHostname } from './paths';
import type { CreateSiteInput, Site } from './schema';
import { applyServing, DEFAULT_DOCUMENT_ROOT, webUpstream } from './serving';
import { sftpEndpoint } from './sftpService';
import { EXTRA_STORAGE_BLOCK_GB, EXTRA_STORAGE_BLOCK_MONTHLY, siteMonthly, TIER_LIMITS } from './tiers';

export const SITE_RESOURCE_TYPE = 'hosting_site';
export type SiteRow = typeof hostingSites.$inferSelect;

/** What a new site shows until its own files arrive. */
function welcomePage(phpVersion: string): string {
  return [
    '<?php',
    `// Replace this file with your site: PHP ${phpVersion} serves everything under public_html.`,
    "echo '<!doctype html><title>It works</title><h1>It works</h1><p>Upload your site over SFTP or with the file manager.</p>';",
    '',
  ].join('\n');
}

export async function listSites(projectId: string): Promise<Site[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(hostingSites)
    .where(and(eq(hostingSites.projectId, projectId), isNull(hostingSites.deletedAt)))
    .orderBy(desc(hostingSites.createdAt), desc(hostingSites.id));
  return Promise.all(rows.map((row) => toView(row, false)));
}

export async function getSite(projectId: string, tenantId: string, credentials: boolean): Promise<Site> {
  return toView(await liveSite(projectId, tenantId), credentials);
}

export function siteAccess(site: SiteRow) {
  const sftp = sftpEndpoint();
  return { username: site.siteName, host: sftp.host, sftp: { port: sftp.port }, ssh: { port: sftp.port, enabled: false } };
}

export function prices() {
  const currency = getConfig().BILLING_CURRENCY.toUpperCase();
  return (Object.keys(TIER_LIMITS) as HostingTier[]).map((tier) => ({ tier, monthly: TIER_LIMITS[tier].monthly, currency }));
}

export function features() {
  return {
    databases: true,
    extraStorage: { blockGb: EXTRA_STORAGE_BLOCK_GB, monthly: EXTRA_STORAGE_BLOCK_MONTHLY, currency: getConfig().BILLING_CURRENCY.toUpperCase() },
  };
}

export function previewSite(projectId: string, tier: HostingTier, extraStorageGb: number): Promise<Preview> {
  return previewPurchase(projectId, siteMonthly(tier, extraStorageGb));
}

/**
 * Buys a site: the name is checked first (409 when any live site holds it), the prorated price of
 * the tier and extra storage is charged, the home folder is made and the web server told (a
 * failure refunds the charge and answers 502), and the row is written with the charge. A database
 * asked for is made afterwards: when that fails the site is kept and `databaseError` says why.
 */
export async function createSite(
  projectId: string,
  actorUserId: string,
  input: CreateSiteInput,
): Promise<{ tenantId: string; status: 'ACTIVE'; database?: DatabaseWithPassword; databaseError?: string }> {
  const db = await getDb();
  await assertNameFree(db, input.siteName);
  const tenantId = newId('hst');
  const password = randomBytes(18).toString('base64url');
  const limits = TIER_LIMITS[input.tier];
  const draft: SiteRow = {
    id: tenantId,
    projectId,
    siteName: input.siteName,
    tier: input.tier,
    phpVersion: input.phpVersion,
    extraStorageGb: input.extraStorageGb,
    diskGb: limits.diskGb + input.extraStorageGb,
    sealedSftpPassword: seal(password, tenantId),
    billingItemId: '',
    billingSuspendedAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    deletedAt: null,
  };
  try {
    await purchaseCreation({
      projectId,
      actorUserId,
      resourceType: SITE_RESOURCE_TYPE,
      resourceKey: input.siteName,
      category: 'other',
      description: `Hosting site ${input.siteName} (${input.tier}${input.extraStorageGb ? ` + ${input.extraStorageGb} GB` : ''})`,
      monthly: siteMonthly(input.tier, input.extraStorageGb),
      assertAvailable: (tx) => assertNameFree(tx, input.siteName),
      provision: async () => {
        await makeHome(draft);
        await applyServing(draft);
      },
      unprovision: () => discardSite(draft.siteName),
      fulfil: async (tx, { billingItemId }) => {
        await tx.insert(hostingSites).values({ ...draft, billingItemId });
        await emit(tx, projectId, 'hosting_site.created', {
          tenantId,
          siteName: input.siteName,
          tier: input.tier,
          phpVersion: input.phpVersion,
          by: actorUserId,
        });
        return { resourceId: tenantId, result: undefined };
      },
    });
  } catch (err) {
    if (isUniqueViolation(err, 'hosting_sites_live_name_key')) throw nameTaken(input.siteName);
    throw err;
  }
  if (!input.database) return { tenantId, status: 'ACTIVE' };
  try {
    const database = await createDatabase(await liveSite(projectId, tenantId), input.database.name, actorUserId);
    return { tenantId, status: 'ACTIVE', database };
  } catch (err) {
    getLogger().warn({ err, tenantId }, 'the database asked for with a site was not made');
    return { tenantId, status: 'ACTIVE', databaseError: err instanceof AppError ? err.message : 'The database server could not make the database' };
  }
}

export async function previewTierChange(projectId: string, tenantId: string, tier: HostingTier): Promise<TierChangePreview> {
  const site = await liveSite(projectId, tenantId);
  return previewTierChangeOf(projectId, site.billingItemId, siteMonthly(tier, site.extraStorageGb));
}

/**
 * Moves a site to another tier: PHP workers, memory, domain, database and connection limits apply
 * at once; the disk stays as bought. A downgrade needs the site's domains and databases to fit the
 * target tier (409 otherwise). An upgrade is charged the prorated difference (402 when declined).
 */
export async function changeTier(projectId: string, tenantId: string, actorUserId: string, tier: HostingTier): Promise<Site> {
  const site = await liveSite(projectId, tenantId);
  if (site.tier === tier) throw new AppError('CONFLICT', `Site "${site.siteName}" is already on ${tier}`);
  const target = TIER_LIMITS[tier];
  const db = await getDb();
  const [domains, databases] = await Promise.all([
    db
      .select({ id: hostingDomains.id })
      .from(hostingDomains)
      .where(and(eq(hostingDomains.siteId, site.id), isNull(hostingDomains.deletedAt))),
    liveDatabasesOf(site.id),
  ]);
  if (domains.length > target.domains || databases.length > target.databases) {
    throw new AppError(
      'CONFLICT',
      `Site "${site.siteName}" has ${domains.length} domains and ${databases.length} databases; ${tier} allows ${target.domains} and ${target.databases}. Remove some first.`,
    );
  }
  const { result } = await purchaseTierChange({
    projectId,
    actorUserId,
    billingItemId: site.billingItemId,
    monthly: siteMonthly(tier, site.extraStorageGb),
    description: `Hosting site ${site.siteName} (${tier}${site.extraStorageGb ? ` + ${site.extraStorageGb} GB` : ''})`,
    apply: async (tx) => {
      const [saved] = await tx.update(hostingSites).set({ tier, updatedAt: new Date() }).where(eq(hostingSites.id, site.id)).returning();
      await emit(tx, projectId, 'hosting_site.tier_changed', { tenantId, siteName: site.siteName, from: site.tier, to: tier, by: actorUserId });
      return saved!;
    },
  });
  await applyLimits(result);
  return toView(result, false);
}

/**
 * Deletes a site for good: its databases are dropped and it stops being served (502 and kept when
 * a backend fails), then the rows go with its billing, and its files are removed.
 */
export async function deleteSite(projectId: string, tenantId: string, actorUserId: string): Promise<void> {
  const site = await liveSite(projectId, tenantId);
  const provider = getHostingDatabaseProvider();
  for (const database of await liveDatabasesOf(site.id)) await databaseUpstream(() => provider.dropDatabase(database.dbName, database.dbUser));
  await webUpstream(() => getWebServingProvider().removeSite(site.siteName));
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(hostingSites)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(hostingSites.id, site.id), isNull(hostingSites.deletedAt)))
      .returning({ id: hostingSites.id });
    if (!deleted) return;
    await tx
      .update(hostingDatabases)
      .set({ deletedAt: now })
      .where(and(eq(hostingDatabases.siteId, site.id), isNull(hostingDatabases.deletedAt)));
    await tx
      .update(hostingDomains)
      .set({ deletedAt: now })
      .where(and(eq(hostingDomains.siteId, site.id), isNull(hostingDomains.deletedAt)));
    await endBillingItem(tx, projectId, SITE_RESOURCE_TYPE, site.id, now);
    await emit(tx, projectId, 'hosting_site.deleted', { tenantId, siteName: site.siteName, by: actorUserId });
  });
  await rm(siteHome(site.siteName), { recursive: true, force: true });
}

export async function liveSite(projectId: string, tenantId: string): Promise<SiteRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(hostingSites)
    .where(and(eq(hostingSites.id, tenantId), eq(hostingSites.projectId, projectId), isNull(hostingSites.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Hosting site not found');
  return row;
}

/** The disk a site may fill, in bytes (decimal GB, as sold). */
export function quotaBytes(site: Pick<SiteRow, 'diskGb'>): number {
  return site.diskGb * 1_000_000_000;
}

/** The password SFTP checks for a site (sealed at rest, bound to the site's id). */
export function sftpPasswordOf(site: SiteRow): string {
  return open(site.sealedSftpPassword, site.id);
}

/** Tier limits reach the PHP pool and every database user's connection limit. */
async function applyLimits(site: SiteRow): Promise<void> {
  await applyServing(site);
  const provider = getHostingDatabaseProvider();
  for (const database of await liveDatabasesOf(site.id)) {
    await databaseUpstream(() => provider.setMaxConnections(database.dbUser, TIER_LIMITS[site.tier].connectionsPerDatabase));
  }
}

async function makeHome(site: SiteRow): Promise<void> {
  const documentRoot = path.join(siteHome(site.siteName), DEFAULT_DOCUMENT_ROOT);
  await mkdir(documentRoot, { recursive: true, mode: 0o755 });
  await writeFile(path.join(documentRoot, 'index.php'), welcomePage(site.phpVersion), { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

async function discardSite(siteName: string): Promise<void> {
  try {
    await getWebServingProvider().removeSite(siteName);
    await rm(siteHome(siteName), { recursive: true, force: true });
  } catch (err) {
    getLogger().error({ err, siteName }, 'site of a failed purchase could not be removed');
  }
}

async function assertNameFree(db: DbOrTx, siteName: string): Promise<void> {
  const [clash] = await db
    .select({ id: hostingSites.id })
    .from(hostingSites)
    .where(and(eq(hostingSites.siteName, siteName), isNull(hostingSites.deletedAt)));
  if (clash) throw nameTaken(siteName);
}

function nameTaken(siteName: string): AppError {
  return new AppError('CONFLICT', `The site name "${siteName}" is taken; site names are shared by every project`);
}

async function toView(row: SiteRow, credentials: boolean): Promise<Site> {
  const limits = TIER_LIMITS[row.tier];
  const web = getWebServingProvider();
  const ready = row.billingSuspendedAt ? false : await web.isServing(row.siteName).catch(() => false);
  const port = web.httpPort();
  const sftp = sftpEndpoint();
  return {
    tenantId: row.id,
    siteName: row.siteName,
    status: row.billingSuspendedAt ? 'SUSPENDED' : 'ACTIVE',
    tier: row.tier,
    phpVersion: row.phpVersion,
    extraStorageGb: row.extraStorageGb,
    ready,
    url: `http://${siteHostname(row.siteName)}${port === 80 ? '' : `:${port}`}`,
    limits: {
      diskGb: row.diskGb,
      phpWorkers: limits.phpWorkers,
      memoryMb: limits.memoryMb,
      domains: limits.domains,
      databases: limits.databases,
      connectionsPerDatabase: limits.connectionsPerDatabase,
    },
    sftp: { host: sftp.host, port: sftp.port, username: row.siteName },
    ...(credentials ? { sftpPassword: sftpPasswordOf(row) } : {}),
    createdAt: row.createdAt.toISOString(),
  };
}

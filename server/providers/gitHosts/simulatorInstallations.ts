import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { gitSimInstallations } from '../../../db/schema';
import { AppError, notFound } from '../../platform/errors';
import { findSeedNamespace, type SeedNamespace } from './seed';
import type { GitInstallation } from './types';

/**
 * Installations of the platform's app on simulated git host 1 accounts. Like the real host, an
 * account holds at most one live installation; an uninstalled one keeps its row (and its id is
 * never given out again), so a later installation on the same account gets a new id.
 */

type InstallationRow = typeof gitSimInstallations.$inferSelect;

/** Host 1 numbers installations; the first one made on a fresh database gets this id. */
const FIRST_INSTALLATION_ID = 51_000_001;

export interface InstalledApp {
  installation: GitInstallation;
  /** False when the account already had the app: the host shows its configuration instead. */
  created: boolean;
}

/** Installs the app on a seeded host 1 account, or answers the live installation it already has. */
export async function installSimulatedApp(account: string): Promise<InstalledApp> {
  const namespace = findSeedNamespace('git-host-1', account);
  if (!namespace) throw notFound(`Account ${account} on git host 1`);
  const db = await getDb();
  return db.transaction(async (tx) => {
    // Installs run one at a time: two racing on one account would both find none and both create
    // one, and two on any accounts would both count the same rows and take the same next id.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('git-sim-installations', 0))`);
    const [live] = await tx
      .select()
      .from(gitSimInstallations)
      .where(and(eq(gitSimInstallations.account, namespace.path), isNull(gitSimInstallations.uninstalledAt)));
    if (live) return { installation: toInstallation(live, namespace), created: false };
    const [{ made } = { made: 0 }] = await tx.select({ made: count() }).from(gitSimInstallations);
    const [row] = await tx
      .insert(gitSimInstallations)
      .values({ id: String(FIRST_INSTALLATION_ID + made), account: namespace.path, createdAt: new Date() })
      .returning();
    return { installation: toInstallation(row!, namespace), created: true };
  });
}

/** The installation unless it was uninstalled or never existed. */
export async function findLiveInstallation(installationId: string): Promise<GitInstallation | null> {
  const row = await liveRow(installationId);
  return row ? toInstallation(row, namespaceOf(row)) : null;
}

/** The account a live, unsuspended installation acts for; GIT_CREDENTIAL_INVALID otherwise, as the host refuses its token. */
export async function installationAccount(installationId: string): Promise<SeedNamespace> {
  const row = await liveRow(installationId);
  if (!row) throw new AppError('GIT_CREDENTIAL_INVALID', `Git host 1 refused installation ${installationId}: the app is not installed there any more`);
  if (row.suspended) throw new AppError('GIT_CREDENTIAL_INVALID', `Git host 1 refused installation ${installationId}: it is suspended`);
  return namespaceOf(row);
}

/** Marks the installation uninstalled; answers it when it was live, null when it already was gone. */
export async function markUninstalled(installationId: string): Promise<GitInstallation | null> {
  const db = await getDb();
  const [row] = await db
    .update(gitSimInstallations)
    .set({ uninstalledAt: new Date() })
    .where(and(eq(gitSimInstallations.id, installationId), isNull(gitSimInstallations.uninstalledAt)))
    .returning();
  return row ? toInstallation(row, namespaceOf(row)) : null;
}

/** Suspends or unsuspends a live installation (an account owner's action on the host); NOT_FOUND when there is none. */
export async function setSimulatedInstallationSuspended(installationId: string, suspended: boolean): Promise<GitInstallation> {
  const db = await getDb();
  const [row] = await db
    .update(gitSimInstallations)
    .set({ suspended })
    .where(and(eq(gitSimInstallations.id, installationId), isNull(gitSimInstallations.uninstalledAt)))
    .returning();
  if (!row) throw notFound(`Installation ${installationId}`);
  return toInstallation(row, namespaceOf(row));
}

/** The live installations on any of these accounts, oldest first. */
export async function liveInstallationsOn(accounts: readonly SeedNamespace[]): Promise<GitInstallation[]> {
  const db = await getDb();
  const rows = await db.select().from(gitSimInstallations).where(isNull(gitSimInstallations.uninstalledAt)).orderBy(gitSimInstallations.createdAt);
  return rows.flatMap((row) => {
    const namespace = accounts.find((account) => account.path === row.account);
    return namespace ? [toInstallation(row, namespace)] : [];
  });
}

async function liveRow(installationId: string): Promise<InstallationRow | null> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(gitSimInstallations)
    .where(and(eq(gitSimInstallations.id, installationId), isNull(gitSimInstallations.uninstalledAt)));
  return row ?? null;
}

function namespaceOf(row: InstallationRow): SeedNamespace {
  const namespace = findSeedNamespace('git-host-1', row.account);
  if (!namespace) throw new AppError('UPSTREAM_ERROR', `Git host 1 holds installation ${row.id} on an account it does not know`);
  return namespace;
}

function toInstallation(row: InstallationRow, namespace: SeedNamespace): GitInstallation {
  return {
    installationId: row.id,
    accountLogin: namespace.path,
    accountType: namespace.type === 'User' ? 'User' : 'Organization',
    createdAt: row.createdAt.toISOString(),
    suspended: row.suspended,
  };
}

import { and, eq, exists, inArray, notExists, or, sql } from 'drizzle-orm';
import { getDb } from '../../../../db';
import { gitHost1Installations, gitHost1Links } from '../../../../db/schema';
import { getConfig } from '../../../platform/config';
import { AppError } from '../../../platform/errors';
import { emit } from '../../../platform/events';
import { getLogger } from '../../../platform/logger';
import { consumeOAuthState, issueOAuthState, lastEndedRoundTripProject, safeReturnPath, type ConsumedOAuthState } from '../../../platform/oauthState';
import { getGitHost1, type GitInstallation, type GitPackage, type GitPackageTag } from '../../../providers/gitHosts';
import { installationForOwner, linkedInstallations } from './access';
import { ended, withMarker, type RoundTripEnd } from '../returnPaths';

/**
 * Git host 1: the platform's app installed on accounts, each installation linked to the projects
 * that use it. Linking needs proof that the user reaches the installation: an installation the
 * user has just created (the install round trip started after the installation appeared is
 * refused that shortcut), or the host's OAuth consent listing it among the user's installations.
 * The `installation_id` the host appends to the setup URL is never enough alone: anyone can edit it.
 */

export const HOST1_PURPOSE = 'git-host-1';
/** The OAuth round trip that proves a user reaches an installation the setup could not vouch for. */
export const HOST1_PROOF_PURPOSE = 'git-host-1-proof';
export const HOST1_SETUP_PATH = '/integrations/git-host-1/setup';
export const HOST1_CALLBACK_PATH = '/integrations/git-host-1/callback';
/** SPEC's default return path of the connect round trip. */
export const HOST1_DEFAULT_RETURN = '/en/controlpanel';

type InstallationRow = typeof gitHost1Installations.$inferSelect;

export interface Host1Account {
  installationId: string;
  accountLogin: string;
  accountType: 'User' | 'Organization';
  linkedAt: string;
}

export interface Host1Status {
  connected: boolean;
  accounts: Host1Account[];
}

/** The host's installation page for a fresh state bound to the project and user. */
export async function startHost1Connect(projectId: string, userId: string, redirect: string | undefined): Promise<string> {
  const returnTo = safeReturnPath(redirect, HOST1_DEFAULT_RETURN);
  const state = await issueOAuthState({ purpose: HOST1_PURPOSE, projectId, userId, returnTo });
  return getGitHost1().installUrl(state);
}

/**
 * The host's post-install redirect. Answers where to send the browser: back to the panel with
 * `git-host-1=connected` (or `requested` when an organisation owner must approve, `error` when the
 * installation cannot be found), or on to the host's consent page when access must be proved.
 */
export async function completeHost1Setup(query: URLSearchParams, now = new Date()): Promise<RoundTripEnd> {
  const grant = await consumeOAuthState(query.get('state') ?? '', HOST1_PURPOSE, now);
  if (query.get('setup_action') === 'request') return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'requested'));
  const installationId = query.get('installation_id') ?? '';
  if (!/^[0-9A-Za-z_-]{1,64}$/.test(installationId)) return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'error'));
  const installation = await getGitHost1().getInstallation(installationId);
  if (!installation || installation.suspended) return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'error'));
  if (await vouchedBySetup(installation, grant)) {
    await linkInstallations(grant.projectId, grant.userId, [installation]);
    return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'connected'), { projectId: grant.projectId, userId: grant.userId, action: 'gitHost1.connect' });
  }
  const proofState = await issueOAuthState({
    purpose: HOST1_PROOF_PURPOSE,
    projectId: grant.projectId,
    userId: grant.userId,
    returnTo: grant.returnTo,
    payload: { installationId },
  });
  return ended(getGitHost1().authorizeUrl(proofState, host1CallbackUrl()));
}

/**
 * The host's OAuth return (the legacy callback, and the proof round trip): the user's token lists
 * the installations they reach. The one the round trip is about is linked when listed; without
 * one, every installation the user reaches is.
 */
export async function completeHost1Callback(query: URLSearchParams): Promise<RoundTripEnd> {
  const grant = await consumeOAuthState(query.get('state') ?? '', [HOST1_PURPOSE, HOST1_PROOF_PURPOSE]);
  const code = query.get('code');
  if (query.get('error') || !code) return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'denied'));
  const provider = getGitHost1();
  let reachable: GitInstallation[];
  try {
    const { accessToken } = await provider.exchangeUserCode(code, host1CallbackUrl());
    reachable = (await provider.listUserInstallations(accessToken)).filter((i) => !i.suspended);
  } catch (err) {
    if (err instanceof AppError && (err.code === 'GIT_CREDENTIAL_INVALID' || err.code === 'UPSTREAM_ERROR'))
      return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'error'));
    throw err;
  }
  const wanted = grant.payload?.installationId ?? query.get('installation_id');
  const toLink = wanted ? reachable.filter((i) => i.installationId === wanted) : reachable;
  if (toLink.length === 0) return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'error'));
  await linkInstallations(grant.projectId, grant.userId, toLink);
  return ended(withMarker(grant.returnTo, HOST1_PURPOSE, 'connected'), { projectId: grant.projectId, userId: grant.userId, action: 'gitHost1.connect' });
}

/**
 * The project a round trip that ended on the default return came from: SPEC's default,
 * `/en/controlpanel`, names no project, so the panel's page there forwards to this project.
 */
export function host1DefaultReturnProject(userId: string, now = new Date()): Promise<string | null> {
  return lastEndedRoundTripProject(userId, [HOST1_PURPOSE, HOST1_PROOF_PURPOSE], HOST1_DEFAULT_RETURN, now);
}

export async function host1Status(projectId: string): Promise<Host1Status> {
  const db = await getDb();
  const rows = await db
    .select({ installation: gitHost1Installations, linkedAt: gitHost1Links.linkedAt })
    .from(gitHost1Links)
    .innerJoin(gitHost1Installations, eq(gitHost1Installations.installationId, gitHost1Links.installationId))
    .where(eq(gitHost1Links.projectId, projectId))
    .orderBy(gitHost1Installations.accountLogin);
  const accounts = rows.map(({ installation, linkedAt }) => ({
    installationId: installation.installationId,
    accountLogin: installation.accountLogin,
    accountType: installation.accountType,
    linkedAt: linkedAt.toISOString(),
  }));
  return { connected: accounts.length > 0, accounts };
}

/**
 * Installations the user connected (installed, proved through the host's consent, or linked from
 * one of those) in any project, that this project does not link yet.
 */
export async function linkableInstallations(projectId: string, userId: string): Promise<{ installationId: string; accountLogin: string }[]> {
  const db = await getDb();
  const linkedByUser = db
    .select({ one: sql`1` })
    .from(gitHost1Links)
    .where(and(eq(gitHost1Links.installationId, gitHost1Installations.installationId), eq(gitHost1Links.linkedBy, userId)));
  const linkedHere = db
    .select({ one: sql`1` })
    .from(gitHost1Links)
    .where(and(eq(gitHost1Links.installationId, gitHost1Installations.installationId), eq(gitHost1Links.projectId, projectId)));
  return db
    .select({ installationId: gitHost1Installations.installationId, accountLogin: gitHost1Installations.accountLogin })
    .from(gitHost1Installations)
    .where(and(or(eq(gitHost1Installations.installedBy, userId), exists(linkedByUser)), notExists(linkedHere)))
    .orderBy(gitHost1Installations.accountLogin);
}

/**
 * Links one of the user's linkable installations after asking the host about it: one uninstalled
 * meanwhile is forgotten everywhere (its links go with it) and refused.
 */
export async function linkInstallation(projectId: string, userId: string, installationId: string): Promise<Host1Status> {
  const linkable = await linkableInstallations(projectId, userId);
  if (!linkable.some((i) => i.installationId === installationId)) {
    throw new AppError(
      'NOT_FOUND',
      'No installation with this id is linkable: install the app from this project, or link one you connected in another project',
    );
  }
  const installation = await getGitHost1().getInstallation(installationId);
  if (!installation || installation.suspended) {
    if (!installation) await forgetInstallation(installationId, 'uninstalled');
    throw new AppError(
      'NOT_FOUND',
      installation
        ? 'This installation is suspended on the git host; unsuspend it there first'
        : 'This installation was removed from its account on the git host; install the app again',
    );
  }
  await linkInstallations(projectId, userId, [installation]);
  return host1Status(projectId);
}

/**
 * Unlinks every installation from the project, then uninstalls from the host those no project
 * references any more (the platform holds no other use for them).
 */
export async function disconnectHost1(projectId: string, userId: string): Promise<Host1Status> {
  const db = await getDb();
  const unlinked = await db.transaction(async (tx) => {
    const removed = await tx.delete(gitHost1Links).where(eq(gitHost1Links.projectId, projectId)).returning({ installationId: gitHost1Links.installationId });
    if (removed.length > 0) await emit(tx, projectId, 'git_host.disconnected', { host: HOST1_PURPOSE, by: userId });
    return removed.map((r) => r.installationId);
  });
  if (unlinked.length === 0) return host1Status(projectId);
  const orphans = await db
    .select({ installationId: gitHost1Installations.installationId })
    .from(gitHost1Installations)
    .where(
      and(
        inArray(gitHost1Installations.installationId, unlinked),
        notExists(
          db
            .select({ one: sql`1` })
            .from(gitHost1Links)
            .where(eq(gitHost1Links.installationId, gitHost1Installations.installationId)),
        ),
      ),
    );
  for (const { installationId } of orphans) {
    await getGitHost1().uninstall(installationId);
    await db.delete(gitHost1Installations).where(eq(gitHost1Installations.installationId, installationId));
  }
  return host1Status(projectId);
}

/**
 * The host removed the app from an account (its uninstallation event): the installation is
 * detached from every project that linked it.
 */
export async function forgetInstallation(installationId: string, reason: 'uninstalled' | 'suspended'): Promise<string[]> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const links = await tx.delete(gitHost1Links).where(eq(gitHost1Links.installationId, installationId)).returning({ projectId: gitHost1Links.projectId });
    await tx.delete(gitHost1Installations).where(eq(gitHost1Installations.installationId, installationId));
    for (const { projectId } of links) await emit(tx, projectId, 'git_host.installation_removed', { host: HOST1_PURPOSE, installationId, reason });
    return links.map((l) => l.projectId);
  });
}

/** The projects linking an installation: those a push to its repositories may deploy in. */
export async function projectsLinking(installationId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.select({ projectId: gitHost1Links.projectId }).from(gitHost1Links).where(eq(gitHost1Links.installationId, installationId));
  return rows.map((r) => r.projectId);
}

export async function listHost1Packages(projectId: string): Promise<GitPackage[]> {
  const installations = await requireLinked(projectId);
  const lists = await Promise.all(installations.map((i) => getGitHost1().listPackages({ installationId: i.installationId })));
  return lists.flat().sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.name.localeCompare(b.name));
}

export async function listHost1PackageTags(projectId: string, owner: string, packageName: string): Promise<GitPackageTag[]> {
  const installationId = await installationForOwner(projectId, owner);
  const tags = await getGitHost1().listPackageTags({ installationId }, owner, packageName);
  return [...tags].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.tag.localeCompare(b.tag));
}

async function requireLinked(projectId: string): Promise<InstallationRow[]> {
  const installations = await linkedInstallations(projectId);
  if (installations.length === 0)
    throw new AppError('GIT_HOST_NOT_CONNECTED', 'This project is not connected to git-host-1; connect it on the Integrations page first');
  return installations;
}

/**
 * The setup vouches for an installation only when it is new to the platform and appeared after the
 * round trip began: the user who started it is then the one who installed it. Anything older must
 * be proved through the host's consent.
 */
async function vouchedBySetup(installation: GitInstallation, grant: ConsumedOAuthState): Promise<boolean> {
  const db = await getDb();
  const [known] = await db.select().from(gitHost1Installations).where(eq(gitHost1Installations.installationId, installation.installationId));
  if (known) return known.installedBy === grant.userId;
  return new Date(installation.createdAt).getTime() >= grant.issuedAt.getTime() - CLOCK_SKEW_MS;
}

/** Clocks of the host and of the platform disagree by a few seconds at most. */
const CLOCK_SKEW_MS = 5_000;

async function linkInstallations(projectId: string, userId: string, installations: readonly GitInstallation[]): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    for (const installation of installations) {
      await tx
        .insert(gitHost1Installations)
        .values({
          installationId: installation.installationId,
          accountLogin: installation.accountLogin,
          accountType: installation.accountType,
          installedBy: userId,
        })
        .onConflictDoUpdate({
          target: gitHost1Installations.installationId,
          set: {
            accountLogin: installation.accountLogin,
            accountType: installation.accountType,
            installedBy: sql`coalesce(${gitHost1Installations.installedBy}, ${userId})`,
          },
        });
      const linked = await tx
        .insert(gitHost1Links)
        .values({ projectId, installationId: installation.installationId, linkedBy: userId })
        .onConflictDoNothing()
        .returning();
      if (linked.length > 0) {
        await emit(tx, projectId, 'git_host.connected', { host: HOST1_PURPOSE, account: installation.accountLogin, by: userId });
      }
    }
  });
  getLogger().info({ projectId, installations: installations.map((i) => i.installationId) }, 'git host 1 installations linked');
}

export function host1CallbackUrl(): string {
  return `${getConfig().APP_URL}/v1${HOST1_CALLBACK_PATH}`;
}

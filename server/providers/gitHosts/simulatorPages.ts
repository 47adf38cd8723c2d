import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../db';
import { gitSimCopies, gitSimHooks } from '../../../db/schema';
import { GIT_HOSTS, type GitHost, type OAuthGitHost } from '../../../db/schema/gitIntegrations';
import { getConfig } from '../../platform/config';
import { AppError, notFound } from '../../platform/errors';
import { simulatePush, simulateUninstall } from './simulatedDeliveries';
import { REQUESTABLE_SCOPES, SIMULATED_CLIENT_ID, defaultScopes } from './simulator';
import { SEED_NAMESPACES, SIMULATED_USER, findSeedRepository, namespacesOfUser, seedRepositoriesOf, type SeedNamespace } from './seed';
import { installSimulatedApp, liveInstallationsOn } from './simulatorInstallations';
import { branchPage, describeRepository, listDirectory, sourceView } from './simulatorRepositories';
import { issueCode } from './simulatorTokens';
import type { GitBranchPage, GitContentEntry, GitInstallation, GitRepository } from './types';

/**
 * What the simulated hosts' own pages do (`/dev/git-hosts/{host}/…`, where `installUrl` and
 * `authorizeUrl` send the browser): host 1's installation page, the OAuth consent pages of the
 * three hosts, and a push or an uninstall made on the host's side. The pages and route handlers
 * under app/dev/git-hosts only render and call these. They exist only while the host runs
 * simulated; every parameter is checked, and the consent pages return only to the platform's own
 * callback, as a real host returns only to a registered one.
 */

const HOST_PROVIDER_SETTING = {
  'git-host-1': 'GIT_HOST_1_PROVIDER',
  'git-host-2': 'GIT_HOST_2_PROVIDER',
  'git-host-3': 'GIT_HOST_3_PROVIDER',
} as const satisfies Record<GitHost, string>;

/** The host a page's `[host]` segment names, when that host runs simulated; null answers 404. */
export function simulatedHostOf(segment: string): GitHost | null {
  const host = GIT_HOSTS.find((candidate) => candidate === segment);
  return host && getConfig()[HOST_PROVIDER_SETTING[host]] === 'simulator' ? host : null;
}

export function hostLabel(host: GitHost): string {
  return `Simulated git host ${host.slice(-1)}`;
}

const stateSchema = z.string().regex(/^[\x21-\x7e]{1,1024}$/, 'state must be 1 to 1024 visible ASCII characters');

/** The platform's callback, the only redirect URI the simulated host has registered for it. */
export function registeredCallbackUrl(host: GitHost): string {
  return `${getConfig().APP_URL}/v1/integrations/${host}/callback`;
}

/** Where host 1 returns after an installation: the platform's setup URL. */
export function setupUrl(): string {
  return `${getConfig().APP_URL}/v1/integrations/git-host-1/setup`;
}

type Params = Record<string, string | string[] | undefined>;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? undefined : value);

export interface InstallableAccount {
  account: SeedNamespace;
  /** The live installation it already has: choosing the account again configures that one. */
  installation: GitInstallation | null;
}

export type InstallPage = { ok: true; state: string; accounts: InstallableAccount[] } | { ok: false; message: string };

/** The accounts the signed-in user may install the app on (their own and their organisations'). */
export async function installableAccounts(): Promise<InstallableAccount[]> {
  const accounts = namespacesOfUser('git-host-1', SIMULATED_USER.login);
  const installations = await liveInstallationsOn(accounts);
  return accounts.map((account) => ({ account, installation: installations.find((i) => i.accountLogin === account.path) ?? null }));
}

export async function installPage(params: Params): Promise<InstallPage> {
  const state = stateSchema.safeParse(single(params.state));
  if (!state.success) return { ok: false, message: 'This installation link is incomplete: it carries no valid state. Start again from the panel.' };
  return { ok: true, state: state.data, accounts: await installableAccounts() };
}

const installFormSchema = z.object({ account: z.string().min(1).max(100), state: stateSchema });

/**
 * Installs the app on the chosen account and sends the browser to the platform's setup URL, with
 * `setup_action=install` for a new installation, or `update` for one the account already had.
 */
export async function submitInstallForm(form: Params): Promise<string> {
  const input = installFormSchema.safeParse({ account: single(form.account), state: single(form.state) });
  if (!input.success) throw new AppError('VALIDATION_ERROR', 'Choose an account; the form must carry the installation state');
  const allowed = (await installableAccounts()).find(({ account }) => account.path === input.data.account);
  if (!allowed) throw new AppError('FORBIDDEN', `${SIMULATED_USER.login} may not install the app on ${input.data.account}`);
  const { installation, created } = await installSimulatedApp(allowed.account.path);
  const query = new URLSearchParams({ installation_id: installation.installationId, setup_action: created ? 'install' : 'update', state: input.data.state });
  return `${setupUrl()}?${query.toString()}`;
}

export interface AuthorizationRequest {
  host: GitHost;
  clientId: string;
  redirectUri: string;
  state: string;
  scopes: string[];
}

/** The request is sound; or it names no place to return to (an error page); or it returns with an OAuth error. */
export type AuthorizationCheck =
  { kind: 'ok'; request: AuthorizationRequest } | { kind: 'error-page'; message: string } | { kind: 'redirect'; location: string };

/** Checks an authorize URL's parameters (the page's query, or the consent form that repeats them). */
export function checkAuthorization(host: GitHost, params: Params): AuthorizationCheck {
  const clientId = single(params.client_id);
  if (clientId !== SIMULATED_CLIENT_ID) return { kind: 'error-page', message: `${hostLabel(host)} knows no application with this client_id.` };
  const redirectUri = single(params.redirect_uri) ?? registeredCallbackUrl(host);
  if (!sameEndpoint(redirectUri, registeredCallbackUrl(host))) {
    return { kind: 'error-page', message: `The redirect_uri is not the callback registered for this application (${registeredCallbackUrl(host)}).` };
  }
  const state = stateSchema.safeParse(single(params.state));
  if (!state.success) return { kind: 'error-page', message: 'The authorization request carries no valid state. Start again from the panel.' };
  const fail = (error: string, description: string) => ({
    kind: 'redirect' as const,
    location: withQuery(redirectUri, { error, error_description: description, state: state.data }),
  });
  if (host !== 'git-host-1' && single(params.response_type) !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  const scopes = requestedScopes(host, single(params.scope));
  if (!scopes) return fail('invalid_scope', 'The requested scope is unknown to this host');
  return { kind: 'ok', request: { host, clientId, redirectUri, state: state.data, scopes } };
}

/** The scopes asked for, or the host's defaults when none; null when one of them is unknown. */
function requestedScopes(host: GitHost, scope: string | undefined): string[] | null {
  if (host === 'git-host-1') return [];
  const asked = (scope ?? '').split(/\s+/).filter(Boolean);
  if (asked.length === 0) return [...defaultScopes(host)];
  const known: readonly string[] = REQUESTABLE_SCOPES[host as OAuthGitHost];
  return asked.every((s) => known.includes(s)) ? [...new Set(asked)] : null;
}

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  account: 'Read your account details',
  repository: 'Read your repositories',
  webhook: 'Add and remove webhooks on your repositories',
  api: 'Use the API as you: read repositories, add webhooks and make copies',
  read_api: 'Read through the API as you',
  read_user: 'Read your profile',
  read_repository: 'Read your repositories',
  write_repository: 'Push to your repositories',
};

/** What the consent page tells the user a scope lets the platform do. */
export function describeScope(scope: string): string {
  return SCOPE_DESCRIPTIONS[scope] ?? scope;
}

const decisionSchema = z.enum(['allow', 'deny']);

/** The consent form's answer: back to the callback with a fresh code, or with `error=access_denied`. */
export async function submitAuthorizationForm(host: GitHost, form: Params): Promise<string> {
  const decision = decisionSchema.safeParse(single(form.decision));
  if (!decision.success) throw new AppError('VALIDATION_ERROR', 'decision must be allow or deny');
  const check = checkAuthorization(host, form);
  if (check.kind === 'error-page') throw new AppError('VALIDATION_ERROR', check.message);
  if (check.kind === 'redirect') return check.location;
  const { request } = check;
  if (decision.data === 'deny') {
    return withQuery(request.redirectUri, { error: 'access_denied', error_description: 'The user denied access', state: request.state });
  }
  const code = await issueCode(host, { account: SIMULATED_USER.login, scopes: request.scopes, redirectUri: request.redirectUri });
  return withQuery(request.redirectUri, { code, state: request.state });
}

const pushFormSchema = z.object({
  repository: z.string().min(1).max(300),
  branch: z.string().min(1).max(255),
  message: z.string().trim().min(1, 'Write a commit message').max(10_000),
});

/** Pushes a commit from the host's repository page; answers where to go back to, with what was delivered. */
export async function submitPushForm(host: GitHost, form: Params): Promise<string> {
  const input = pushFormSchema.safeParse({ repository: single(form.repository), branch: single(form.branch), message: single(form.message) });
  if (!input.success) throw new AppError('VALIDATION_ERROR', 'Name the repository and branch and write a commit message');
  const { commit, deliveries } = await simulatePush({ host, ...input.data });
  const accepted = deliveries.filter((delivery) => delivery.status !== null && delivery.status < 300).length;
  return overviewPath(host, { repository: input.data.repository, pushed: commit.sha, delivered: `${accepted}/${deliveries.length}` });
}

const uninstallFormSchema = z.object({ installationId: z.string().regex(/^\d{1,12}$/) });

export async function submitUninstallForm(host: GitHost, form: Params): Promise<string> {
  if (host !== 'git-host-1') throw new AppError('NOT_FOUND', 'Only git host 1 has installations');
  const input = uninstallFormSchema.safeParse({ installationId: single(form.installationId) });
  if (!input.success) throw new AppError('VALIDATION_ERROR', 'installationId must be an installation number');
  const { deliveries } = await simulateUninstall(input.data.installationId);
  const accepted = deliveries.filter((delivery) => delivery.status !== null && delivery.status < 300).length;
  return overviewPath(host, { uninstalled: input.data.installationId, delivered: `${accepted}/${deliveries.length}` });
}

export interface HostOverview {
  host: GitHost;
  namespaces: Array<{ namespace: SeedNamespace; repositories: GitRepository[] }>;
  /** Host 1: the app's live installations. */
  installations: GitInstallation[];
  /** Hosts 2 and 3: the push webhooks registered on their repositories. */
  hooks: Array<{ id: string; repository: string; url: string; createdAt: string }>;
  /** Hosts 2 and 3: the repositories copied into the deployment organisation. */
  copies: Array<{ copy: string; source: string; syncedAt: string }>;
}

/** Everything the host holds, as its overview page shows it (the host's own view: no credential is involved). */
export async function hostOverview(host: GitHost): Promise<HostOverview> {
  const namespaces = SEED_NAMESPACES.filter((namespace) => namespace.host === host);
  const repositories = await Promise.all(seedRepositoriesOf(host).map((seed) => describeRepository(sourceView(seed))));
  const db = await getDb();
  const hooks = host === 'git-host-1' ? [] : await db.select().from(gitSimHooks).where(eq(gitSimHooks.host, host)).orderBy(desc(gitSimHooks.createdAt));
  const copies = host === 'git-host-1' ? [] : await db.select().from(gitSimCopies).where(eq(gitSimCopies.host, host)).orderBy(gitSimCopies.copy);
  return {
    host,
    namespaces: namespaces.map((namespace) => ({ namespace, repositories: repositories.filter((repo) => repo.owner === namespace.path) })),
    installations: host === 'git-host-1' ? await liveInstallationsOn(namespaces) : [],
    hooks: hooks.map((hook) => ({ id: hook.id, repository: hook.repository, url: hook.url, createdAt: hook.createdAt.toISOString() })),
    copies: copies.map((copy) => ({ copy: copy.copy, source: copy.source, syncedAt: copy.syncedAt.toISOString() })),
  };
}

export interface RepositoryOverview {
  repository: GitRepository;
  branches: GitBranchPage;
  root: GitContentEntry[];
}

const repositoryParamSchema = z.string().min(1).max(300);

/** One repository as its page shows it; NOT_FOUND for a name the host does not hold. */
export async function repositoryOverview(host: GitHost, fullName: string | string[] | undefined): Promise<RepositoryOverview> {
  const name = repositoryParamSchema.safeParse(single(fullName));
  const seed = name.success ? findSeedRepository(host, name.data) : undefined;
  if (!seed) throw notFound('Repository');
  const view = sourceView(seed);
  const [repository, branches, root] = await Promise.all([describeRepository(view), branchPage(view, 1), listDirectory(view, '')]);
  return { repository, branches, root };
}

const noticeSchema = z.object({
  pushed: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  uninstalled: z
    .string()
    .regex(/^\d{1,12}$/)
    .optional(),
  delivered: z.string().regex(/^\d{1,4}\/\d{1,4}$/),
});

/** What the page says after one of its actions (from the query its redirect carries); null when there is nothing valid to say. */
export function actionNotice(params: Params): string | null {
  const notice = noticeSchema.safeParse({ pushed: single(params.pushed), uninstalled: single(params.uninstalled), delivered: single(params.delivered) });
  if (!notice.success) return null;
  const [accepted, sent] = notice.data.delivered.split('/');
  const outcome = sent === '0' ? 'no webhook receives it' : `${accepted} of ${sent} webhook deliveries accepted`;
  if (notice.data.pushed) return `Pushed ${notice.data.pushed.slice(0, 7)}: ${outcome}.`;
  if (notice.data.uninstalled) return `Uninstalled installation ${notice.data.uninstalled}: ${outcome}.`;
  return null;
}

/** The host's overview page, relative to the panel. */
export function overviewPath(host: GitHost, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `/dev/git-hosts/${host}${search ? `?${search}` : ''}`;
}

/**
 * Runs a form POST of a simulated host's page: 404 when the host is not simulated, 403 for a form
 * sent from another site (a real host's CSRF protection), 303 to where the action leads.
 */
export async function handleHostForm(request: Request, segment: string, action: (host: GitHost, form: Params) => Promise<string>): Promise<Response> {
  const host = simulatedHostOf(segment);
  if (!host) return plainAnswer(404, 'Not found');
  if (!sameOriginForm(request)) return plainAnswer(403, 'This form can only be sent from the simulated host’s own page');
  let form: Params;
  try {
    form = Object.fromEntries([...(await request.formData()).entries()].map(([name, value]) => [name, typeof value === 'string' ? value : undefined]));
  } catch {
    return plainAnswer(400, 'The form could not be read');
  }
  try {
    const location = await action(host, form);
    return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return plainAnswer(err.status, err.message);
    throw err;
  }
}

function sameOriginForm(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (!origin) return false;
  const host = request.headers.get('host');
  return origin === new URL(getConfig().APP_URL).origin || (host !== null && (origin === `http://${host}` || origin === `https://${host}`));
}

function plainAnswer(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
}

function sameEndpoint(given: string, registered: string): boolean {
  try {
    const url = new URL(given);
    const expected = new URL(registered);
    return url.origin === expected.origin && url.pathname === expected.pathname && !url.hash;
  } catch {
    return false;
  }
}

function withQuery(base: string, query: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

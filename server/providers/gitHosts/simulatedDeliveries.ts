import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../db';
import { gitSimCommits, gitSimHooks } from '../../../db/schema';
import { GIT_HOSTS } from '../../../db/schema/gitIntegrations';
import { getConfig } from '../../platform/config';
import { open } from '../../platform/encryption/envelope';
import { notFound, validationError } from '../../platform/errors';
import { SIMULATED_USER, findSeedNamespace, findSeedRepository, seedRepositoriesOf, type SeedRepository } from './seed';
import { liveInstallationsOn, markUninstalled } from './simulatorInstallations';
import { authorName, simulatedRepositoryUrl } from './simulatorRepositories';
import type { GitCommit, GitInstallation } from './types';

/**
 * The simulated hosts send webhooks as the real ones do: the same events, headers, bodies and
 * signatures, POSTed to the platform's webhook routes. A push to a simulated repository records
 * its commit (so reads see the new head) and delivers the push event to every receiver of that
 * repository: host 1 to the app's webhook URL for each installation covering the repository,
 * hosts 2 and 3 to each webhook registered on it.
 */

/** The real hosts give up on a receiver after ten seconds. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** The id the simulated host 1 knows the platform's app by. */
const SIMULATED_APP_ID = 424_242;
const SIMULATED_APP_SLUG = 'cloudpanel-simulator';

/**
 * Host 1's webhook secret when GIT_HOST_1_WEBHOOK_SECRET is unset: derived from AUTH_SECRET, so
 * the simulated host and the platform's webhook route agree on it without any setting.
 */
export function simulatedGitHost1WebhookSecret(): string {
  return createHmac('sha256', getConfig().AUTH_SECRET).update('git-host-1 webhook secret').digest('hex');
}

function gitHost1WebhookSecret(): string {
  return getConfig().GIT_HOST_1_WEBHOOK_SECRET ?? simulatedGitHost1WebhookSecret();
}

export interface DeliveryOptions {
  /**
   * Stands in for APP_URL: host 1's webhook URL is built on it, and hook URLs that start with
   * APP_URL are sent here instead (a test's server on another port).
   */
  baseUrl?: string;
}

export interface DeliveryResult {
  url: string;
  event: string;
  deliveryId: string;
  /** The receiver's answer; null when it could not be reached in time. */
  status: number | null;
  /** Why the receiver could not be reached. */
  error: string | null;
}

export interface PushedCommit extends GitCommit {
  /** The branch's head before the push. */
  before: string;
  pushedAt: string;
}

export interface PushResult {
  commit: PushedCommit;
  deliveries: DeliveryResult[];
}

const pushSchema = z.object({
  host: z.enum(GIT_HOSTS),
  repository: z.string().min(1).max(300),
  branch: z.string().min(1).max(255),
  message: z.string().trim().min(1).max(10_000),
  /** git's `Name <email>` form, or a name alone. */
  author: z.string().trim().min(1).max(300).default(`${SIMULATED_USER.name} <${SIMULATED_USER.email}>`),
});

export type SimulatedPush = z.input<typeof pushSchema>;

/** Pushes a commit to a branch of a seeded repository and delivers the push event to the repository's receivers. */
export async function simulatePush(input: SimulatedPush, options: DeliveryOptions = {}): Promise<PushResult> {
  const parsed = pushSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const push = parsed.data;
  const seed = findSeedRepository(push.host, push.repository);
  if (!seed) throw notFound(`Repository ${push.repository} on ${push.host}`);
  const branch = seed.branches.find((candidate) => candidate.name === push.branch);
  if (!branch) throw notFound(`Branch ${push.branch} in ${seed.fullName}`);
  const commit = await recordCommit(seed, branch.name, branch.head.sha, push.message, push.author);
  const event = { seed, branch: branch.name, commit, author: parseAuthor(push.author) };
  const deliveries = push.host === 'git-host-1' ? await deliverHost1Push(event, options) : await deliverHookPushes(event, options);
  return { commit, deliveries };
}

/**
 * Uninstalls the app from an account on the host's side (the account owner's action) and sends
 * the `installation` event with `action: deleted`. NOT_FOUND when there is no live installation.
 */
export async function simulateUninstall(
  installationId: string,
  options: DeliveryOptions = {},
): Promise<{ installation: GitInstallation; deliveries: DeliveryResult[] }> {
  const installation = await markUninstalled(installationId);
  if (!installation) throw notFound(`Installation ${installationId}`);
  const repositories = seedRepositoriesOf('git-host-1').filter((seed) => seed.owner === installation.accountLogin);
  const body = {
    action: 'deleted',
    installation: {
      id: Number(installation.installationId),
      account: { login: installation.accountLogin, id: numericId(`account:${installation.accountLogin}`), type: installation.accountType },
      app_id: SIMULATED_APP_ID,
      app_slug: SIMULATED_APP_SLUG,
      target_type: installation.accountType,
      repository_selection: 'all',
      created_at: installation.createdAt,
      suspended_at: null,
    },
    repositories: repositories.map((seed) => ({
      id: numericId(`repository:${seed.fullName}`),
      name: seed.name,
      full_name: seed.fullName,
      private: seed.private,
    })),
    sender: { login: SIMULATED_USER.login, type: 'User' },
  };
  return { installation, deliveries: [await sendHost1Event('installation', body, options)] };
}

interface PushEventSource {
  seed: SeedRepository;
  branch: string;
  commit: PushedCommit;
  author: Person;
}

/**
 * Records the new head. Pushes to one repository are taken one at a time and each lands strictly
 * after the one before, so the newest commit of a branch is always its head.
 */
async function recordCommit(seed: SeedRepository, branch: string, seededHead: string, message: string, author: string): Promise<PushedCommit> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`git-sim-push:${seed.host}:${seed.fullName}`}, 0))`);
    const [previous] = await tx
      .select()
      .from(gitSimCommits)
      .where(and(eq(gitSimCommits.host, seed.host), eq(gitSimCommits.repository, seed.fullName), eq(gitSimCommits.branch, branch)))
      .orderBy(desc(gitSimCommits.pushedAt))
      .limit(1);
    const before = previous?.sha ?? seededHead;
    const pushedAt = new Date(Math.max(Date.now(), (previous?.pushedAt.getTime() ?? 0) + 1));
    const sha = createHash('sha1')
      .update(`commit\0${before}\0${author}\0${pushedAt.toISOString()}\0${randomBytes(8).toString('hex')}\0${message}`)
      .digest('hex');
    await tx.insert(gitSimCommits).values({ sha, host: seed.host, repository: seed.fullName, branch, message, author, pushedAt });
    return { sha, message, author: authorName(author), before, pushedAt: pushedAt.toISOString() };
  });
}

async function deliverHost1Push({ seed, branch, commit, author }: PushEventSource, options: DeliveryOptions): Promise<DeliveryResult[]> {
  const owner = findSeedNamespace('git-host-1', seed.owner);
  const installations = owner ? (await liveInstallationsOn([owner])).filter((installation) => !installation.suspended) : [];
  const webUrl = simulatedRepositoryUrl(seed.host, seed.fullName);
  const commitJson = {
    id: commit.sha,
    tree_id: createHash('sha1').update(`tree\0${commit.sha}`).digest('hex'),
    distinct: true,
    message: commit.message,
    timestamp: commit.pushedAt,
    url: `${webUrl}&commit=${commit.sha}`,
    author: personOf(author),
    committer: personOf(author),
    added: [],
    removed: [],
    modified: [],
  };
  return Promise.all(
    installations.map((installation) =>
      sendHost1Event(
        'push',
        {
          ref: `refs/heads/${branch}`,
          before: commit.before,
          after: commit.sha,
          created: false,
          deleted: false,
          forced: false,
          base_ref: null,
          compare: `${webUrl}&compare=${commit.before.slice(0, 12)}...${commit.sha.slice(0, 12)}`,
          commits: [commitJson],
          head_commit: commitJson,
          repository: {
            id: numericId(`repository:${seed.fullName}`),
            name: seed.name,
            full_name: seed.fullName,
            private: seed.private,
            owner: { login: seed.owner, type: installation.accountType },
            html_url: webUrl,
            default_branch: seed.defaultBranch,
            pushed_at: Math.floor(Date.parse(commit.pushedAt) / 1000),
          },
          pusher: { name: SIMULATED_USER.login, email: SIMULATED_USER.email },
          sender: { login: SIMULATED_USER.login, type: 'User' },
          installation: { id: Number(installation.installationId) },
        },
        options,
      ),
    ),
  );
}

async function sendHost1Event(event: string, payload: unknown, options: DeliveryOptions): Promise<DeliveryResult> {
  const body = JSON.stringify(payload);
  const secret = gitHost1WebhookSecret();
  const deliveryId = randomUUID();
  const url = `${baseOf(options)}/v1/integrations/git-host-1/webhook`;
  return deliver(url, event, deliveryId, body, {
    'user-agent': 'GitHub-Hookshot/simulated',
    'x-github-event': event,
    'x-github-delivery': deliveryId,
    'x-github-hook-installation-target-type': 'integration',
    'x-github-hook-installation-target-id': String(SIMULATED_APP_ID),
    'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  });
}

async function deliverHookPushes(source: PushEventSource, options: DeliveryOptions): Promise<DeliveryResult[]> {
  const db = await getDb();
  const hooks = await db
    .select()
    .from(gitSimHooks)
    .where(and(eq(gitSimHooks.host, source.seed.host), eq(gitSimHooks.repository, source.seed.fullName)))
    .orderBy(gitSimHooks.createdAt);
  return Promise.all(
    hooks.map((hook) => {
      const secret = open(hook.sealedSecret, hook.id);
      const url = rebased(hook.url, options);
      return source.seed.host === 'git-host-2' ? sendHost2Push(source, hook.id, url, secret) : sendHost3Push(source, url, secret);
    }),
  );
}

function sendHost2Push({ seed, branch, commit, author }: PushEventSource, hookId: string, url: string, secret: string): Promise<DeliveryResult> {
  const webUrl = simulatedRepositoryUrl(seed.host, seed.fullName);
  const workspace = findSeedNamespace(seed.host, seed.owner);
  const target = {
    type: 'commit',
    hash: commit.sha,
    message: commit.message,
    date: commit.pushedAt,
    author: { type: 'author', raw: `${author.name} <${author.email}>` },
    links: { html: { href: `${webUrl}&commit=${commit.sha}` } },
  };
  const body = JSON.stringify({
    actor: { type: 'user', username: SIMULATED_USER.login, display_name: SIMULATED_USER.name, uuid: uuidOf(`user:${SIMULATED_USER.login}`) },
    repository: {
      type: 'repository',
      full_name: seed.fullName,
      name: seed.name,
      uuid: uuidOf(`repository:${seed.fullName}`),
      is_private: seed.private,
      scm: 'git',
      workspace: { type: 'workspace', slug: seed.owner, name: workspace?.displayName ?? seed.owner, uuid: uuidOf(`workspace:${seed.owner}`) },
      links: { html: { href: webUrl } },
    },
    push: {
      changes: [
        {
          old: { type: 'branch', name: branch, target: { type: 'commit', hash: commit.before } },
          new: { type: 'branch', name: branch, target },
          created: false,
          closed: false,
          forced: false,
          truncated: false,
          commits: [target],
        },
      ],
    },
  });
  const deliveryId = randomUUID();
  return deliver(url, 'repo:push', deliveryId, body, {
    'user-agent': 'Bitbucket-Webhooks/2.0',
    'x-event-key': 'repo:push',
    'x-request-uuid': deliveryId,
    'x-hook-uuid': hookId.replace(/^\{|\}$/g, ''),
    'x-attempt-number': '1',
    'x-hub-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  });
}

function sendHost3Push({ seed, branch, commit, author }: PushEventSource, url: string, secret: string): Promise<DeliveryResult> {
  const webUrl = simulatedRepositoryUrl(seed.host, seed.fullName);
  const visibility = seed.private ? 0 : 20;
  const project = {
    id: numericId(`project:${seed.fullName}`),
    name: seed.name,
    description: seed.description,
    web_url: webUrl,
    namespace: findSeedNamespace(seed.host, seed.owner)?.displayName ?? seed.owner,
    path_with_namespace: seed.fullName,
    default_branch: seed.defaultBranch,
    visibility_level: visibility,
  };
  const body = JSON.stringify({
    object_kind: 'push',
    event_name: 'push',
    before: commit.before,
    after: commit.sha,
    ref: `refs/heads/${branch}`,
    ref_protected: branch === seed.defaultBranch,
    checkout_sha: commit.sha,
    message: null,
    user_id: numericId(`user:${SIMULATED_USER.login}`),
    user_name: SIMULATED_USER.name,
    user_username: SIMULATED_USER.login,
    user_email: '',
    project_id: project.id,
    project,
    commits: [
      {
        id: commit.sha,
        message: commit.message,
        title: commit.message.split('\n')[0],
        timestamp: commit.pushedAt,
        url: `${webUrl}&commit=${commit.sha}`,
        author: { name: author.name, email: author.email },
        added: [],
        modified: [],
        removed: [],
      },
    ],
    total_commits_count: 1,
    repository: { name: seed.name, description: seed.description, homepage: webUrl, visibility_level: visibility },
  });
  const deliveryId = randomUUID();
  return deliver(url, 'Push Hook', deliveryId, body, {
    'user-agent': 'GitLab/simulated',
    'x-gitlab-event': 'Push Hook',
    'x-gitlab-token': secret,
    'x-gitlab-event-uuid': deliveryId,
    'x-gitlab-instance': new URL(getConfig().APP_URL).origin,
  });
}

async function deliver(url: string, event: string, deliveryId: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> {
  try {
    // Like the real hosts: no redirects followed, and only the status of the answer counts.
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { url, event, deliveryId, status: response.status, error: null };
  } catch (err) {
    return { url, event, deliveryId, status: null, error: err instanceof Error && err.name === 'TimeoutError' ? 'timed out' : 'could not connect' };
  }
}

function baseOf(options: DeliveryOptions): string {
  return (options.baseUrl ?? getConfig().APP_URL).replace(/\/+$/, '');
}

function rebased(url: string, options: DeliveryOptions): string {
  const appUrl = getConfig().APP_URL;
  if (!options.baseUrl || !(url === appUrl || url.startsWith(`${appUrl}/`) || url.startsWith(`${appUrl}?`))) return url;
  return `${baseOf(options)}${url.slice(appUrl.length)}`;
}

interface Person {
  name: string;
  email: string;
}

/** git's `Name <email>`; a name given alone gets the no-reply address the hosts use for it. */
function parseAuthor(raw: string): Person {
  const match = /^(.*?)\s*<([^>]*)>$/.exec(raw);
  if (match) return { name: match[1] || match[2]!, email: match[2]! };
  return {
    name: raw,
    email: `${
      raw
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '.')
        .replace(/^\.|\.$/g, '') || 'author'
    }@users.noreply.example.com`,
  };
}

function personOf(person: Person): { name: string; email: string; username?: string } {
  return person.email === SIMULATED_USER.email ? { ...person, username: SIMULATED_USER.login } : person;
}

/** A stable number for a name, as the hosts give every object a numeric id. */
function numericId(name: string): number {
  return Number.parseInt(createHash('sha1').update(name).digest('hex').slice(0, 8), 16);
}

/** A stable `{uuid}` for a name, in host 2's braced form. */
function uuidOf(name: string): string {
  const hex = createHash('sha1').update(name).digest('hex');
  return `{${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}}`;
}

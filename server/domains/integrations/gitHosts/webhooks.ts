import { and, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../../db';
import { gitWebhookDeliveries } from '../../../../db/schema';
import { getConfig } from '../../../platform/config';
import { AppError } from '../../../platform/errors';
import { getLogger } from '../../../platform/logger';
import type { GitHost } from '../../../providers/gitHosts';
import { simulatedGitHost1WebhookSecret } from '../../../providers/gitHosts';
import { queuePushDeployments } from '../../apps';
import { forgetInstallation, projectsLinking } from './host1';
import { repositoryWebhook } from './oauthHosts';
import { hmacSignatureValid, tokenValid } from './signatures';

/**
 * Inbound deliveries of the three hosts. Each is authenticated over the raw body before anything
 * reads it (host 1: the app's HMAC; host 2: the repository hook's HMAC; host 3: the repository
 * hook's token), then recorded by the host's delivery id, so a replayed delivery is answered and
 * never acted on twice.
 */

export interface DeliveryOutcome {
  /** 202 when deployments were queued, 200 otherwise. */
  status: 200 | 202;
  queued: number;
  duplicate: boolean;
}

export interface Delivery {
  headers: Record<string, string>;
  query: URLSearchParams;
  body: Buffer;
}

/** Host 1 signs with its app's webhook secret; the simulated host derives one from AUTH_SECRET. */
export function host1WebhookSecret(): string {
  return getConfig().GIT_HOST_1_WEBHOOK_SECRET ?? simulatedGitHost1WebhookSecret();
}

const signatureRefused = () => new AppError('SIGNATURE_INVALID', 'The delivery is not signed with this webhook’s secret');

export async function receiveHost1Delivery({ headers, body }: Delivery): Promise<DeliveryOutcome> {
  if (!hmacSignatureValid(headers['x-hub-signature-256'], body, host1WebhookSecret())) throw signatureRefused();
  const deliveryId = requireDeliveryId(headers['x-github-delivery']);
  const event = headers['x-github-event'] ?? '';
  return once('git-host-1', deliveryId, event, async () => {
    const payload = parseJson(body);
    if (event === 'push') {
      const push = host1Push.safeParse(payload);
      if (!push.success || push.data.deleted || !push.data.ref.startsWith(BRANCH_REF)) return 0;
      const projectIds = await projectsLinking(String(push.data.installation.id));
      return queuePushDeployments(projectIds, {
        host: 'git-host-1',
        repository: push.data.repository.full_name,
        branch: push.data.ref.slice(BRANCH_REF.length),
        commitSha: push.data.after,
        commitMessage: push.data.head_commit?.message ?? '',
        deliveryId,
      });
    }
    if (event === 'installation') {
      const installation = host1Installation.safeParse(payload);
      if (installation.success && installation.data.action === 'deleted') await forgetInstallation(String(installation.data.installation.id), 'uninstalled');
    }
    return 0;
  });
}

export async function receiveHost2Delivery({ headers, query, body }: Delivery): Promise<DeliveryOutcome> {
  const hook = await repositoryWebhook(query.get('hook') ?? '');
  if (!hook || hook.host !== 'git-host-2' || !hmacSignatureValid(headers['x-hub-signature'], body, hook.secret)) throw signatureRefused();
  const deliveryId = requireDeliveryId(headers['x-request-uuid']);
  const event = headers['x-event-key'] ?? '';
  return once('git-host-2', deliveryId, event, async () => {
    if (event !== 'repo:push') return 0;
    const push = host2Push.safeParse(parseJson(body));
    if (!push.success || !sameRepository(push.data.repository.full_name, hook.repository)) return 0;
    let queued = 0;
    for (const change of push.data.push.changes) {
      if (change.new?.type !== 'branch') continue;
      queued += await queuePushDeployments([hook.projectId], {
        host: 'git-host-2',
        repository: hook.repository,
        branch: change.new.name,
        commitSha: change.new.target.hash,
        commitMessage: change.new.target.message ?? '',
        deliveryId,
      });
    }
    return queued;
  });
}

export async function receiveHost3Delivery({ headers, query, body }: Delivery): Promise<DeliveryOutcome> {
  const hook = await repositoryWebhook(query.get('hook') ?? '');
  if (!hook || hook.host !== 'git-host-3' || !tokenValid(headers['x-gitlab-token'], hook.secret)) throw signatureRefused();
  const deliveryId = requireDeliveryId(headers['x-gitlab-event-uuid']);
  const event = headers['x-gitlab-event'] ?? '';
  return once('git-host-3', deliveryId, event, async () => {
    if (event !== 'Push Hook') return 0;
    const push = host3Push.safeParse(parseJson(body));
    if (!push.success || !push.data.ref.startsWith(BRANCH_REF) || !push.data.checkout_sha) return 0;
    if (!sameRepository(push.data.project.path_with_namespace, hook.repository)) return 0;
    const head = push.data.commits.find((c) => c.id === push.data.checkout_sha) ?? push.data.commits.at(-1);
    return queuePushDeployments([hook.projectId], {
      host: 'git-host-3',
      repository: hook.repository,
      branch: push.data.ref.slice(BRANCH_REF.length),
      commitSha: push.data.checkout_sha,
      commitMessage: head?.message ?? '',
      deliveryId,
    });
  });
}

/** How long delivery ids are kept: hosts redeliver within days, not months. */
export const DELIVERY_RETENTION_DAYS = 30;

export async function purgeOldDeliveries(now = new Date()): Promise<number> {
  const db = await getDb();
  const cutoff = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const removed = await db.delete(gitWebhookDeliveries).where(lt(gitWebhookDeliveries.receivedAt, cutoff)).returning({ id: gitWebhookDeliveries.deliveryId });
  return removed.length;
}

const BRANCH_REF = 'refs/heads/';

const host1Push = z.object({
  ref: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
  head_commit: z.object({ message: z.string() }).nullish(),
  repository: z.object({ full_name: z.string() }),
  installation: z.object({ id: z.union([z.number(), z.string()]) }),
});

const host1Installation = z.object({ action: z.string(), installation: z.object({ id: z.union([z.number(), z.string()]) }) });

const host2Push = z.object({
  repository: z.object({ full_name: z.string() }),
  push: z.object({
    changes: z.array(
      z.object({
        new: z.object({ type: z.string(), name: z.string(), target: z.object({ hash: z.string(), message: z.string().optional() }) }).nullish(),
      }),
    ),
  }),
});

const host3Push = z.object({
  ref: z.string(),
  checkout_sha: z.string().nullish(),
  project: z.object({ path_with_namespace: z.string() }),
  commits: z.array(z.object({ id: z.string(), message: z.string() })).default([]),
});

function sameRepository(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function requireDeliveryId(value: string | undefined): string {
  if (!value || value.length > 200) throw new AppError('BAD_REQUEST', 'The delivery carries no delivery id header');
  return value;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('BAD_REQUEST', 'The delivery body is not JSON');
  }
}

/**
 * Acts on a delivery once: its id is recorded first, so a replay running at the same moment finds
 * it; if acting fails the record is removed again, so the host's own retry is not taken for a replay.
 */
async function once(host: GitHost, deliveryId: string, event: string, act: () => Promise<number>): Promise<DeliveryOutcome> {
  const db = await getDb();
  const claimed = await db.insert(gitWebhookDeliveries).values({ host, deliveryId, event }).onConflictDoNothing().returning();
  if (claimed.length === 0) return { status: 200, queued: 0, duplicate: true };
  let queued: number;
  try {
    queued = await act();
  } catch (err) {
    await db.delete(gitWebhookDeliveries).where(and(eq(gitWebhookDeliveries.host, host), eq(gitWebhookDeliveries.deliveryId, deliveryId)));
    throw err;
  }
  await db
    .update(gitWebhookDeliveries)
    .set({ queued })
    .where(and(eq(gitWebhookDeliveries.host, host), eq(gitWebhookDeliveries.deliveryId, deliveryId)));
  getLogger().info({ host, deliveryId, event, queued }, 'git host delivery processed');
  return { status: queued > 0 ? 202 : 200, queued, duplicate: false };
}

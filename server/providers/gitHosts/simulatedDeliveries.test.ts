import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { gitSimCommits } from '../../../db/schema';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { simulatePush, simulateUninstall, simulatedGitHost1WebhookSecret } from './simulatedDeliveries';
import { GitHost1Simulator, OAuthGitHostSimulator, installSimulatedApp, setSimulatedInstallationSuspended } from './simulator';
import { submitAuthorizationForm } from './simulatorPages';
import type { OAuthGitHost } from './types';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A receiver on loopback that keeps every request as it arrived and answers with `status`. */
class Receiver {
  readonly received: Received[] = [];
  status = 202;
  location: string | null = null;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(this.status, this.location ? { location: this.location } : {});
      res.end('{}');
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  take(): Received[] {
    return this.received.splice(0);
  }
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function configure(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
}

const hmacHex = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');
const json = (received: Received) => JSON.parse(received.body.toString('utf8')) as Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const receiver = new Receiver();
let base: string;

beforeAll(async () => {
  base = await receiver.listen();
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(() => {
  receiver.take();
  receiver.status = 202;
  receiver.location = null;
  configure({ GIT_HOST_1_WEBHOOK_SECRET: undefined });
});

async function freshInstallation(account: string): Promise<string> {
  const { installation, created } = await installSimulatedApp(account);
  if (created) return installation.installationId;
  await new GitHost1Simulator().uninstall(installation.installationId);
  return (await installSimulatedApp(account)).installation.installationId;
}

async function accessTokenOf(host: OAuthGitHost): Promise<string> {
  const callback = `${getConfig().APP_URL}/v1/integrations/${host}/callback`;
  const location = await submitAuthorizationForm(host, {
    decision: 'allow',
    client_id: 'cloudpanel-simulator',
    redirect_uri: callback,
    response_type: 'code',
    state: 's',
  });
  const code = new URL(location).searchParams.get('code')!;
  return (await new OAuthGitHostSimulator(host).exchangeCode(code, callback)).accessToken;
}

describe('simulated host 1 deliveries', () => {
  it('derives the webhook secret from AUTH_SECRET', () => {
    expect(simulatedGitHost1WebhookSecret()).toBe(createHmac('sha256', getConfig().AUTH_SECRET).update('git-host-1 webhook secret').digest('hex'));
    expect(simulatedGitHost1WebhookSecret()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('posts a signed push event to the app’s webhook URL for the installation covering the repository', async () => {
    const installationId = await freshInstallation('acme-labs');
    const before = (await new GitHost1Simulator().headCommit({ installationId }, 'acme-labs/storefront', 'main')).sha;

    const result = await simulatePush(
      {
        host: 'git-host-1',
        repository: 'Acme-Labs/Storefront',
        branch: 'main',
        message: 'Ship the cart\n\nWith a longer body.',
        author: 'Grace Hopper <grace@example.com>',
      },
      { baseUrl: base },
    );

    const [delivery] = receiver.take();
    expect(delivery).toBeDefined();
    expect(delivery!.method).toBe('POST');
    expect(delivery!.url).toBe('/v1/integrations/git-host-1/webhook');
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-github-event']).toBe('push');
    expect(delivery!.headers['x-github-delivery']).toMatch(UUID);
    expect(delivery!.headers['x-hub-signature-256']).toBe(`sha256=${hmacHex(simulatedGitHost1WebhookSecret(), delivery!.body)}`);
    const body = json(delivery!);
    expect(body).toMatchObject({
      ref: 'refs/heads/main',
      before,
      after: result.commit.sha,
      head_commit: { id: result.commit.sha, message: 'Ship the cart\n\nWith a longer body.', author: { name: 'Grace Hopper', email: 'grace@example.com' } },
      repository: { full_name: 'acme-labs/storefront', name: 'storefront', private: true },
      installation: { id: Number(installationId) },
    });
    expect(result.deliveries).toEqual([
      { url: `${base}/v1/integrations/git-host-1/webhook`, event: 'push', deliveryId: delivery!.headers['x-github-delivery'], status: 202, error: null },
    ]);
    expect(result.commit).toMatchObject({ before, message: 'Ship the cart\n\nWith a longer body.', author: 'Grace Hopper' });
  });

  it('signs with GIT_HOST_1_WEBHOOK_SECRET when it is set', async () => {
    await freshInstallation('acme-labs');
    configure({ GIT_HOST_1_WEBHOOK_SECRET: 'configured-webhook-secret' });
    await simulatePush({ host: 'git-host-1', repository: 'acme-labs/docs-site', branch: 'main', message: 'Docs' }, { baseUrl: base });
    const [delivery] = receiver.take();
    expect(delivery!.headers['x-hub-signature-256']).toBe(`sha256=${hmacHex('configured-webhook-secret', delivery!.body)}`);
    expect(delivery!.headers['x-hub-signature-256']).not.toBe(`sha256=${hmacHex(simulatedGitHost1WebhookSecret(), delivery!.body)}`);
  });

  it('delivers nothing for an account without a live, unsuspended installation, but still records the commit', async () => {
    const installationId = await freshInstallation('demo-user');
    await setSimulatedInstallationSuspended(installationId, true);
    const suspended = await simulatePush(
      { host: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main', message: 'While suspended' },
      { baseUrl: base },
    );
    expect(suspended.deliveries).toEqual([]);
    await setSimulatedInstallationSuspended(installationId, false);

    const { commit, deliveries } = await simulatePush(
      { host: 'git-host-1', repository: 'globex/website', branch: 'main', message: 'Nobody listens' },
      { baseUrl: base },
    );
    expect(deliveries).toEqual([]);
    expect(receiver.take()).toEqual([]);
    const db = await getDb();
    const rows = await db
      .select()
      .from(gitSimCommits)
      .where(and(eq(gitSimCommits.host, 'git-host-1'), eq(gitSimCommits.sha, commit.sha)));
    expect(rows).toMatchObject([{ repository: 'globex/website', branch: 'main', message: 'Nobody listens' }]);
  });

  it('reports the receiver’s answer, follows no redirect, and reports a receiver it cannot reach', async () => {
    await freshInstallation('acme-labs');
    receiver.status = 500;
    const failed = await simulatePush({ host: 'git-host-1', repository: 'acme-labs/monorepo', branch: 'main', message: 'One' }, { baseUrl: base });
    expect(failed.deliveries.map((delivery) => delivery.status)).toEqual([500]);

    receiver.take();
    receiver.status = 302;
    receiver.location = `${base}/elsewhere`;
    const moved = await simulatePush({ host: 'git-host-1', repository: 'acme-labs/monorepo', branch: 'main', message: 'Two' }, { baseUrl: base });
    expect(moved.deliveries.map((delivery) => delivery.status)).toEqual([302]);
    expect(receiver.take().map((request) => request.url)).toEqual(['/v1/integrations/git-host-1/webhook']);

    const closed = new Receiver();
    const gone = await closed.listen();
    await closed.close();
    const unreachable = await simulatePush({ host: 'git-host-1', repository: 'acme-labs/monorepo', branch: 'main', message: 'Three' }, { baseUrl: gone });
    expect(unreachable.deliveries).toMatchObject([{ status: null, error: 'could not connect' }]);
  });

  it('uninstalls on the host’s side and sends the signed installation event', async () => {
    const installationId = await freshInstallation('demo-user');
    const { installation, deliveries } = await simulateUninstall(installationId, { baseUrl: base });
    expect(installation).toMatchObject({ installationId, accountLogin: 'demo-user' });
    expect(deliveries).toMatchObject([{ event: 'installation', status: 202 }]);
    const [delivery] = receiver.take();
    expect(delivery!.url).toBe('/v1/integrations/git-host-1/webhook');
    expect(delivery!.headers['x-github-event']).toBe('installation');
    expect(delivery!.headers['x-github-delivery']).toMatch(UUID);
    expect(delivery!.headers['x-hub-signature-256']).toBe(`sha256=${hmacHex(simulatedGitHost1WebhookSecret(), delivery!.body)}`);
    expect(json(delivery!)).toMatchObject({
      action: 'deleted',
      installation: { id: Number(installationId), account: { login: 'demo-user', type: 'User' } },
      repositories: [{ full_name: 'demo-user/hello-node' }],
    });
    expect(await new GitHost1Simulator().getInstallation(installationId)).toBeNull();
    expect((await refusal(simulateUninstall(installationId, { baseUrl: base }))).code).toBe('NOT_FOUND');
    expect(receiver.take()).toEqual([]);
  });
});

describe('simulated host 2 deliveries', () => {
  const host2 = new OAuthGitHostSimulator('git-host-2');

  it('signs each hook’s delivery with that hook’s secret, in the host’s repo:push format', async () => {
    const token = await accessTokenOf('git-host-2');
    const first = await host2.createWebhook(token, 'demo-team/api-service', { url: `${base}/hooks/first?hook=ghk_1`, secret: 'first-secret' });
    const second = await host2.createWebhook(token, 'demo-team/api-service', { url: `${base}/hooks/second`, secret: 'second-secret' });
    const elsewhere = await host2.createWebhook(token, 'demo-team/legacy-app', { url: `${base}/hooks/legacy`, secret: 'legacy-secret' });

    const { commit, deliveries } = await simulatePush({
      host: 'git-host-2',
      repository: 'demo-team/api-service',
      branch: 'develop',
      message: 'Tune the pool',
      author: 'Linus <linus@example.com>',
    });
    expect(deliveries.map((delivery) => delivery.status)).toEqual([202, 202]);
    const received = receiver.take().sort((a, b) => a.url.localeCompare(b.url));
    expect(received.map((request) => request.url)).toEqual(['/hooks/first?hook=ghk_1', '/hooks/second']);
    for (const [request, hook, secret] of [
      [received[0]!, first.hookId, 'first-secret'],
      [received[1]!, second.hookId, 'second-secret'],
    ] as const) {
      expect(request.headers['x-event-key']).toBe('repo:push');
      expect(request.headers['x-request-uuid']).toMatch(UUID);
      expect(request.headers['x-hook-uuid']).toBe(hook.slice(1, -1));
      expect(request.headers['x-hub-signature']).toBe(`sha256=${hmacHex(secret, request.body)}`);
      expect(json(request)).toMatchObject({
        repository: { full_name: 'demo-team/api-service' },
        push: {
          changes: [
            {
              new: { type: 'branch', name: 'develop', target: { hash: commit.sha, message: 'Tune the pool', author: { raw: 'Linus <linus@example.com>' } } },
              old: { type: 'branch', name: 'develop', target: { hash: commit.before } },
            },
          ],
        },
      });
    }

    await host2.deleteWebhook(token, 'demo-team/api-service', first.hookId);
    await host2.deleteWebhook(token, 'demo-team/api-service', second.hookId);
    const quiet = await simulatePush({ host: 'git-host-2', repository: 'demo-team/api-service', branch: 'main', message: 'Nobody hears' });
    expect(quiet.deliveries).toEqual([]);
    await host2.deleteWebhook(token, 'demo-team/legacy-app', elsewhere.hookId);
  });

  it('sends hooks registered on APP_URL to the base URL standing in for it', async () => {
    const token = await accessTokenOf('git-host-2');
    const { hookId } = await host2.createWebhook(token, 'demo-team/legacy-app', {
      url: `${getConfig().APP_URL}/v1/integrations/git-host-2/webhook?hook=ghk_abc`,
      secret: 'app-secret',
    });
    const { deliveries } = await simulatePush(
      { host: 'git-host-2', repository: 'demo-team/legacy-app', branch: 'main', message: 'Rebased' },
      { baseUrl: `${base}/` },
    );
    expect(deliveries.map((delivery) => delivery.url)).toEqual([`${base}/v1/integrations/git-host-2/webhook?hook=ghk_abc`]);
    expect(receiver.take().map((request) => request.url)).toEqual(['/v1/integrations/git-host-2/webhook?hook=ghk_abc']);
    await host2.deleteWebhook(token, 'demo-team/legacy-app', hookId);
  });
});

describe('simulated host 3 deliveries', () => {
  const host3 = new OAuthGitHostSimulator('git-host-3');

  it('sends the hook’s token as is, in the host’s push hook format', async () => {
    const token = await accessTokenOf('git-host-3');
    const { hookId } = await host3.createWebhook(token, 'demo-group/backend/payments-api', { url: `${base}/gitlab`, secret: 'gitlab-hook-token' });
    const { commit } = await simulatePush({
      host: 'git-host-3',
      repository: 'demo-group/backend/payments-api',
      branch: 'release/1.x',
      message: 'Settle faster\n\nDetails.',
    });
    const [request] = receiver.take();
    expect(request!.headers['x-gitlab-event']).toBe('Push Hook');
    expect(request!.headers['x-gitlab-token']).toBe('gitlab-hook-token');
    expect(request!.headers['x-gitlab-event-uuid']).toMatch(UUID);
    expect(request!.headers['x-hub-signature']).toBeUndefined();
    expect(json(request!)).toMatchObject({
      object_kind: 'push',
      ref: 'refs/heads/release/1.x',
      before: commit.before,
      after: commit.sha,
      checkout_sha: commit.sha,
      project: { path_with_namespace: 'demo-group/backend/payments-api', default_branch: 'main' },
      commits: [
        { id: commit.sha, message: 'Settle faster\n\nDetails.', title: 'Settle faster', author: { name: 'Demo User', email: 'demo-user@example.com' } },
      ],
      total_commits_count: 1,
    });
    await host3.deleteWebhook(token, 'demo-group/backend/payments-api', hookId);
  });
});

describe('simulated pushes: refusals', () => {
  it('refuses an unknown repository or branch, and input out of bounds', async () => {
    expect((await refusal(simulatePush({ host: 'git-host-2', repository: 'demo-team/nothing', branch: 'main', message: 'x' }))).code).toBe('NOT_FOUND');
    expect((await refusal(simulatePush({ host: 'git-host-3', repository: 'demo-team/api-service', branch: 'main', message: 'x' }))).code).toBe('NOT_FOUND');
    expect((await refusal(simulatePush({ host: 'git-host-2', repository: 'demo-team/api-service', branch: 'gone', message: 'x' }))).code).toBe('NOT_FOUND');
    const empty = await refusal(simulatePush({ host: 'git-host-2', repository: 'demo-team/api-service', branch: 'main', message: '   ' }));
    expect(empty.code).toBe('VALIDATION_ERROR');
    expect(empty.fields).toHaveProperty('message');
  });
});

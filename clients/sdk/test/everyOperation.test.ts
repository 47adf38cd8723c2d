/**
 * Every /v1 operation of the generated `paths`, called once through the SDK with a typed call: the
 * table below must name each operation exactly once or it does not compile, and each answer must be
 * one the served document promises for that operation (a documented success, or an ApiError whose
 * status the operation documents with a code listed for that status).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, type CloudClient, type paths } from '@cloudpanel/sdk';
import { ALL_SCOPES, newWorld, type World } from '../../test/world.ts';

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
type Label = {
  [P in keyof paths & string]: { [M in Method]: [NonNullable<paths[P][M]>] extends [never] ? never : `${Uppercase<M>} ${P}` }[Method];
}[keyof paths & string];

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl every-operation';
const SECOND_PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILxMPUVehFVhxxc+1mMEdsyhsM2DHK7vM58X2oIZB5dh desktop';
/** The simulated image hub's demo account, which its description publishes for development panels. */
const IMAGE_HUB_DEMO = { username: 'demo', accessToken: 'dckr_pat_demo_simulator' };
/** Stands in for what the walk cannot make (an invoice before the month ends, an image nobody pushed): the operation answers its documented 404. */
const MADE_UP = 'made-up-0000';
const tag = () => randomBytes(4).toString('hex');

interface Ids {
  serverSize: string;
  serverRegion: string;
  appSize: string;
  appRegion: string;
  redisPlan: string;
  redisRegion: string;
  sshKey: string;
  generatedSshKey: string;
  secret: string;
  variable: string;
  webhook: string;
  delivery: string;
  apiKey: string;
  invitation: string;
  rejectedInvitation: string;
  rejectSecret: string;
  revokedInvitation: string;
  otherUserId: string;
  card: string;
  newCard: string;
  invoice: string;
  transfer: string;
  server: string;
  app: string;
  deployment: string;
  redis: string;
  domain: string;
  dnsZone: string;
  dnsRecord: string;
  imageHubNamespace: string;
  imageHubRepository: string;
  gitHost1State: string;
  /** The query the simulated host returns to the platform's callback with, after the consent. */
  gitHost2Return: URLSearchParams;
  gitHost3Return: URLSearchParams;
  gitHost2Repo: { owner: string; name: string; branch: string };
  gitHost3Project: string;
  bucket: string;
  bucketName: string;
  iamUser: string;
  credential: string;
  registry: string;
  repository: string;
  imageDigest: string;
  hosting: string;
  hostingDomain: string;
  hostingDatabase: string;
  databaseTenant: string;
  notification: string;
  newAccountEmail: string;
  resetMailed: boolean;
}

/** What the calls need: the customer's clients, a second customer invited into the project, and the ids made on the way. */
interface Walk {
  baseUrl: string;
  projectId: string;
  /** An API key of the project holding every scope. */
  client: CloudClient;
  /** The owner's panel session. */
  session: CloudClient;
  anonymous: CloudClient;
  other: World;
  /** The second customer's panel session. */
  otherSession: CloudClient;
  ids: Ids;
}

/** The status of the last answer any of the walk's clients received: the calls run one at a time. */
let lastStatus = 0;
const recordingFetch = async (request: Request) => {
  const response = await fetch(request);
  lastStatus = response.status;
  return response;
};

const inProject = (w: Walk) => ({ params: { path: { projectId: w.projectId } } });

async function mailedLink(baseUrl: string, to: string, pattern: RegExp): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const page = await fetch(`${baseUrl}/dev/mailbox?to=${encodeURIComponent(to)}`).then((res) => res.text());
    const found = pattern.exec(page)?.[1];
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${to} matching ${pattern}`);
}

/** Gives the consent on the simulated git host's page the start sent the browser to; answers the query it returns to the platform with. */
async function consentTo(authorizeUrl: string): Promise<URLSearchParams> {
  const url = new URL(authorizeUrl);
  const form = new URLSearchParams(url.searchParams);
  form.set('decision', 'allow');
  const answer = await fetch(new URL(url.pathname.replace(/\/authorize$/, '/authorizations'), url), {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: url.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return new URL(answer.headers.get('location') ?? authorizeUrl).searchParams;
}

const returnQuery = (back: URLSearchParams) => ({
  params: { query: { state: back.get('state') ?? MADE_UP, code: back.get('code') ?? undefined, error: back.get('error') ?? undefined } },
});

const calls: { [L in Label]: (w: Walk) => Promise<unknown> } = {
  // Catalogs: what the later purchases choose from.
  'GET /infra/servers/sizes': (w) => w.anonymous.get('/infra/servers/sizes'),
  'GET /catalog/servers/sizes': async (w) => {
    const sizes = await w.client.get('/catalog/servers/sizes');
    const size = sizes.find((s) => s.available && s.diskGb >= 25);
    if (size) {
      w.ids.serverSize = size.slug;
      w.ids.serverRegion = size.regions[0] ?? MADE_UP;
    }
    return sizes;
  },
  'GET /catalog/servers/regions': (w) => w.client.get('/catalog/servers/regions'),
  'GET /catalog/servers/1-clicks': (w) => w.client.get('/catalog/servers/1-clicks'),
  'GET /catalog/apps/sizes': async (w) => {
    const sizes = await w.client.get('/catalog/apps/sizes');
    w.ids.appSize = sizes[0]?.slug ?? 'basic';
    return sizes;
  },
  'GET /catalog/apps/regions': async (w) => {
    const regions = await w.client.get('/catalog/apps/regions');
    w.ids.appRegion = regions.find((r) => r.available)?.slug ?? MADE_UP;
    return regions;
  },
  'GET /infra/servers/regions': (w) => w.client.get('/infra/servers/regions'),
  'GET /infra/servers/1-clicks': (w) => w.client.get('/infra/servers/1-clicks'),
  'GET /infra/apps/sizes': (w) => w.client.get('/infra/apps/sizes'),
  'GET /infra/apps/regions': (w) => w.client.get('/infra/apps/regions'),
  'GET /redis/plans': async (w) => {
    const plans = await w.client.get('/redis/plans');
    const plan = plans.find((p) => p.regions.length > 0);
    if (plan) {
      w.ids.redisPlan = plan.slug;
      w.ids.redisRegion = plan.regions[0] ?? MADE_UP;
    }
    return plans;
  },
  'GET /redis/regions': (w) => w.client.get('/redis/regions'),
  'GET /webhooks/event-types': (w) => w.client.get('/webhooks/event-types'),
  'GET /domains/search': (w) => w.client.get('/domains/search', { params: { query: { query: `walk-${tag()}` } } }),

  // Signing up, confirming the address and choosing a new password, with the links the dev mailbox shows.
  'POST /accounts': (w) => w.anonymous.post('/accounts', { body: { name: 'Ada Lovelace', email: w.ids.newAccountEmail, password: `pw-${tag()}${tag()}` } }),
  'POST /accounts/verify-email': async (w) => {
    const token = await mailedLink(w.baseUrl, w.ids.newAccountEmail, /\/verify-email\/([A-Za-z0-9_-]+)/);
    return w.anonymous.post('/accounts/verify-email', { body: { token } });
  },
  'POST /accounts/restore': async (w) => {
    await w.anonymous.post('/accounts/restore', { body: { email: w.ids.newAccountEmail, locale: 'en' } });
    w.ids.resetMailed = true;
  },
  // Resets are limited per client address (5 in 10 minutes), which repeated runs on one machine reach: then there is no link to use.
  'POST /accounts/restore/complete': async (w) => {
    const token = w.ids.resetMailed
      ? await mailedLink(w.baseUrl, w.ids.newAccountEmail, /\/reset-password\/([A-Za-z0-9_-]+)/)
      : `${MADE_UP}-never-mailed-token`;
    return w.anonymous.post('/accounts/restore/complete', { body: { token, password: `pw-${tag()}${tag()}` } });
  },

  // The signed-in account.
  'GET /account': (w) => w.session.get('/account'),
  'PATCH /account': (w) => w.session.patch('/account', { body: { name: 'Grace B. Hopper' } }),
  'POST /account/verification-email': (w) => w.session.post('/account/verification-email', { body: {} }),

  // The project.
  'GET /projects': (w) => w.client.get('/projects'),
  'GET /projects/{projectId}': (w) => w.client.get('/projects/{projectId}', inProject(w)),
  'PATCH /projects/{projectId}': (w) => w.client.patch('/projects/{projectId}', { ...inProject(w), body: { name: `Every operation ${tag()}` } }),
  'PATCH /projects/{projectId}/billing-email': (w) =>
    w.client.patch('/projects/{projectId}/billing-email', { ...inProject(w), body: { billingEmail: `billing-${tag()}@example.com` } }),
  'GET /projects/{projectId}/stats': (w) => w.client.get('/projects/{projectId}/stats', inProject(w)),
  'POST /projects/create': (w) => w.client.post('/projects/create', { body: { name: `Second ${tag()}` } }),

  // API keys (the panel session only).
  'GET /projects/{projectId}/api-keys': (w) => w.session.get('/projects/{projectId}/api-keys', inProject(w)),
  'POST /projects/{projectId}/api-keys': async (w) => {
    const key = await w.session.post('/projects/{projectId}/api-keys', { ...inProject(w), body: { name: 'short-lived', scopes: ['servers:read'] } });
    w.ids.apiKey = key.id;
    return key;
  },

  // Members and invitations: the second customer is invited, reads the invitation, accepts it and is made an admin.
  'GET /projects/{projectId}/members': (w) => w.client.get('/projects/{projectId}/members', inProject(w)),
  'POST /projects/{projectId}/invitations': async (w) => {
    const invitation = await w.client.post('/projects/{projectId}/invitations', { ...inProject(w), body: { email: w.other.email, role: 'member' } });
    w.ids.invitation = invitation.id;
    return invitation;
  },
  'GET /projects/{projectId}/invitations': (w) => w.client.get('/projects/{projectId}/invitations', inProject(w)),
  'GET /invitations/{invitationId}': (w) => w.anonymous.get('/invitations/{invitationId}', { params: { path: { invitationId: w.ids.invitation } } }),
  'GET /invitations': (w) => w.otherSession.get('/invitations'),
  'POST /invitations/{invitationId}/accept': (w) =>
    w.otherSession.post('/invitations/{invitationId}/accept', { params: { path: { invitationId: w.ids.invitation } }, body: {} }),
  'POST /invitations/{invitationId}/reject': (w) =>
    w.otherSession.post('/invitations/{invitationId}/reject', {
      params: { path: { invitationId: w.ids.rejectedInvitation } },
      body: { secret: w.ids.rejectSecret },
    }),
  'PATCH /projects/{projectId}/members/{userId}': (w) =>
    w.client.patch('/projects/{projectId}/members/{userId}', {
      params: { path: { projectId: w.projectId, userId: w.ids.otherUserId } },
      body: { role: 'admin' },
    }),

  // Cards.
  'GET /projects/{projectId}/billing/payment-methods': async (w) => {
    const cards = await w.client.get('/projects/{projectId}/billing/payment-methods', inProject(w));
    w.ids.card = cards.find((c) => c.isDefault)?.id ?? MADE_UP;
    return cards;
  },
  'POST /projects/{projectId}/billing/payment-methods': async (w) => {
    const card = await w.client.post('/projects/{projectId}/billing/payment-methods', {
      ...inProject(w),
      body: { cardNumber: '5555 5555 5555 4444', expMonth: 6, expYear: new Date().getUTCFullYear() + 3, cvc: '321' },
    });
    w.ids.newCard = card.id;
    return card;
  },
  'POST /projects/{projectId}/billing/payment-methods/setup': (w) => w.client.post('/projects/{projectId}/billing/payment-methods/setup', inProject(w)),
  'POST /projects/{projectId}/billing/payment-methods/{paymentMethodId}/default': (w) =>
    w.client.post('/projects/{projectId}/billing/payment-methods/{paymentMethodId}/default', {
      params: { path: { projectId: w.projectId, paymentMethodId: w.ids.newCard } },
    }),

  // SSH keys.
  'GET /projects/{projectId}/ssh-keys': (w) => w.client.get('/projects/{projectId}/ssh-keys', inProject(w)),
  'POST /projects/{projectId}/ssh-keys': (w) =>
    w.client.post('/projects/{projectId}/ssh-keys', { ...inProject(w), body: { name: 'desktop', publicKey: SECOND_PUBLIC_KEY } }),
  'POST /projects/{projectId}/ssh-keys/generate': async (w) => {
    const key = await w.client.post('/projects/{projectId}/ssh-keys/generate', { ...inProject(w), body: { name: 'generated' } });
    w.ids.generatedSshKey = key.id;
    return key;
  },

  // Servers.
  'GET /projects/{projectId}/servers/preview': (w) =>
    w.client.get('/projects/{projectId}/servers/preview', {
      params: { path: { projectId: w.projectId }, query: { provider: 'infra', slug: w.ids.serverSize } },
    }),
  'POST /projects/{projectId}/servers': (w) =>
    w.client.post('/projects/{projectId}/servers', {
      ...inProject(w),
      body: { name: 'walk-1', slug: w.ids.serverSize, provider: 'infra', region: w.ids.serverRegion, sshKeyIds: [w.ids.sshKey] },
    }),
  'GET /projects/{projectId}/servers': async (w) => {
    const servers = await w.client.get('/projects/{projectId}/servers', inProject(w));
    w.ids.server = servers.find((s) => s.name === 'walk-1')?.id ?? MADE_UP;
    return servers;
  },
  'GET /projects/{projectId}/servers/{serverId}': (w) =>
    w.client.get('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: w.projectId, serverId: w.ids.server } } }),
  'PATCH /projects/{projectId}/servers/{serverId}': (w) =>
    w.client.patch('/projects/{projectId}/servers/{serverId}', {
      params: { path: { projectId: w.projectId, serverId: w.ids.server } },
      body: { name: 'walk-2' },
    }),

  // Redis.
  'GET /projects/{projectId}/redis/preview': (w) =>
    w.client.get('/projects/{projectId}/redis/preview', {
      params: { path: { projectId: w.projectId }, query: { planSlug: w.ids.redisPlan, replication: 'false' } },
    }),
  'POST /projects/{projectId}/redis': async (w) => {
    const redis = await w.client.post('/projects/{projectId}/redis', {
      ...inProject(w),
      body: { name: 'walk-cache', planSlug: w.ids.redisPlan, region: w.ids.redisRegion },
    });
    w.ids.redis = redis.id;
    return redis;
  },
  'GET /projects/{projectId}/redis': (w) => w.client.get('/projects/{projectId}/redis', inProject(w)),
  'GET /projects/{projectId}/redis/{redisId}': (w) =>
    w.client.get('/projects/{projectId}/redis/{redisId}', { params: { path: { projectId: w.projectId, redisId: w.ids.redis } } }),
  'GET /projects/{projectId}/redis/{redisId}/usage': (w) =>
    w.client.get('/projects/{projectId}/redis/{redisId}/usage', { params: { path: { projectId: w.projectId, redisId: w.ids.redis } } }),

  // The DNS provider, connected with a token of a fresh simulated account, then a domain in one of its zones.
  'GET /projects/{projectId}/integrations/dns-provider': (w) => w.client.get('/projects/{projectId}/integrations/dns-provider', inProject(w)),
  'GET /projects/{projectId}/integrations/dns-provider/connect/oauth': (w) =>
    w.client.get('/projects/{projectId}/integrations/dns-provider/connect/oauth', {
      params: { path: { projectId: w.projectId }, query: { redirect: '/settings' } },
    }),
  'GET /integrations/dns-provider/callback': (w) =>
    w.anonymous.get('/integrations/dns-provider/callback', { params: { query: { state: MADE_UP, code: 'walk-code' } } }),
  'POST /projects/{projectId}/integrations/dns-provider/connect/token': (w) =>
    w.client.post('/projects/{projectId}/integrations/dns-provider/connect/token', { ...inProject(w), body: { apiToken: randomBytes(20).toString('hex') } }),
  'PATCH /projects/{projectId}/integrations/dns-provider/settings': (w) =>
    w.client.patch('/projects/{projectId}/integrations/dns-provider/settings', { ...inProject(w), body: { autoDnsEnabled: false } }),
  'GET /projects/{projectId}/integrations/dns-provider/zones': async (w) => {
    const zones = await w.client.get('/projects/{projectId}/integrations/dns-provider/zones', inProject(w));
    if (zones[0]) {
      w.ids.dnsZone = zones[0].id;
      w.ids.domain = `walk-${tag()}.${zones[0].name}`;
    }
    return zones;
  },
  'GET /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records': (w) =>
    w.client.get('/projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records', {
      params: { path: { projectId: w.projectId, zoneId: w.ids.dnsZone } },
    }),
  'POST /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records': async (w) => {
    const record = await w.client.post('/projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records', {
      params: { path: { projectId: w.projectId, zoneId: w.ids.dnsZone } },
      body: { type: 'A', name: `walk-${tag()}`, content: '93.184.216.34', ttl: 300, proxied: false },
    });
    w.ids.dnsRecord = record.id;
    return record;
  },
  'PATCH /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records/{recordId}': (w) =>
    w.client.patch('/projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records/{recordId}', {
      params: { path: { projectId: w.projectId, zoneId: w.ids.dnsZone, recordId: w.ids.dnsRecord } },
      body: { type: 'A', name: `walk-${tag()}`, content: '93.184.216.35', ttl: 600, proxied: false },
    }),
  'POST /projects/{projectId}/domains': (w) =>
    w.client.post('/projects/{projectId}/domains', { ...inProject(w), body: { name: w.ids.domain, type: 'EXTERNAL' } }),
  'GET /projects/{projectId}/domains': (w) => w.client.get('/projects/{projectId}/domains', inProject(w)),
  'GET /projects/{projectId}/domains/{domain}': (w) =>
    w.client.get('/projects/{projectId}/domains/{domain}', { params: { path: { projectId: w.projectId, domain: w.ids.domain } } }),
  'POST /projects/{projectId}/domains/{domain}/verification-record': (w) =>
    w.client.post('/projects/{projectId}/domains/{domain}/verification-record', { params: { path: { projectId: w.projectId, domain: w.ids.domain } } }),
  'POST /projects/{projectId}/domains/{domain}/verify': (w) =>
    w.client.post('/projects/{projectId}/domains/{domain}/verify', { params: { path: { projectId: w.projectId, domain: w.ids.domain } } }),

  // The image hub, signed in as the simulator's demo account.
  'POST /projects/{projectId}/integrations/image-hub/connect': (w) =>
    w.client.post('/projects/{projectId}/integrations/image-hub/connect', { ...inProject(w), body: IMAGE_HUB_DEMO }),
  'GET /projects/{projectId}/integrations/image-hub/status': (w) => w.client.get('/projects/{projectId}/integrations/image-hub/status', inProject(w)),
  'GET /projects/{projectId}/integrations/image-hub/repositories': async (w) => {
    const repositories = await w.client.get('/projects/{projectId}/integrations/image-hub/repositories', inProject(w));
    if (repositories[0]) {
      w.ids.imageHubNamespace = repositories[0].namespace;
      w.ids.imageHubRepository = repositories[0].name;
    }
    return repositories;
  },
  'GET /projects/{projectId}/integrations/image-hub/tags': (w) =>
    w.client.get('/projects/{projectId}/integrations/image-hub/tags', {
      params: { path: { projectId: w.projectId }, query: { namespace: w.ids.imageHubNamespace, repository: w.ids.imageHubRepository } },
    }),

  // Git host 1 stays unconnected: its app would be installed on the simulator's one shared account, and disconnecting the last
  // project that links it uninstalls it there, under the feet of other tests running at the same time.
  'GET /projects/{projectId}/integrations/git-host-1/connect': async (w) => {
    const start = await w.client.get('/projects/{projectId}/integrations/git-host-1/connect', inProject(w));
    w.ids.gitHost1State = new URL(start.location).searchParams.get('state') ?? MADE_UP;
    return start;
  },
  'GET /integrations/git-host-1/setup': (w) =>
    w.anonymous.get('/integrations/git-host-1/setup', {
      params: { query: { state: w.ids.gitHost1State, installation_id: '12345678', setup_action: 'install' } },
    }),
  'GET /integrations/git-host-1/callback': (w) =>
    w.anonymous.get('/integrations/git-host-1/callback', { params: { query: { state: MADE_UP, code: 'walk-code' } } }),
  'GET /projects/{projectId}/integrations/git-host-1/status': (w) => w.client.get('/projects/{projectId}/integrations/git-host-1/status', inProject(w)),
  'GET /projects/{projectId}/integrations/git-host-1/packages': (w) => w.client.get('/projects/{projectId}/integrations/git-host-1/packages', inProject(w)),
  'GET /projects/{projectId}/integrations/git-host-1/package-tags': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-1/package-tags', {
      params: { path: { projectId: w.projectId }, query: { owner: 'example', package: 'web' } },
    }),
  'GET /projects/{projectId}/integrations/git-host-1/linkable-installations': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-1/linkable-installations', inProject(w)),
  'POST /projects/{projectId}/integrations/git-host-1/link': (w) =>
    w.client.post('/projects/{projectId}/integrations/git-host-1/link', { ...inProject(w), body: { installationId: '12345678' } }),
  'GET /projects/{projectId}/integrations/git-host-1/repos': (w) => w.client.get('/projects/{projectId}/integrations/git-host-1/repos', inProject(w)),
  'GET /projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/contents/{path}': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/contents/{path}', {
      params: { path: { projectId: w.projectId, owner: 'example', repo: 'web', path: 'README.md' }, query: { ref: 'main' } },
    }),
  'GET /projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/app-template': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/app-template', {
      params: { path: { projectId: w.projectId, owner: 'example', repo: 'web' } },
    }),
  'GET /projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/branches': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-1/repos/{owner}/{repo}/branches', {
      params: { path: { projectId: w.projectId, owner: 'example', repo: 'web' }, query: { page: 1 } },
    }),

  // Git hosts 2 and 3, connected the way a browser does: the start's address, the simulated host's consent, the return.
  'GET /projects/{projectId}/integrations/git-host-2/connect': async (w) => {
    const start = await w.client.get('/projects/{projectId}/integrations/git-host-2/connect', inProject(w));
    w.ids.gitHost2Return = await consentTo(start.location);
    return start;
  },
  'GET /integrations/git-host-2/callback': (w) => w.anonymous.get('/integrations/git-host-2/callback', returnQuery(w.ids.gitHost2Return)),
  'GET /projects/{projectId}/integrations/git-host-2/status': (w) => w.client.get('/projects/{projectId}/integrations/git-host-2/status', inProject(w)),
  'GET /projects/{projectId}/integrations/git-host-2/repos': async (w) => {
    const repos = await w.client.get('/projects/{projectId}/integrations/git-host-2/repos', inProject(w));
    if (repos[0]) w.ids.gitHost2Repo = { owner: repos[0].owner, name: repos[0].name, branch: repos[0].defaultBranch };
    return repos;
  },
  'GET /projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/contents/{path}': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/contents/{path}', {
      params: { path: { projectId: w.projectId, workspace: w.ids.gitHost2Repo.owner, repo: w.ids.gitHost2Repo.name, path: '' } },
    }),
  'GET /projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/app-template': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/app-template', {
      params: {
        path: { projectId: w.projectId, workspace: w.ids.gitHost2Repo.owner, repo: w.ids.gitHost2Repo.name },
        query: { ref: w.ids.gitHost2Repo.branch },
      },
    }),
  'GET /projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/branches': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-2/repos/{workspace}/{repo}/branches', {
      params: { path: { projectId: w.projectId, workspace: w.ids.gitHost2Repo.owner, repo: w.ids.gitHost2Repo.name } },
    }),
  'GET /projects/{projectId}/integrations/git-host-3/connect': async (w) => {
    const start = await w.client.get('/projects/{projectId}/integrations/git-host-3/connect', inProject(w));
    w.ids.gitHost3Return = await consentTo(start.location);
    return start;
  },
  'GET /integrations/git-host-3/callback': (w) => w.anonymous.get('/integrations/git-host-3/callback', returnQuery(w.ids.gitHost3Return)),
  'GET /projects/{projectId}/integrations/git-host-3/status': (w) => w.client.get('/projects/{projectId}/integrations/git-host-3/status', inProject(w)),
  'GET /projects/{projectId}/integrations/git-host-3/repos': async (w) => {
    const repos = await w.client.get('/projects/{projectId}/integrations/git-host-3/repos', inProject(w));
    if (repos[0]) w.ids.gitHost3Project = repos[0].fullName;
    return repos;
  },
  'GET /projects/{projectId}/integrations/git-host-3/repos/{project}/contents/{path}': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-3/repos/{project}/contents/{path}', {
      params: { path: { projectId: w.projectId, project: w.ids.gitHost3Project, path: '' } },
    }),
  'GET /projects/{projectId}/integrations/git-host-3/repos/{project}/app-template': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-3/repos/{project}/app-template', {
      params: { path: { projectId: w.projectId, project: w.ids.gitHost3Project } },
    }),
  'GET /projects/{projectId}/integrations/git-host-3/repos/{project}/branches': (w) =>
    w.client.get('/projects/{projectId}/integrations/git-host-3/repos/{project}/branches', {
      params: { path: { projectId: w.projectId, project: w.ids.gitHost3Project }, query: { page: 1 } },
    }),

  // Apps, from a repository of git host 2.
  'GET /projects/{projectId}/apps/preview': (w) =>
    w.client.get('/projects/{projectId}/apps/preview', { params: { path: { projectId: w.projectId }, query: { instanceSize: w.ids.appSize, instances: 2 } } }),
  'POST /projects/{projectId}/apps': async (w) => {
    const app = await w.client.post('/projects/{projectId}/apps', {
      ...inProject(w),
      body: {
        name: 'walk-app',
        gitHost: 'git-host-2',
        repository: `${w.ids.gitHost2Repo.owner}/${w.ids.gitHost2Repo.name}`,
        branch: w.ids.gitHost2Repo.branch,
        service: { name: 'web', instanceSize: w.ids.appSize, region: w.ids.appRegion },
        autoDeploy: true,
      },
    });
    w.ids.app = app.id;
    return app;
  },
  'GET /projects/{projectId}/apps': (w) => w.client.get('/projects/{projectId}/apps', inProject(w)),
  'GET /projects/{projectId}/apps/{appId}': (w) =>
    w.client.get('/projects/{projectId}/apps/{appId}', { params: { path: { projectId: w.projectId, appId: w.ids.app } } }),
  'PATCH /projects/{projectId}/apps/{appId}': (w) =>
    w.client.patch('/projects/{projectId}/apps/{appId}', { params: { path: { projectId: w.projectId, appId: w.ids.app } }, body: { autoDeploy: false } }),
  'POST /projects/{projectId}/apps/{appId}/deployments': async (w) => {
    const deployment = await w.client.post('/projects/{projectId}/apps/{appId}/deployments', {
      params: { path: { projectId: w.projectId, appId: w.ids.app } },
    });
    w.ids.deployment = deployment.id;
    return deployment;
  },
  'GET /projects/{projectId}/apps/{appId}/deployments': (w) =>
    w.client.get('/projects/{projectId}/apps/{appId}/deployments', { params: { path: { projectId: w.projectId, appId: w.ids.app } } }),
  'GET /projects/{projectId}/apps/{appId}/deployments/{deploymentId}': (w) =>
    w.client.get('/projects/{projectId}/apps/{appId}/deployments/{deploymentId}', {
      params: { path: { projectId: w.projectId, appId: w.ids.app, deploymentId: w.ids.deployment } },
    }),

  // Object storage and its credentials.
  'GET /projects/{projectId}/storage/object-storage/preview': (w) =>
    w.client.get('/projects/{projectId}/storage/object-storage/preview', {
      params: { path: { projectId: w.projectId }, query: { provider: 'S3_PROVIDER', tier: 'STARTER' } },
    }),
  'POST /projects/{projectId}/storage/object-storage': (w) =>
    w.client.post('/projects/{projectId}/storage/object-storage', {
      ...inProject(w),
      body: { name: w.ids.bucketName, provider: 'S3_PROVIDER', region: 'fra1', tier: 'STARTER', publicAccess: true, versioning: false },
    }),
  'GET /projects/{projectId}/storage/object-storage': async (w) => {
    const buckets = await w.client.get('/projects/{projectId}/storage/object-storage', inProject(w));
    w.ids.bucket = buckets.find((b) => b.name === w.ids.bucketName)?.id ?? MADE_UP;
    return buckets;
  },
  'GET /projects/{projectId}/storage/object-storage/{bucketId}/usage': (w) =>
    w.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/usage', { params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } } }),
  'GET /projects/{projectId}/storage/object-storage/{bucketId}/plan-preview': (w) =>
    w.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/plan-preview', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket }, query: { tier: 'GROWTH' } },
    }),
  'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/tier': (w) =>
    w.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/tier', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } },
      body: { tier: 'GROWTH' },
    }),
  'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/cors': (w) =>
    w.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cors', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } },
      body: { corsRules: [{ allowedOrigins: ['https://walk.example.com'], allowedMethods: ['GET', 'HEAD'], maxAgeSeconds: 600 }] },
    }),
  'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/cdn': (w) =>
    w.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cdn', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } },
      body: { cdnEnabled: true },
    }),
  'GET /projects/{projectId}/storage/object-storage/{bucketId}/credentials': (w) =>
    w.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/credentials', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } },
    }),
  'POST /projects/{projectId}/storage/object-storage/{bucketId}/iam-users': async (w) => {
    const user = await w.client.post('/projects/{projectId}/storage/object-storage/{bucketId}/iam-users', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } },
    });
    w.ids.iamUser = user.iamUserName;
    return user;
  },
  'GET /projects/{projectId}/storage/object-storage/{bucketId}/iam-users': (w) =>
    w.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/iam-users', { params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } } }),
  'POST /projects/{projectId}/iam': async (w) => {
    const credential = await w.client.post('/projects/{projectId}/iam', {
      ...inProject(w),
      body: { name: 'walk-reader', bucketIds: [w.ids.bucket], access: 'read' },
    });
    w.ids.credential = credential.id;
    return credential;
  },
  'GET /projects/{projectId}/iam': (w) => w.client.get('/projects/{projectId}/iam', inProject(w)),
  'PATCH /projects/{projectId}/iam/{credentialId}': (w) =>
    w.client.patch('/projects/{projectId}/iam/{credentialId}', {
      params: { path: { projectId: w.projectId, credentialId: w.ids.credential } },
      body: { access: 'write' },
    }),

  // The container registry.
  'GET /projects/{projectId}/storage/container-registry/regions': (w) => w.client.get('/projects/{projectId}/storage/container-registry/regions', inProject(w)),
  'GET /projects/{projectId}/storage/container-registry/preview': (w) => w.client.get('/projects/{projectId}/storage/container-registry/preview', inProject(w)),
  'POST /projects/{projectId}/storage/container-registry': async (w) => {
    const registry = await w.client.post('/projects/{projectId}/storage/container-registry', {
      ...inProject(w),
      body: { name: `walk-${tag()}`, region: 'fra1' },
    });
    w.ids.registry = registry.id;
    return registry;
  },
  'GET /projects/{projectId}/storage/container-registry': (w) => w.client.get('/projects/{projectId}/storage/container-registry', inProject(w)),
  'GET /projects/{projectId}/storage/container-registry/{id}': (w) =>
    w.client.get('/projects/{projectId}/storage/container-registry/{id}', { params: { path: { projectId: w.projectId, id: w.ids.registry } } }),
  'PATCH /projects/{projectId}/storage/container-registry/{id}': (w) =>
    w.client.patch('/projects/{projectId}/storage/container-registry/{id}', {
      params: { path: { projectId: w.projectId, id: w.ids.registry } },
      body: { scanOnPush: true, lifecycleEnabled: true, lifecycleKeepLastN: 10 },
    }),
  'POST /projects/{projectId}/storage/container-registry/{id}/repositories': async (w) => {
    const repository = await w.client.post('/projects/{projectId}/storage/container-registry/{id}/repositories', {
      params: { path: { projectId: w.projectId, id: w.ids.registry } },
      body: { name: 'web', visibility: 'PRIVATE' },
    });
    w.ids.repository = repository.id;
    return repository;
  },
  'GET /projects/{projectId}/storage/container-registry/{id}/repositories': (w) =>
    w.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories', { params: { path: { projectId: w.projectId, id: w.ids.registry } } }),
  'GET /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}': (w) =>
    w.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository } },
    }),
  'PATCH /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}': (w) =>
    w.client.patch('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository } },
      body: { gcEnabled: true, gcKeepLastN: 5, gcDeleteUntagged: true, gcUntaggedAfterDays: 7 },
    }),
  'GET /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/credentials': (w) =>
    w.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/credentials', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository } },
    }),
  'GET /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images': async (w) => {
    const images = await w.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository } },
    });
    w.ids.imageDigest = images[0]?.digest ?? w.ids.imageDigest;
    return images;
  },

  // Shared hosting: a site, its domains, databases and files.
  'GET /projects/{projectId}/hosting/shared/prices': (w) => w.client.get('/projects/{projectId}/hosting/shared/prices', inProject(w)),
  'GET /projects/{projectId}/hosting/shared/features': (w) => w.client.get('/projects/{projectId}/hosting/shared/features', inProject(w)),
  'GET /projects/{projectId}/hosting/shared/preview': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/preview', {
      params: { path: { projectId: w.projectId }, query: { tier: 'STARTER', extraStorageGb: 0 } },
    }),
  'POST /projects/{projectId}/hosting/shared': async (w) => {
    const site = await w.client.post('/projects/{projectId}/hosting/shared', {
      ...inProject(w),
      body: { siteName: `walk_${tag()}`, tier: 'STARTER', phpVersion: '8.3' },
    });
    w.ids.hosting = site.tenantId;
    return site;
  },
  'GET /projects/{projectId}/hosting/shared': (w) => w.client.get('/projects/{projectId}/hosting/shared', inProject(w)),
  'GET /projects/{projectId}/hosting/shared/{tenantId}': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { credentials: 'false' } },
    }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/access': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/access', { params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } } }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/tier-preview': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/tier-preview', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { tier: 'GROWTH' } },
    }),
  'PATCH /projects/{projectId}/hosting/shared/{tenantId}/tier': (w) =>
    w.client.patch('/projects/{projectId}/hosting/shared/{tenantId}/tier', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { tier: 'GROWTH' },
    }),
  'POST /projects/{projectId}/hosting/shared/{tenantId}/domains': async (w) => {
    const domain = await w.client.post('/projects/{projectId}/hosting/shared/{tenantId}/domains', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { hostname: `site-${tag()}.example.com`, kind: 'SITE' },
    });
    w.ids.hostingDomain = domain.domainId;
    return domain;
  },
  'GET /projects/{projectId}/hosting/shared/{tenantId}/domains': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/domains', { params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } } }),
  'PATCH /projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}': (w) =>
    w.client.patch('/projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting, domainId: w.ids.hostingDomain } },
      body: { kind: 'REDIRECT', redirectTarget: 'https://example.org/', redirectStatus: 301 },
    }),
  'POST /projects/{projectId}/hosting/shared/{tenantId}/databases': async (w) => {
    const database = await w.client.post('/projects/{projectId}/hosting/shared/{tenantId}/databases', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { name: 'blog' },
    });
    w.ids.hostingDatabase = database.id;
    return database;
  },
  'GET /projects/{projectId}/hosting/shared/{tenantId}/databases': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases', { params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } } }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting, databaseId: w.ids.hostingDatabase } },
    }),
  'PUT /projects/{projectId}/hosting/shared/{tenantId}/files/content': (w) =>
    w.client.put('/projects/{projectId}/hosting/shared/{tenantId}/files/content', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { path: 'public_html/index.html', content: '<h1>walked</h1>\n' },
    }),
  'POST /projects/{projectId}/hosting/shared/{tenantId}/files/upload': (w) =>
    w.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/upload', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { path: 'public_html', name: 'logo.bin' } },
      body: new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])]),
    }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/files/download': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files/download', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { path: 'public_html/logo.bin' } },
    }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/files': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { path: 'public_html' } },
    }),
  'GET /projects/{projectId}/hosting/shared/{tenantId}/files/content': (w) =>
    w.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files/content', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { path: 'public_html/index.html' } },
    }),
  'POST /projects/{projectId}/hosting/shared/{tenantId}/files/folders': (w) =>
    w.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/folders', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { path: 'public_html/old' },
    }),
  'POST /projects/{projectId}/hosting/shared/{tenantId}/files/rename': (w) =>
    w.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/rename', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } },
      body: { from: 'public_html/index.html', to: 'public_html/old/index.html' },
    }),

  // Shared PostgreSQL tenants (the panel session only).
  'GET /projects/{projectId}/databases/shared/availability': (w) => w.session.get('/projects/{projectId}/databases/shared/availability', inProject(w)),
  'GET /projects/{projectId}/databases/shared/prices': (w) => w.session.get('/projects/{projectId}/databases/shared/prices', inProject(w)),
  'GET /projects/{projectId}/databases/shared/preview': (w) =>
    w.session.get('/projects/{projectId}/databases/shared/preview', { params: { path: { projectId: w.projectId }, query: { tier: 'MICRO' } } }),
  'POST /projects/{projectId}/databases/shared': async (w) => {
    const tenant = await w.session.post('/projects/{projectId}/databases/shared', {
      ...inProject(w),
      body: { dbName: `walk_${tag()}`, tier: 'MICRO', poolMode: 'TRANSACTION' },
    });
    w.ids.databaseTenant = tenant.tenantId;
    return tenant;
  },
  'GET /projects/{projectId}/databases/shared': (w) => w.session.get('/projects/{projectId}/databases/shared', inProject(w)),
  'GET /projects/{projectId}/databases/shared/{tenantId}': (w) =>
    w.session.get('/projects/{projectId}/databases/shared/{tenantId}', { params: { path: { projectId: w.projectId, tenantId: w.ids.databaseTenant } } }),
  'POST /projects/{projectId}/databases/shared/{tenantId}/rotate-password': (w) =>
    w.session.post('/projects/{projectId}/databases/shared/{tenantId}/rotate-password', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.databaseTenant } },
    }),
  'GET /projects/{projectId}/databases/shared/{tenantId}/tier-preview': (w) =>
    w.session.get('/projects/{projectId}/databases/shared/{tenantId}/tier-preview', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.databaseTenant }, query: { tier: 'STARTER' } },
    }),
  'PATCH /projects/{projectId}/databases/shared/{tenantId}/tier': (w) =>
    w.session.patch('/projects/{projectId}/databases/shared/{tenantId}/tier', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.databaseTenant } },
      body: { tier: 'STARTER' },
    }),

  // Secrets.
  'GET /projects/{projectId}/secrets': (w) =>
    w.client.get('/projects/{projectId}/secrets', { params: { path: { projectId: w.projectId }, query: { environment: 'production', effective: 'true' } } }),
  'POST /projects/{projectId}/secrets': (w) =>
    w.client.post('/projects/{projectId}/secrets', {
      ...inProject(w),
      body: { name: 'STRIPE_KEY', value: `sk_${tag()}`, description: 'payments', environment: 'staging' },
    }),
  'GET /projects/{projectId}/secrets/usage': (w) => w.client.get('/projects/{projectId}/secrets/usage', inProject(w)),
  'GET /projects/{projectId}/secrets/upgrade/preview': (w) =>
    w.client.get('/projects/{projectId}/secrets/upgrade/preview', { params: { path: { projectId: w.projectId }, query: { packs: 1 } } }),
  'POST /projects/{projectId}/secrets/upgrade': (w) => w.client.post('/projects/{projectId}/secrets/upgrade', { ...inProject(w), body: { packs: 1 } }),
  'GET /projects/{projectId}/secrets/{secretId}': (w) =>
    w.client.get('/projects/{projectId}/secrets/{secretId}', { params: { path: { projectId: w.projectId, secretId: w.ids.secret } } }),
  'PATCH /projects/{projectId}/secrets/{secretId}': (w) =>
    w.client.patch('/projects/{projectId}/secrets/{secretId}', {
      params: { path: { projectId: w.projectId, secretId: w.ids.secret } },
      body: { value: `rotated-${tag()}`, description: 'rotated' },
    }),
  'GET /projects/{projectId}/secrets/{secretId}/audit': (w) =>
    w.client.get('/projects/{projectId}/secrets/{secretId}/audit', { params: { path: { projectId: w.projectId, secretId: w.ids.secret } } }),

  // Variables.
  'GET /projects/{projectId}/variables': (w) =>
    w.client.get('/projects/{projectId}/variables', { params: { path: { projectId: w.projectId }, query: { environment: 'default' } } }),
  'POST /projects/{projectId}/variables': (w) =>
    w.client.post('/projects/{projectId}/variables', {
      ...inProject(w),
      body: { name: 'LOG_LEVEL', value: 'debug', environment: 'staging', description: null },
    }),
  'GET /projects/{projectId}/variables/effective': (w) =>
    w.client.get('/projects/{projectId}/variables/effective', { params: { path: { projectId: w.projectId }, query: { environment: 'staging' } } }),
  'POST /projects/{projectId}/variables/import': (w) =>
    w.client.post('/projects/{projectId}/variables/import', {
      ...inProject(w),
      body: { environment: 'development', content: 'PORT=8080\nHOST=0.0.0.0\n', overwrite: true },
    }),
  'GET /projects/{projectId}/variables/{variableId}': (w) =>
    w.client.get('/projects/{projectId}/variables/{variableId}', { params: { path: { projectId: w.projectId, variableId: w.ids.variable } } }),
  'PATCH /projects/{projectId}/variables/{variableId}': (w) =>
    w.client.patch('/projects/{projectId}/variables/{variableId}', {
      params: { path: { projectId: w.projectId, variableId: w.ids.variable } },
      body: { value: 'https://walk.example.com', description: 'where the site lives' },
    }),

  // Webhook endpoints.
  'GET /projects/{projectId}/webhooks': (w) => w.client.get('/projects/{projectId}/webhooks', inProject(w)),
  'POST /projects/{projectId}/webhooks': (w) =>
    w.client.post('/projects/{projectId}/webhooks', {
      ...inProject(w),
      body: { url: 'https://93.184.216.34/hooks/second', events: ['server.created'], description: 'second' },
    }),
  'GET /projects/{projectId}/webhooks/{endpointId}': (w) =>
    w.client.get('/projects/{projectId}/webhooks/{endpointId}', { params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } } }),
  'PATCH /projects/{projectId}/webhooks/{endpointId}': (w) =>
    w.client.patch('/projects/{projectId}/webhooks/{endpointId}', {
      params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } },
      body: { description: 'every operation', events: ['server.created', 'server.deleted'] },
    }),
  'POST /projects/{projectId}/webhooks/{endpointId}/rotate-secret': (w) =>
    w.client.post('/projects/{projectId}/webhooks/{endpointId}/rotate-secret', { params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } } }),
  'POST /projects/{projectId}/webhooks/{endpointId}/pause': (w) =>
    w.client.post('/projects/{projectId}/webhooks/{endpointId}/pause', { params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } } }),
  'POST /projects/{projectId}/webhooks/{endpointId}/resume': (w) =>
    w.client.post('/projects/{projectId}/webhooks/{endpointId}/resume', { params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } } }),
  'POST /projects/{projectId}/webhooks/{endpointId}/test': async (w) => {
    const delivery = await w.client.post('/projects/{projectId}/webhooks/{endpointId}/test', {
      params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } },
    });
    w.ids.delivery = delivery.id;
    return delivery;
  },
  'GET /projects/{projectId}/webhooks/{endpointId}/deliveries': (w) =>
    w.client.get('/projects/{projectId}/webhooks/{endpointId}/deliveries', {
      params: { path: { projectId: w.projectId, endpointId: w.ids.webhook }, query: { limit: 10 } },
    }),
  'POST /projects/{projectId}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver': (w) =>
    w.client.post('/projects/{projectId}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver', {
      params: { path: { projectId: w.projectId, endpointId: w.ids.webhook, deliveryId: w.ids.delivery } },
    }),

  // Notifications and the audit log.
  'GET /notifications': async (w) => {
    const { notifications } = await w.client.get('/notifications', { params: { query: { limit: 20 } } });
    w.ids.notification = notifications[0]?.id ?? MADE_UP;
    return notifications;
  },
  'GET /notifications/unread-count': (w) => w.client.get('/notifications/unread-count'),
  'PATCH /notifications/{id}/read': (w) => w.client.patch('/notifications/{id}/read', { params: { path: { id: w.ids.notification } } }),
  'PATCH /notifications/read-all': (w) => w.client.patch('/notifications/read-all', { body: {} }),
  'GET /projects/{projectId}/audit-log': (w) =>
    w.client.get('/projects/{projectId}/audit-log', { params: { path: { projectId: w.projectId }, query: { outcome: 'ok', limit: 50 } } }),

  // The hosts' webhooks, unsigned: refused.
  'POST /integrations/git-host-1/webhook': (w) =>
    w.anonymous.post('/integrations/git-host-1/webhook', {
      params: { header: { 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}`, 'X-GitHub-Delivery': `walk-${tag()}`, 'X-GitHub-Event': 'push' } },
      body: { ref: 'refs/heads/main' },
    }),
  'POST /integrations/git-host-2/webhook': (w) =>
    w.anonymous.post('/integrations/git-host-2/webhook', {
      params: {
        query: { hook: MADE_UP },
        header: { 'X-Hub-Signature': `sha256=${'0'.repeat(64)}`, 'X-Request-UUID': `walk-${tag()}`, 'X-Event-Key': 'repo:push' },
      },
      body: { push: { changes: [] } },
    }),
  'POST /integrations/git-host-3/webhook': (w) =>
    w.anonymous.post('/integrations/git-host-3/webhook', {
      params: {
        query: { hook: MADE_UP },
        header: { 'X-Gitlab-Token': 'not-the-token', 'X-Gitlab-Event-UUID': `walk-${tag()}`, 'X-Gitlab-Event': 'Push Hook' },
      },
      body: { ref: 'refs/heads/main' },
    }),

  // Billing after the purchases above, and an offer to make the second customer the biller, which they decline.
  'GET /projects/{projectId}/billing': (w) => w.client.get('/projects/{projectId}/billing', inProject(w)),
  'GET /projects/{projectId}/billing/invoices': async (w) => {
    const invoices = await w.client.get('/projects/{projectId}/billing/invoices', inProject(w));
    w.ids.invoice = invoices[0]?.id ?? MADE_UP;
    return invoices;
  },
  'GET /projects/{projectId}/billing/invoices/{invoiceId}': (w) =>
    w.client.get('/projects/{projectId}/billing/invoices/{invoiceId}', { params: { path: { projectId: w.projectId, invoiceId: w.ids.invoice } } }),
  'POST /projects/{projectId}/billing/invoices/{invoiceId}/pay': (w) =>
    w.client.post('/projects/{projectId}/billing/invoices/{invoiceId}/pay', { params: { path: { projectId: w.projectId, invoiceId: w.ids.invoice } } }),
  'GET /account/invoices': (w) => w.session.get('/account/invoices'),
  'POST /projects/{projectId}/billing/biller': async (w) => {
    const overview = await w.client.post('/projects/{projectId}/billing/biller', { ...inProject(w), body: { userId: w.ids.otherUserId } });
    w.ids.transfer = overview.pendingTransfer?.id ?? MADE_UP;
    return overview;
  },
  'POST /projects/{projectId}/billing/biller/transfers/{transferId}/decline': (w) =>
    w.otherSession.post('/projects/{projectId}/billing/biller/transfers/{transferId}/decline', {
      params: { path: { projectId: w.projectId, transferId: w.ids.transfer } },
    }),
  'POST /projects/{projectId}/billing/biller/transfers/{transferId}/accept': (w) =>
    w.otherSession.post('/projects/{projectId}/billing/biller/transfers/{transferId}/accept', {
      params: { path: { projectId: w.projectId, transferId: w.ids.transfer } },
    }),
  'DELETE /projects/{projectId}/billing/biller/transfers/{transferId}': (w) =>
    w.client.delete('/projects/{projectId}/billing/biller/transfers/{transferId}', {
      params: { path: { projectId: w.projectId, transferId: w.ids.transfer } },
    }),

  // Deletions, the things inside before what holds them; the project last.
  'DELETE /projects/{projectId}/hosting/shared/{tenantId}/files': (w) =>
    w.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/files', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting }, query: { path: 'public_html/old' } },
    }),
  'DELETE /projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}': (w) =>
    w.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting, databaseId: w.ids.hostingDatabase } },
    }),
  'DELETE /projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}': (w) =>
    w.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}', {
      params: { path: { projectId: w.projectId, tenantId: w.ids.hosting, domainId: w.ids.hostingDomain } },
    }),
  'DELETE /projects/{projectId}/hosting/shared/{tenantId}': (w) =>
    w.client.delete('/projects/{projectId}/hosting/shared/{tenantId}', { params: { path: { projectId: w.projectId, tenantId: w.ids.hosting } } }),
  'DELETE /projects/{projectId}/databases/shared/{tenantId}': (w) =>
    w.session.delete('/projects/{projectId}/databases/shared/{tenantId}', { params: { path: { projectId: w.projectId, tenantId: w.ids.databaseTenant } } }),
  'DELETE /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images/{digest}': (w) =>
    w.client.delete('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images/{digest}', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository, digest: w.ids.imageDigest } },
    }),
  'DELETE /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}': (w) =>
    w.client.delete('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', {
      params: { path: { projectId: w.projectId, id: w.ids.registry, repoId: w.ids.repository } },
    }),
  'DELETE /projects/{projectId}/storage/container-registry/{id}': (w) =>
    w.client.delete('/projects/{projectId}/storage/container-registry/{id}', { params: { path: { projectId: w.projectId, id: w.ids.registry } } }),
  'DELETE /projects/{projectId}/iam/{credentialId}': (w) =>
    w.client.delete('/projects/{projectId}/iam/{credentialId}', { params: { path: { projectId: w.projectId, credentialId: w.ids.credential } } }),
  'DELETE /projects/{projectId}/storage/object-storage/{bucketId}/iam-users/{iamUserName}': (w) =>
    w.client.delete('/projects/{projectId}/storage/object-storage/{bucketId}/iam-users/{iamUserName}', {
      params: { path: { projectId: w.projectId, bucketId: w.ids.bucket, iamUserName: w.ids.iamUser } },
    }),
  'DELETE /projects/{projectId}/storage/object-storage/{bucketId}': (w) =>
    w.client.delete('/projects/{projectId}/storage/object-storage/{bucketId}', { params: { path: { projectId: w.projectId, bucketId: w.ids.bucket } } }),
  'DELETE /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records/{recordId}': (w) =>
    w.client.delete('/projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records/{recordId}', {
      params: { path: { projectId: w.projectId, zoneId: w.ids.dnsZone, recordId: w.ids.dnsRecord } },
    }),
  'DELETE /projects/{projectId}/domains/{domain}': (w) =>
    w.client.delete('/projects/{projectId}/domains/{domain}', { params: { path: { projectId: w.projectId, domain: w.ids.domain } } }),
  'DELETE /projects/{projectId}/integrations/dns-provider/disconnect': (w) =>
    w.client.delete('/projects/{projectId}/integrations/dns-provider/disconnect', inProject(w)),
  'DELETE /projects/{projectId}/integrations/image-hub/disconnect': (w) =>
    w.client.delete('/projects/{projectId}/integrations/image-hub/disconnect', inProject(w)),
  'DELETE /projects/{projectId}/integrations/git-host-1/disconnect': (w) =>
    w.client.delete('/projects/{projectId}/integrations/git-host-1/disconnect', inProject(w)),
  'DELETE /projects/{projectId}/integrations/git-host-2/disconnect': (w) =>
    w.client.delete('/projects/{projectId}/integrations/git-host-2/disconnect', inProject(w)),
  'DELETE /projects/{projectId}/integrations/git-host-3/disconnect': (w) =>
    w.client.delete('/projects/{projectId}/integrations/git-host-3/disconnect', inProject(w)),
  'DELETE /projects/{projectId}/redis/{redisId}': (w) =>
    w.client.delete('/projects/{projectId}/redis/{redisId}', { params: { path: { projectId: w.projectId, redisId: w.ids.redis } } }),
  'DELETE /projects/{projectId}/apps/{appId}': (w) =>
    w.client.delete('/projects/{projectId}/apps/{appId}', { params: { path: { projectId: w.projectId, appId: w.ids.app } } }),
  // Late in the walk, so the server has had time to finish provisioning (an action is 409 until it has).
  'POST /projects/{projectId}/servers/{serverId}/actions': (w) =>
    w.client.post('/projects/{projectId}/servers/{serverId}/actions', {
      params: { path: { projectId: w.projectId, serverId: w.ids.server } },
      body: { action: 'power_off' },
    }),
  'DELETE /projects/{projectId}/servers/{serverId}': (w) =>
    w.client.delete('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: w.projectId, serverId: w.ids.server } } }),
  'DELETE /projects/{projectId}/ssh-keys/{sshKeyId}': (w) =>
    w.client.delete('/projects/{projectId}/ssh-keys/{sshKeyId}', { params: { path: { projectId: w.projectId, sshKeyId: w.ids.generatedSshKey } } }),
  'DELETE /projects/{projectId}/secrets/{secretId}': (w) =>
    w.client.delete('/projects/{projectId}/secrets/{secretId}', { params: { path: { projectId: w.projectId, secretId: w.ids.secret } } }),
  'DELETE /projects/{projectId}/variables/{variableId}': (w) =>
    w.client.delete('/projects/{projectId}/variables/{variableId}', { params: { path: { projectId: w.projectId, variableId: w.ids.variable } } }),
  'DELETE /projects/{projectId}/webhooks/{endpointId}': (w) =>
    w.client.delete('/projects/{projectId}/webhooks/{endpointId}', { params: { path: { projectId: w.projectId, endpointId: w.ids.webhook } } }),
  'DELETE /projects/{projectId}/api-keys/{keyId}': (w) =>
    w.session.delete('/projects/{projectId}/api-keys/{keyId}', { params: { path: { projectId: w.projectId, keyId: w.ids.apiKey } } }),
  'DELETE /projects/{projectId}/billing/payment-methods/{paymentMethodId}': (w) =>
    w.client.delete('/projects/{projectId}/billing/payment-methods/{paymentMethodId}', {
      params: { path: { projectId: w.projectId, paymentMethodId: w.ids.card } },
    }),
  'DELETE /projects/{projectId}/invitations/{invitationId}': (w) =>
    w.client.delete('/projects/{projectId}/invitations/{invitationId}', {
      params: { path: { projectId: w.projectId, invitationId: w.ids.revokedInvitation } },
    }),
  'DELETE /projects/{projectId}/members/{userId}': (w) =>
    w.client.delete('/projects/{projectId}/members/{userId}', { params: { path: { projectId: w.projectId, userId: w.ids.otherUserId } } }),
  // Changing the password ends every session of the account, so the second customer does it, last of its calls.
  'POST /account/password': (w) =>
    w.otherSession.post('/account/password', { body: { currentPassword: w.other.password, newPassword: `pw-${tag()}${tag()}` } }),
  'DELETE /projects/{projectId}': (w) => w.client.delete('/projects/{projectId}', inProject(w)),
};

type Json = Record<string, unknown>;

/** The error codes the served document lists for each status of each operation, keyed by `METHOD /path`; success statuses list none. */
function documentedAnswers(doc: Json): Map<string, Map<number, string[]>> {
  const sharedResponses = ((doc.components as Json).responses ?? {}) as Record<string, Json>;
  const answers = new Map<string, Map<number, string[]>>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const statuses = new Map<number, string[]>();
      for (const [status, declared] of Object.entries(operation.responses as Record<string, Json>)) {
        const ref = declared.$ref as string | undefined;
        const response = ref ? sharedResponses[ref.replace('#/components/responses/', '')] : declared;
        const schema = (response?.content as Record<string, { schema?: { allOf?: Json[] } }> | undefined)?.['application/json']?.schema;
        const narrowing = schema?.allOf?.[1] as { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } | undefined;
        statuses.set(Number(status), narrowing?.properties?.error?.properties?.code?.enum ?? []);
      }
      answers.set(`${method.toUpperCase()} ${path}`, statuses);
    }
  }
  return answers;
}

let walk: Walk;
let documented: Map<string, Map<number, string[]>>;

beforeAll(async () => {
  const [owner, other] = await Promise.all([newWorld('every-op'), newWorld('every-op-other')]);
  documented = documentedAnswers((await fetch(`${owner.baseUrl}/v1/openapi.json`).then((res) => res.json())) as Json);
  const apiKey = await owner.keyWith([...ALL_SCOPES, 'members:write', 'billing:write', 'notifications:write']);
  const client = createClient({ baseUrl: owner.baseUrl, apiKey, fetch: recordingFetch });
  const session = createClient({ baseUrl: owner.baseUrl, headers: { cookie: owner.cookie, origin: owner.baseUrl }, fetch: recordingFetch });
  const otherSession = createClient({ baseUrl: owner.baseUrl, headers: { cookie: other.cookie, origin: owner.baseUrl }, fetch: recordingFetch });
  const path = { params: { path: { projectId: owner.projectId } } };

  const [sshKey, secret, variable, webhook, otherAccount, rejected, revoked] = await Promise.all([
    client.post('/projects/{projectId}/ssh-keys', { ...path, body: { name: 'laptop', publicKey: PUBLIC_KEY } }),
    client.post('/projects/{projectId}/secrets', { ...path, body: { name: 'DATABASE_PASSWORD', value: `pw-${tag()}` } }),
    client.post('/projects/{projectId}/variables', { ...path, body: { name: 'PUBLIC_URL', value: 'https://example.com' } }),
    client.post('/projects/{projectId}/webhooks', { ...path, body: { url: 'https://93.184.216.34/hooks/every-operation', events: ['server.created'] } }),
    other.session.get('/account'),
    client.post('/projects/{projectId}/invitations', { ...path, body: { email: `declined-${tag()}@example.com`, role: 'viewer' } }),
    client.post('/projects/{projectId}/invitations', { ...path, body: { email: `revoked-${tag()}@example.com`, role: 'viewer' } }),
  ]);
  const rejectSecret = await mailedLink(owner.baseUrl, rejected.email, new RegExp(`/invitations/${rejected.id}\\?secret=([A-Za-z0-9_-]+)`));

  walk = {
    baseUrl: owner.baseUrl,
    projectId: owner.projectId,
    client,
    session,
    anonymous: createClient({ baseUrl: owner.baseUrl, fetch: recordingFetch }),
    other,
    otherSession,
    ids: {
      serverSize: MADE_UP,
      serverRegion: MADE_UP,
      appSize: MADE_UP,
      appRegion: MADE_UP,
      redisPlan: MADE_UP,
      redisRegion: MADE_UP,
      sshKey: sshKey.id,
      generatedSshKey: MADE_UP,
      secret: secret.id,
      variable: variable.id,
      webhook: webhook.id,
      delivery: MADE_UP,
      apiKey: MADE_UP,
      invitation: MADE_UP,
      rejectedInvitation: rejected.id,
      rejectSecret,
      revokedInvitation: revoked.id,
      otherUserId: otherAccount.id,
      card: MADE_UP,
      newCard: MADE_UP,
      invoice: MADE_UP,
      transfer: MADE_UP,
      server: MADE_UP,
      app: MADE_UP,
      deployment: MADE_UP,
      redis: MADE_UP,
      domain: `walk-${tag()}.example.com`,
      dnsZone: MADE_UP,
      dnsRecord: MADE_UP,
      imageHubNamespace: 'library',
      imageHubRepository: 'nginx',
      gitHost1State: MADE_UP,
      gitHost2Return: new URLSearchParams({ state: MADE_UP }),
      gitHost3Return: new URLSearchParams({ state: MADE_UP }),
      gitHost2Repo: { owner: 'example', name: 'web', branch: 'main' },
      gitHost3Project: 'example/web',
      bucket: MADE_UP,
      bucketName: `walk-${tag()}`,
      iamUser: MADE_UP,
      credential: MADE_UP,
      registry: MADE_UP,
      repository: MADE_UP,
      imageDigest: `sha256:${'0'.repeat(64)}`,
      hosting: MADE_UP,
      hostingDomain: MADE_UP,
      hostingDatabase: MADE_UP,
      databaseTenant: MADE_UP,
      notification: MADE_UP,
      newAccountEmail: `walk-${Date.now().toString(36)}-${tag()}@example.com`,
      resetMailed: false,
    },
  };
}, 120_000);

describe('every /v1 operation', () => {
  it('is called once through the SDK with a typed call, and answers as the document promises', async () => {
    expect(Object.keys(calls).sort()).toEqual([...documented.keys()].sort());

    const failures: string[] = [];
    let succeeded = 0;
    for (const [label, call] of Object.entries(calls) as Array<[Label, (w: Walk) => Promise<unknown>]>) {
      const answers = documented.get(label)!;
      lastStatus = 0;
      try {
        const result = await call(walk);
        if (!answers.has(lastStatus) || lastStatus >= 400) failures.push(`${label}: succeeded with undocumented HTTP ${lastStatus}`);
        else if (lastStatus === 302 && typeof (result as { location?: unknown } | undefined)?.location !== 'string')
          failures.push(`${label}: the redirect carried no location`);
        else succeeded += 1;
      } catch (err) {
        if (!(err instanceof ApiError)) failures.push(`${label}: ${String(err)}`);
        else if (!answers.has(err.status)) failures.push(`${label}: HTTP ${err.status} ${err.code} is not documented (${err.message})`);
        else if (!answers.get(err.status)!.includes(err.code))
          failures.push(`${label}: ${err.code} is not listed for HTTP ${err.status} (lists ${answers.get(err.status)!.join(', ') || 'none'}; ${err.message})`);
      }
    }

    expect(failures).toEqual([]);
    expect(succeeded / documented.size).toBeGreaterThanOrEqual(0.6);
  }, 300_000);
});

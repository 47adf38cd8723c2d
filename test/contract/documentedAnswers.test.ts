import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { restApi } from '../../server/app';
import { closeMonthForProject } from '../../server/billing/monthlyClose';
import { generateEd25519KeyPair } from '../../server/domains/sshKeys/keyFormat';
import { AppError } from '../../server/platform/errors';
import { getPaymentsProvider } from '../../server/providers/payments';
import { addCard, CARDS } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, type TestUser } from '../helpers';
import { invite } from '../membersHelpers';
import { documentedCodes, documentedStatuses, label, operationsOf, type DocumentedOperation } from '../openapiDocument';
import { configureInfra, createServer, registerKey } from './serverFixtures';

/**
 * Every answer an operation gives is one the document lists for it, code included. The operations
 * are walked from the document itself, with real ids and bodies, in the states that make them
 * refuse: a provider down, no card, a card that declines, a blocked project. An operation added
 * later is walked with no new test code; one whose answers the document leaves out fails here.
 */
const doc = restApi.openApiDocument();
const ORDER: Record<string, number> = { GET: 0, POST: 1, PATCH: 1, PUT: 1, DELETE: 2 };
// Reads first and deletions last, so every operation meets the world whole.
const operations = operationsOf(doc).sort((a, b) => ORDER[a.method]! - ORDER[b.method]!);

interface World {
  caller: TestUser;
  owner: TestUser;
  params: Record<string, string>;
  /** The card the walk tries to save: a declined one keeps a world without a card that way. */
  cardToSave: string;
}

interface Answer {
  op: DocumentedOperation;
  status: number;
  code: string | undefined;
}

const year = new Date().getUTCFullYear();
/** A public address written as one, so saving it needs no DNS; nothing is delivered during the walk. */
const WEBHOOK_URL = 'https://93.184.216.34/hooks';
let walks = 0;
/** A token of the DNS simulator's shape; every world connects its own account with it. */
const DNS_TOKEN = 'walkwalkwalkwalkwalkwalkwalkwalkwalkwalk';

/** A body and query each operation takes when nothing is wrong, so it reaches its own rules. */
function requestFor(op: DocumentedOperation, world: World): { body?: unknown; query?: string } {
  walks += 1;
  const samples: Record<string, { body?: unknown; query?: string }> = {
    'POST /accounts': { body: { name: 'Walker', email: `walker-${walks}@example.com`, password: 'a long passphrase' } },
    'POST /accounts/restore': { body: { email: world.owner.email } },
    'POST /accounts/restore/complete': { body: { token: 'x'.repeat(40), password: 'a long passphrase' } },
    'PATCH /account': { body: { name: 'Walker' } },
    // A wrong current password: the right one would end the session the walk goes on with.
    'POST /account/password': { body: { currentPassword: 'not the password', newPassword: 'another long passphrase' } },
    'POST /projects/create': { body: { name: `Walked ${walks}` } },
    'PATCH /projects/{projectId}': { body: { name: `Renamed ${walks}` } },
    'PATCH /projects/{projectId}/billing-email': { body: { billingEmail: 'billing@example.com' } },
    'PATCH /projects/{projectId}/members/{userId}': { body: { role: 'admin' } },
    'POST /projects/{projectId}/invitations': { body: { email: `invitee-${walks}@example.com`, role: 'member' } },
    'POST /projects/{projectId}/api-keys': { body: { name: 'walk', scopes: ['projects:read'] } },
    'POST /projects/{projectId}/billing/payment-methods': { body: { cardNumber: world.cardToSave, expMonth: 12, expYear: year + 2, cvc: '123' } },
    'POST /projects/{projectId}/billing/biller': { body: { userId: world.owner.id } },
    'POST /projects/{projectId}/servers': { body: { name: `walk-${walks}`, slug: 's-1vcpu-1gb', provider: 'infra', region: 'fra1', sshKeyIds: [] } },
    'GET /projects/{projectId}/servers/preview': { query: '?provider=infra&slug=s-1vcpu-1gb' },
    'PATCH /projects/{projectId}/servers/{serverId}': { body: { name: `renamed-${walks}` } },
    'POST /projects/{projectId}/servers/{serverId}/actions': { body: { action: 'reboot' } },
    'POST /projects/{projectId}/ssh-keys': { body: { name: `key ${walks}`, publicKey: generateEd25519KeyPair('walk').publicKey.publicKey } },
    'POST /projects/{projectId}/ssh-keys/generate': { body: { name: `generated ${walks}` } },
    'POST /projects/{projectId}/webhooks': { body: { url: WEBHOOK_URL, events: ['*'] } },
    'PATCH /projects/{projectId}/webhooks/{endpointId}': { body: { description: `walk ${walks}` } },
    'POST /projects/{projectId}/redis': { body: { name: `walk-${walks}`, planSlug: 'redis-256mb', region: 'fra1' } },
    'GET /projects/{projectId}/redis/preview': { query: '?planSlug=redis-1gb&replication=true' },
    'POST /projects/{projectId}/domains': { body: { name: `walk-${walks}-example.com`, type: 'EXTERNAL' } },
    'GET /domains/search': { query: '?query=walker' },
    'POST /projects/{projectId}/integrations/dns-provider/connect/token': { body: { apiToken: DNS_TOKEN } },
    'PATCH /projects/{projectId}/integrations/dns-provider/settings': { body: { autoDnsEnabled: true } },
    'POST /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records': {
      body: { type: 'TXT', name: `walk-${walks}`, content: 'walked', ttl: 1, proxied: false },
    },
    'PATCH /projects/{projectId}/integrations/dns-provider/zones/{zoneId}/records/{recordId}': {
      body: { type: 'TXT', name: 'walked', content: `walk ${walks}`, ttl: 1, proxied: false },
    },
    'POST /projects/{projectId}/storage/object-storage': {
      body: {
        name: `walk-${walks}-${world.params.projectId!.slice(-6).toLowerCase()}`,
        provider: 'S3_PROVIDER',
        region: 'fra1',
        tier: 'STARTER',
        publicAccess: false,
        versioning: false,
      },
    },
    'GET /projects/{projectId}/storage/object-storage/{bucketId}/plan-preview': { query: '?tier=GROWTH' },
    'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/tier': { body: { tier: 'GROWTH' } },
    'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/cors': { body: { corsRules: [] } },
    'PATCH /projects/{projectId}/storage/object-storage/{bucketId}/cdn': { body: { cdnEnabled: false } },
    'POST /projects/{projectId}/iam': { body: { name: `walk-${walks}` } },
    'PATCH /projects/{projectId}/iam/{credentialId}': { body: { bucketIds: null, access: 'read' } },
    'POST /projects/{projectId}/hosting/shared': { body: { siteName: `walk${walks}_${world.params.projectId!.slice(-6).toLowerCase()}` } },
    'GET /projects/{projectId}/hosting/shared/{tenantId}/tier-preview': { query: '?tier=GROWTH' },
    'PATCH /projects/{projectId}/hosting/shared/{tenantId}/tier': { body: { tier: 'GROWTH' } },
    'POST /projects/{projectId}/databases/shared': { body: { dbName: `walk${walks}_${world.params.projectId!.slice(-6).toLowerCase()}` } },
    'GET /projects/{projectId}/databases/shared/preview': { query: '?tier=GROWTH' },
    'GET /projects/{projectId}/databases/shared/{tenantId}/tier-preview': { query: '?tier=GROWTH' },
    'PATCH /projects/{projectId}/databases/shared/{tenantId}/tier': { body: { tier: 'GROWTH' } },
    'POST /projects/{projectId}/hosting/shared/{tenantId}/domains': {
      body: { hostname: `walk-${walks}-${world.params.projectId!.slice(-6).toLowerCase()}.example.com` },
    },
    'PATCH /projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}': { body: { kind: 'PARKED' } },
    'POST /projects/{projectId}/hosting/shared/{tenantId}/databases': { body: { name: `walk${walks}` } },
    'GET /projects/{projectId}/hosting/shared/{tenantId}/files': { query: '?path=' },
    'GET /projects/{projectId}/hosting/shared/{tenantId}/files/content': { query: '?path=public_html/index.php' },
    'PUT /projects/{projectId}/hosting/shared/{tenantId}/files/content': { body: { path: `walk-${walks}.txt`, content: 'walked' } },
    'POST /projects/{projectId}/hosting/shared/{tenantId}/files/folders': { body: { path: `walk-${walks}` } },
    'POST /projects/{projectId}/hosting/shared/{tenantId}/files/rename': { body: { from: 'public_html', to: `moved-${walks}` } },
    'DELETE /projects/{projectId}/hosting/shared/{tenantId}/files': { query: `?path=walk-${walks}` },
    'POST /projects/{projectId}/storage/container-registry': {
      body: { name: `walk-${walks}-${world.params.projectId!.slice(-6).toLowerCase()}`, region: 'fra1' },
    },
    'PATCH /projects/{projectId}/storage/container-registry/{id}': { body: { scanOnPush: false } },
    'POST /projects/{projectId}/storage/container-registry/{id}/repositories': { body: { name: `walk-${walks}` } },
    'PATCH /projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}': { body: { gcKeepLastN: 5 } },
    'POST /projects/{projectId}/apps': {
      body: { name: `walk-${walks}`, gitHost: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main', fromTemplate: true },
    },
    'GET /projects/{projectId}/apps/preview': { query: '?instanceSize=apps-s-1vcpu-1gb&instances=2' },
    'PATCH /projects/{projectId}/apps/{appId}': { body: { autoDeploy: false } },
  };
  return samples[label(op)] ?? (op.method === 'GET' || op.method === 'DELETE' ? {} : { body: {} });
}

async function walk(world: World): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const op of operations) {
    const { body, query = '' } = requestFor(op, world);
    // Shared PostgreSQL tenants share SPEC's `{tenantId}` with hosting sites.
    const params = op.path.includes('/databases/shared/') ? { ...world.params, tenantId: world.params.databaseTenantId ?? 'unknown-tenant' } : world.params;
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `unknown-${name}`);
    const res = await api(op.method, `/v1${path}${query}`, { cookie: world.caller.cookie, body });
    if (res.status === 204) expect(res.body, `${label(op)} answered 204 with a body`).toBeNull();
    answers.push({ op, status: res.status, code: res.body && !res.body.success ? res.body.error.code : undefined });
  }
  return answers;
}

/** The answers the document does not list for their operation. */
function undocumented(answers: Answer[]): string[] {
  return answers
    .filter(({ op, status, code }) => (code ? !documentedCodes(doc, op, status).includes(code) : !documentedStatuses(op).includes(status)))
    .map(({ op, status, code }) => `${label(op)} → ${status} ${code ?? ''}`);
}

const seen = (answers: Answer[], status: number, code?: string) =>
  answers.filter((a) => a.status === status && (code === undefined || a.code === code)).map(({ op }) => label(op));

/** A simulated DNS account connected to the project: a zone, a record in it, and an external domain. */
async function dnsWorld(owner: TestUser, projectId: string): Promise<Record<string, string>> {
  await api('POST', `/v1/projects/${projectId}/integrations/dns-provider/connect/token`, { cookie: owner.cookie, body: { apiToken: DNS_TOKEN } });
  const zones = await api<Array<{ id: string; name: string }>>('GET', `/v1/projects/${projectId}/integrations/dns-provider/zones`, { cookie: owner.cookie });
  const zoneId = zones.data[0]!.id;
  const record = await api<{ id: string }>('POST', `/v1/projects/${projectId}/integrations/dns-provider/zones/${zoneId}/records`, {
    cookie: owner.cookie,
    body: { type: 'TXT', name: 'standing', content: 'standing', ttl: 1, proxied: false },
  });
  const domain = `standing-${projectId.slice(-8).toLowerCase()}.example.com`;
  await api('POST', `/v1/projects/${projectId}/domains`, { cookie: owner.cookie, body: { name: domain, type: 'EXTERNAL' } });
  return { zoneId, recordId: record.data.id, domain };
}

/** A project with a member, an invitation, an API key and an SSH key; with a card, a server and a paid invoice too when it can buy. */
async function buildWorld(card: string | null): Promise<World> {
  const owner = await createUser('Owner');
  const { projectId } = await createProject(owner);
  const member = await createUser('Member');
  await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${member.id}, 'member')`);
  const invitation = await invite(owner, projectId, `pending-${projectId}@example.com`, 'viewer');
  const key = await createApiKey(owner, projectId, ['projects:read']);
  const sshKey = await registerKey(owner, projectId);
  const endpoint = await api<{ id: string }>('POST', `/v1/projects/${projectId}/webhooks`, { cookie: owner.cookie, body: { url: WEBHOOK_URL, events: ['*'] } });
  const delivery = await api<{ id: string }>('POST', `/v1/projects/${projectId}/webhooks/${endpoint.data.id}/test`, { cookie: owner.cookie });
  const params: Record<string, string> = {
    projectId,
    userId: member.id,
    invitationId: invitation.data.id,
    keyId: key.id,
    sshKeyId: sshKey.id,
    endpointId: endpoint.data.id,
    deliveryId: delivery.data.id,
    ...(await dnsWorld(owner, projectId)),
  };
  if (card) {
    params.paymentMethodId = (await addCard(owner, projectId, card)).data.id;
    if (card === CARDS.ok) {
      params.serverId = (await createServer(owner, projectId, { name: 'standing' })).id;
      params.redisId = (
        await api<{ id: string }>('POST', `/v1/projects/${projectId}/redis`, {
          cookie: owner.cookie,
          body: { name: 'standing', planSlug: 'redis-256mb', region: 'fra1' },
        })
      ).data.id;
      const bucketName = `standing-${projectId.slice(-8).toLowerCase()}`;
      await api('POST', `/v1/projects/${projectId}/storage/object-storage`, {
        cookie: owner.cookie,
        body: { name: bucketName, provider: 'S3_PROVIDER', region: 'fra1', tier: 'STARTER', publicAccess: true, versioning: false },
      });
      const buckets = await api<Array<{ id: string; name: string }>>('GET', `/v1/projects/${projectId}/storage/object-storage`, { cookie: owner.cookie });
      params.bucketId = buckets.data.find((b) => b.name === bucketName)!.id;
      params.credentialId = (await api<{ id: string }>('POST', `/v1/projects/${projectId}/iam`, { cookie: owner.cookie, body: { name: 'standing' } })).data.id;
      params.iamUserName = (
        await api<{ iamUserName: string }>('POST', `/v1/projects/${projectId}/storage/object-storage/${params.bucketId}/iam-users`, { cookie: owner.cookie })
      ).data.iamUserName;
      const registry = await api<{ id: string }>('POST', `/v1/projects/${projectId}/storage/container-registry`, {
        cookie: owner.cookie,
        body: { name: `standing-${projectId.slice(-8).toLowerCase()}`, region: 'fra1' },
      });
      params.id = registry.data.id;
      params.repoId = (
        await api<{ id: string }>('POST', `/v1/projects/${projectId}/storage/container-registry/${params.id}/repositories`, {
          cookie: owner.cookie,
          body: { name: 'standing' },
        })
      ).data.id;
      params.digest = encodeURIComponent(`sha256:${'0'.repeat(64)}`);
      const site = await api<{ tenantId: string }>('POST', `/v1/projects/${projectId}/hosting/shared`, {
        cookie: owner.cookie,
        body: { siteName: `standing_${projectId.slice(-8).toLowerCase()}`, database: { name: 'standing' } },
      });
      params.tenantId = site.data.tenantId;
      params.domainId = (
        await api<{ domainId: string }>('POST', `/v1/projects/${projectId}/hosting/shared/${params.tenantId}/domains`, {
          cookie: owner.cookie,
          body: { hostname: `standing-${projectId.slice(-8).toLowerCase()}.example.org` },
        })
      ).data.domainId;
      params.databaseId = (
        await api<Array<{ id: string }>>('GET', `/v1/projects/${projectId}/hosting/shared/${params.tenantId}/databases`, { cookie: owner.cookie })
      ).data[0]!.id;
      const tenant = await api<{ tenantId: string }>('POST', `/v1/projects/${projectId}/databases/shared`, {
        cookie: owner.cookie,
        body: { dbName: `standing_${projectId.slice(-8).toLowerCase()}` },
      });
      // Without a configured cluster creation answers 503, and the tenant's operations meet an unknown id.
      if (tenant.status === 200) params.databaseTenantId = tenant.data.tenantId;
      const now = new Date();
      const invoice = await closeMonthForProject(projectId, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5)));
      params.invoiceId = invoice!.id;
    }
  }
  return { caller: owner, owner, params, cardToSave: card ? CARDS.ok : CARDS.declined };
}

beforeAll(() => configureInfra({ INFRA_SIM_PROVISION_SECONDS: '0', INFRA_SIM_ACTION_SECONDS: '0', INFRA_SIM_FAIL: '' }));

afterEach(() => {
  vi.restoreAllMocks();
  configureInfra({ INFRA_SIM_FAIL: '' });
});

describe('every answer of every operation is listed in the document', () => {
  it('when everything works', async () => {
    const answers = await walk(await buildWorld(CARDS.ok));
    expect(undocumented(answers)).toEqual([]);
    expect(seen(answers, 200).length).toBeGreaterThan(operations.length / 2);
  });

  it('with the infrastructure provider and the payment processor down', async () => {
    const world = await buildWorld(CARDS.ok);
    configureInfra({ INFRA_SIM_FAIL: 'create,get,rename,delete,action,catalog' });
    const payments = getPaymentsProvider() as unknown as Record<string, () => Promise<unknown>>;
    for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(payments))) {
      if (method !== 'constructor' && typeof payments[method] === 'function') {
        vi.spyOn(payments, method).mockRejectedValue(new AppError('UPSTREAM_ERROR', 'The payment processor could not be reached'));
      }
    }
    const answers = await walk(world);
    expect(undocumented(answers)).toEqual([]);
    expect(seen(answers, 502, 'UPSTREAM_ERROR')).toEqual(
      expect.arrayContaining([
        'GET /catalog/servers/sizes',
        'POST /accounts',
        'GET /projects/{projectId}/billing',
        'POST /projects/{projectId}/servers',
        'DELETE /projects/{projectId}/servers/{serverId}',
      ]),
    );
  });

  it('without a card, for the biller and for another member', async () => {
    const world = await buildWorld(null);
    const admin = await createUser('Admin');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${world.params.projectId!}, ${admin.id}, 'admin')`);
    // The admin walks first: the biller's walk ends by deleting the project, which holds nothing.
    const other = await walk({ ...world, caller: admin });
    expect(undocumented(other)).toEqual([]);
    expect(seen(other, 402, 'BILLER_PAYMENT_METHOD_REQUIRED')).toContain('POST /projects/{projectId}/servers');

    const biller = await walk(world);
    expect(undocumented(biller)).toEqual([]);
    expect(seen(biller, 402, 'ORG_PAYMENT_METHOD_REQUIRED')).toContain('POST /projects/{projectId}/servers');
    expect(seen(biller, 402, 'CARD_DECLINED')).toContain('POST /projects/{projectId}/billing/payment-methods');
  });

  it('with a card that declines when charged', async () => {
    const answers = await walk(await buildWorld(CARDS.declinesOnCharge));
    expect(undocumented(answers)).toEqual([]);
    expect(seen(answers, 402, 'CARD_DECLINED')).toContain('POST /projects/{projectId}/servers');
  });

  it('in a project blocked by an unpaid invoice', async () => {
    const world = await buildWorld(CARDS.ok);
    await queryRows(sql`update projects set blocked_at = now(), blocked_reason = 'Invoice unpaid' where id = ${world.params.projectId!}`);
    const answers = await walk(world);
    expect(undocumented(answers)).toEqual([]);
    expect(seen(answers, 402, 'PROJECT_BLOCKED')).toContain('POST /projects/{projectId}/servers');
  });
});

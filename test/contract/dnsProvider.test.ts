import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import { getLogger } from '../../server/platform/logger';
import { seal } from '../../server/platform/encryption/envelope';
import { issueOAuthState, OAUTH_STATE_TTL_MS } from '../../server/platform/oauthState';
import { startFakeCloudflare, type FakeCloudflare } from '../fakes/cloudflareServer';
import { resetDnsProviderForTests } from '../../server/providers/dns';
import type { DnsProviderStatus, DnsRecordView } from '../../server/domains/integrations/schema';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { simulatedToken } from './dnsFixtures';

const base = (projectId: string) => `/v1/projects/${projectId}/integrations/dns-provider`;

beforeEach(() => {
  Object.assign(process.env, { DNS_PROVIDER: 'simulator', DNS_SIM_ZONES: 'example.com,example.net', DNS_SIM_FAIL: '' });
  resetConfigForTests();
  resetDnsProviderForTests();
});

async function ownerWithProject(): Promise<{ owner: TestUser; projectId: string }> {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  return { owner, projectId };
}

async function connected(): Promise<{ owner: TestUser; projectId: string; token: string; zoneId: string }> {
  const { owner, projectId } = await ownerWithProject();
  const token = simulatedToken();
  const res = await api<DnsProviderStatus>('POST', `${base(projectId)}/connect/token`, { cookie: owner.cookie, body: { apiToken: token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const zones = await api<Array<{ id: string; name: string }>>('GET', `${base(projectId)}/zones`, { cookie: owner.cookie });
  return { owner, projectId, token, zoneId: zones.data.find((z) => z.name === 'example.com')!.id };
}

function createRecord(user: TestUser, projectId: string, zoneId: string, body: Record<string, unknown>) {
  return api<DnsRecordView>('POST', `${base(projectId)}/zones/${zoneId}/records`, { cookie: user.cookie, body: { ttl: 1, proxied: false, ...body } });
}

describe('connecting the DNS provider', () => {
  it('starts disconnected with auto-DNS off', async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie });
    expect(res.data).toEqual({ connected: false, connectionType: null, accountName: null, autoDnsEnabled: false, oauthEnabled: false, connectedAt: null });
  });

  it('refuses a token the provider refuses with 422 on apiToken, storing nothing', async () => {
    const { owner, projectId } = await ownerWithProject();
    for (const apiToken of ['too-short', `revoked${'x'.repeat(33)}`]) {
      const res = await api('POST', `${base(projectId)}/connect/token`, { cookie: owner.cookie, body: { apiToken } });
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(Object.keys((res.body as unknown as { error: { fields: Record<string, string> } }).error.fields)).toEqual(['apiToken']);
    }
    expect((await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie })).data.connected).toBe(false);
  });

  it('stores a valid token sealed, never answers it, and never logs it', async () => {
    const logged: string[] = [];
    const logger = getLogger();
    for (const level of ['info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(logger, level).mockImplementation(((...args: unknown[]) => void logged.push(JSON.stringify(args))) as never);
    }
    const { owner, projectId, token } = await connected();
    const status = await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie });
    expect(status.data).toMatchObject({ connected: true, connectionType: 'API_TOKEN', accountName: expect.stringMatching(/^Simulated account/) });
    expect(JSON.stringify(status.body)).not.toContain(token);
    const [row] = await queryRows<{ sealed_credential: string }>(sql`select sealed_credential from dns_provider_connections where project_id = ${projectId}`);
    expect(row!.sealed_credential).not.toContain(token);
    const audit = await queryRows<{ detail: unknown }>(sql`select * from audit_entries where project_id = ${projectId}`);
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(logged.join('\n')).not.toContain(token);
    vi.restoreAllMocks();
  });

  it('answers 400 DNS_PROVIDER_NOT_CONNECTED for zones and records without a connection', async () => {
    const { owner, projectId } = await ownerWithProject();
    expectError(await api('GET', `${base(projectId)}/zones`, { cookie: owner.cookie }), 400, 'DNS_PROVIDER_NOT_CONNECTED');
    expectError(await api('GET', `${base(projectId)}/zones/zone_x/records`, { cookie: owner.cookie }), 400, 'DNS_PROVIDER_NOT_CONNECTED');
    expectError(await createRecord(owner, projectId, 'zone_x', { type: 'A', name: 'www', content: '192.0.2.1' }), 400, 'DNS_PROVIDER_NOT_CONNECTED');
  });

  it('keeps the records in the account on disconnect, and the settings across it', async () => {
    const { owner, projectId, token, zoneId } = await connected();
    await api('PATCH', `${base(projectId)}/settings`, { cookie: owner.cookie, body: { autoDnsEnabled: true } });
    const record = await createRecord(owner, projectId, zoneId, { type: 'TXT', name: 'keep', content: 'still here' });
    expect(record.status).toBe(200);
    const disconnected = await api<DnsProviderStatus>('DELETE', `${base(projectId)}/disconnect`, { cookie: owner.cookie });
    expect(disconnected.data).toMatchObject({ connected: false, connectionType: null, autoDnsEnabled: true });
    const [row] = await queryRows<{ sealed_credential: string | null }>(
      sql`select sealed_credential from dns_provider_connections where project_id = ${projectId}`,
    );
    expect(row!.sealed_credential).toBeNull();
    await api('POST', `${base(projectId)}/connect/token`, { cookie: owner.cookie, body: { apiToken: token } });
    const records = await api<DnsRecordView[]>('GET', `${base(projectId)}/zones/${zoneId}/records`, { cookie: owner.cookie });
    expect(records.data.find((r) => r.id === record.data.id)).toMatchObject({ name: 'keep.example.com', content: 'still here' });
  });
});

describe('records through the connection', () => {
  it('creates, lists, replaces and deletes a record, naming it in the zone', async () => {
    const { owner, projectId, zoneId } = await connected();
    const created = await createRecord(owner, projectId, zoneId, { type: 'A', name: 'api', content: '192.0.2.10', ttl: 1, proxied: true });
    expect(created.data).toMatchObject({ type: 'A', name: 'api.example.com', content: '192.0.2.10', ttl: 1, proxied: true, priority: null, zoneId });
    const replaced = await api<DnsRecordView>('PATCH', `${base(projectId)}/zones/${zoneId}/records/${created.data.id}`, {
      cookie: owner.cookie,
      body: { type: 'AAAA', name: 'api.example.com', content: '2001:db8::10', ttl: 300, proxied: false },
    });
    expect(replaced.data).toMatchObject({ id: created.data.id, type: 'AAAA', content: '2001:db8::10', ttl: 300, proxied: false });
    const mx = await createRecord(owner, projectId, zoneId, { type: 'MX', name: '@', content: 'mail2.example.com', priority: 20 });
    expect(mx.data).toMatchObject({ name: 'example.com', content: 'mail2.example.com', priority: 20 });
    expect((await api('DELETE', `${base(projectId)}/zones/${zoneId}/records/${created.data.id}`, { cookie: owner.cookie })).status).toBe(200);
    expectError(await api('DELETE', `${base(projectId)}/zones/${zoneId}/records/${created.data.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    const listed = await api<DnsRecordView[]>('GET', `${base(projectId)}/zones/${zoneId}/records`, { cookie: owner.cookie });
    expect(listed.data.map((r) => r.id)).not.toContain(created.data.id);
  });

  it('refuses records that break a rule with 422 naming the field, creating nothing', async () => {
    const { owner, projectId, zoneId } = await connected();
    const before = (await api<DnsRecordView[]>('GET', `${base(projectId)}/zones/${zoneId}/records`, { cookie: owner.cookie })).data.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'TXT', name: 'x', content: 'hello', proxied: true }, 'proxied'],
      [{ type: 'A', name: 'x', content: '192.0.2.1', ttl: 300, proxied: true }, 'proxied'],
      [{ type: 'MX', name: '@', content: 'mail.example.com' }, 'priority'],
      [{ type: 'A', name: 'x', content: '192.0.2.1', priority: 5 }, 'priority'],
      [{ type: 'A', name: 'x', content: '2001:db8::1' }, 'content'],
      [{ type: 'AAAA', name: 'x', content: '192.0.2.1' }, 'content'],
      [{ type: 'CNAME', name: '@', content: 'target.example.net' }, 'name'],
      [{ type: 'SRV', name: '_sip._tcp', content: '10 5 sip.example.com' }, 'content'],
      [{ type: 'CAA', name: '@', content: '0 issue letsencrypt.org' }, 'content'],
      [{ type: 'A', name: 'x', content: '192.0.2.1', ttl: 30 }, 'ttl'],
      [{ type: 'SPF', name: 'x', content: 'v=spf1 -all' }, 'type'],
      [{ type: 'A', name: 'www.other.com', content: '192.0.2.1' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await createRecord(owner, projectId, zoneId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(Object.keys((res.body as unknown as { error: { fields: Record<string, string> } }).error.fields), JSON.stringify(body)).toContain(field);
    }
    expect((await api<DnsRecordView[]>('GET', `${base(projectId)}/zones/${zoneId}/records`, { cookie: owner.cookie })).data).toHaveLength(before);
  });

  it('lets viewers read and refuses them every write; a key needs the integrations scopes', async () => {
    const { owner, projectId, zoneId } = await connected();
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expect((await api('GET', `${base(projectId)}/zones/${zoneId}/records`, { cookie: viewer.cookie })).status).toBe(200);
    expectError(await createRecord(viewer, projectId, zoneId, { type: 'A', name: 'v', content: '192.0.2.1' }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', `${base(projectId)}/disconnect`, { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', `${base(projectId)}/settings`, { cookie: viewer.cookie, body: { autoDnsEnabled: true } }), 403, 'FORBIDDEN');
    const readKey = await createApiKey(owner, projectId, ['integrations:read']);
    expect((await api('GET', `${base(projectId)}/zones`, { key: readKey.key })).status).toBe(200);
    expectError(
      await api('POST', `${base(projectId)}/zones/${zoneId}/records`, {
        key: readKey.key,
        body: { type: 'A', name: 'k', content: '192.0.2.1', ttl: 1, proxied: false },
      }),
      403,
      'FORBIDDEN',
    );
  });

  it('answers 400 DNS_CREDENTIAL_INVALID when the stored credential stops working', async () => {
    const { owner, projectId } = await connected();
    // The account revoked the token at the provider: the simulator refuses tokens starting "revoked".
    const revoked = seal(`revoked${'x'.repeat(33)}`, projectId);
    await queryRows(sql`update dns_provider_connections set sealed_credential = ${revoked} where project_id = ${projectId}`);
    expectError(await api('GET', `${base(projectId)}/zones`, { cookie: owner.cookie }), 400, 'DNS_CREDENTIAL_INVALID');
  });
});

describe('connecting through OAuth', () => {
  let fake: FakeCloudflare;

  beforeAll(async () => {
    fake = await startFakeCloudflare();
  });

  afterAll(async () => {
    await fake.close();
  });

  beforeEach(() => {
    Object.assign(process.env, {
      DNS_PROVIDER: 'cloudflare',
      DNS_API_URL: fake.apiUrl,
      DNS_OAUTH_CLIENT_ID: fake.oauthClient.clientId,
      DNS_OAUTH_CLIENT_SECRET: fake.oauthClient.clientSecret,
      DNS_OAUTH_AUTHORIZE_URL: fake.authorizeUrl,
      DNS_OAUTH_TOKEN_URL: fake.tokenUrl,
    });
    resetConfigForTests();
    resetDnsProviderForTests();
  });

  afterAll(() => {
    for (const name of ['DNS_API_URL', 'DNS_OAUTH_CLIENT_ID', 'DNS_OAUTH_CLIENT_SECRET', 'DNS_OAUTH_AUTHORIZE_URL', 'DNS_OAUTH_TOKEN_URL'])
      delete process.env[name];
  });

  /** Starts the round trip as the browser would and lets the provider's consent page answer: the callback URL it sends back to. */
  async function consent(user: TestUser, projectId: string, redirect: string): Promise<URL> {
    const started = await api('GET', `${base(projectId)}/connect/oauth?redirect=${encodeURIComponent(redirect)}`, { cookie: user.cookie });
    expect(started.status).toBe(302);
    const authorize = new URL(started.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(fake.authorizeUrl);
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://localhost:3000/v1/integrations/dns-provider/callback');
    const granted = await fetch(authorize, { redirect: 'manual' });
    return new URL(granted.headers.get('location')!);
  }

  const callback = (back: URL) => api('GET', `${back.pathname}${back.search}`);

  it('connects through the consent page and returns to the relative path with the connected marker', async () => {
    const { owner, projectId } = await ownerWithProject();
    expect((await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie })).data.oauthEnabled).toBe(true);
    const back = await consent(owner, projectId, `/projects/${projectId}/domains?tab=dns`);
    const finished = await callback(back);
    expect(finished.status).toBe(302);
    expect(finished.headers.get('location')).toBe(`/projects/${projectId}/domains?tab=dns&dns-provider=connected`);
    const status = await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie });
    expect(status.data).toMatchObject({ connected: true, connectionType: 'OAUTH' });
    const zones = await api<Array<{ name: string }>>('GET', `${base(projectId)}/zones`, { cookie: owner.cookie });
    expect(zones.data.map((z) => z.name)).toEqual([expect.stringMatching(/^oauth-.*\.example$/)]);
  });

  it('takes a state once: the same callback again is 400 LINK_EXPIRED and changes nothing', async () => {
    const { owner, projectId } = await ownerWithProject();
    const back = await consent(owner, projectId, '/');
    expect((await callback(back)).status).toBe(302);
    expectError(await callback(back), 400, 'LINK_EXPIRED');
  });

  it('refuses an expired state and a forged one', async () => {
    const { owner, projectId } = await ownerWithProject();
    const grant = { purpose: 'dns-provider', projectId, userId: owner.id, returnTo: '/' };
    const expired = await issueOAuthState(grant, new Date(Date.now() - OAUTH_STATE_TTL_MS - 1000));
    expectError(await api('GET', `/v1/integrations/dns-provider/callback?code=abc&state=${encodeURIComponent(expired)}`), 400, 'LINK_EXPIRED');
    const fresh = await issueOAuthState(grant);
    const forged = `${fresh.split('.')[0]}.${'A'.repeat(43)}`;
    expectError(await api('GET', `/v1/integrations/dns-provider/callback?code=abc&state=${encodeURIComponent(forged)}`), 400, 'LINK_EXPIRED');
    expectError(await api('GET', '/v1/integrations/dns-provider/callback?code=abc'), 400, 'LINK_EXPIRED');
    expect((await api<DnsProviderStatus>('GET', base(projectId), { cookie: owner.cookie })).data.connected).toBe(false);
  });

  it('returns only to relative paths of this app', async () => {
    const { owner, projectId } = await ownerWithProject();
    for (const redirect of ['https://evil.example/steal', '//evil.example/steal', '/\\evil.example', 'javascript:alert(1)']) {
      const back = await consent(owner, projectId, redirect);
      expect((await callback(back)).headers.get('location'), redirect).toBe(`/projects/${projectId}/integrations?dns-provider=connected`);
    }
  });

  it('refuses viewers, and answers 404 where OAuth is not configured', async () => {
    const { owner, projectId } = await ownerWithProject();
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expectError(await api('GET', `${base(projectId)}/connect/oauth`, { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    delete process.env.DNS_OAUTH_CLIENT_ID;
    resetConfigForTests();
    resetDnsProviderForTests();
    expectError(await api('GET', `${base(projectId)}/connect/oauth`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../db/schema/ids';
import { providerReports } from '../../server/app';
import { resetConfigForTests } from '../../server/platform/config';
import { checkHealth } from '../../server/platform/health';
import { resetDnsProviderForTests } from '../../server/providers/dns';
import { startNameserver } from '../../server/providers/dns/nameserver';
import { checkPendingDomains, GIVE_UP_AFTER_MS, nextCheckAfter } from '../../server/domains/domains/service';
import type { Domain, DomainVerification } from '../../server/domains/domains/schema';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { simulatedToken } from './dnsFixtures';

let nameserver: { port: number; stop(): Promise<void> };

beforeAll(async () => {
  nameserver = await startNameserver({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await nameserver.stop();
});

beforeEach(() => {
  Object.assign(process.env, {
    DNS_PROVIDER: 'simulator',
    DNS_RESOLVERS: `127.0.0.1:${nameserver.port}`,
    DNS_LOOKUP_TIMEOUT_MS: '1000',
    DNS_SIM_ZONES: 'example.com,example.net',
    DNS_SIM_FAIL: '',
  });
  resetConfigForTests();
  resetDnsProviderForTests();
});

const base = (projectId: string) => `/v1/projects/${projectId}/domains`;

async function ownerWithProject(): Promise<{ owner: TestUser; projectId: string }> {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  return { owner, projectId };
}

function add(user: TestUser, projectId: string, name: string) {
  return api<Domain & { autoDns: { created: boolean; detail: string | null } }>('POST', base(projectId), {
    cookie: user.cookie,
    body: { name, type: 'EXTERNAL' },
  });
}

function verify(user: TestUser, projectId: string, ref: string) {
  return api<DomainVerification>('POST', `${base(projectId)}/${encodeURIComponent(ref)}/verify`, { cookie: user.cookie });
}

/** A zone the loopback nameserver answers for, in an account no project uses: where the domain's DNS is hosted. */
async function hostZone(zone: string): Promise<string> {
  const zoneId = newId('zone');
  await queryRows(sql`insert into dns_sim_zones (id, account, name, status) values (${zoneId}, ${`published-${zoneId}`}, ${zone}, 'active')`);
  return zoneId;
}

/** Publishes a TXT record where the loopback nameserver reads it. */
async function publishTxt(name: string, value: string): Promise<void> {
  const zoneId = await hostZone(name.split('.').slice(-2).join('.'));
  await queryRows(
    sql`insert into dns_sim_records (id, zone_id, type, name, content, ttl, proxied) values (${newId('rec')}, ${zoneId}, 'TXT', ${name}, ${value}, 1, false)`,
  );
}

async function connect(user: TestUser, projectId: string, token = simulatedToken()) {
  const res = await api('POST', `/v1/projects/${projectId}/integrations/dns-provider/connect/token`, { cookie: user.cookie, body: { apiToken: token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return token;
}

describe('adding external domains', () => {
  it('adds a PENDING domain with the TXT record to publish and only the stable fields', async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await add(owner, projectId, 'Shop.Acme-Example.COM.');
    expect(res.status).toBe(200);
    const { autoDns, ...domain } = res.data;
    expect(Object.keys(domain).sort()).toEqual(['createdAt', 'dnsRecords', 'id', 'name', 'status', 'type', 'verificationRecord']);
    expect(domain).toMatchObject({ name: 'shop.acme-example.com', type: 'EXTERNAL', status: 'PENDING', dnsRecords: [] });
    expect(domain.verificationRecord).toEqual({
      type: 'TXT',
      name: '_cloudpanel-verify.shop.acme-example.com',
      value: expect.stringMatching(/^cloudpanel-verify=[0-9a-f]{32}$/),
    });
    expect(autoDns).toEqual({ created: false, detail: 'No DNS provider is connected' });
    const listed = await api<Domain[]>('GET', base(projectId), { cookie: owner.cookie });
    expect(listed.data.map((d) => d.name)).toEqual(['shop.acme-example.com']);
  });

  it('stores an internationalised name as lower-case punycode and finds it by either spelling', async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await add(owner, projectId, 'Bücher-Beispiel.DE');
    expect(res.data.name).toBe('xn--bcher-beispiel-gsb.de');
    for (const ref of [res.data.id, 'xn--bcher-beispiel-gsb.de', 'bücher-beispiel.de']) {
      const got = await api<Domain>('GET', `${base(projectId)}/${encodeURIComponent(ref)}`, { cookie: owner.cookie });
      expect(got.status, ref).toBe(200);
      expect(got.data.id).toBe(res.data.id);
    }
  });

  it('refuses names that are not registrable hostnames with 422 on name', async () => {
    const { owner, projectId } = await ownerWithProject();
    for (const name of [
      'localhost',
      'example',
      '192.0.2.10',
      'co.uk',
      'com',
      '-bad.example.com',
      'bad-.example.com',
      'under_score.example.com',
      'a..example.com',
      `${'a'.repeat(64)}.com`,
      'example.notatld',
      '*.example.com',
      'exa mple.com',
    ]) {
      const res = await add(owner, projectId, name);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(Object.keys((res.body as unknown as { error: { fields: Record<string, string> } }).error.fields), name).toEqual(['name']);
    }
    expectError(await api('POST', base(projectId), { cookie: owner.cookie, body: { name: 'example.org', type: 'REGISTERED' } }), 422, 'VALIDATION_ERROR');
    expect(await queryRows(sql`select id from domains where project_id = ${projectId}`)).toEqual([]);
  });

  it('answers 409 for a name already held, by this project or another, without naming the other', async () => {
    const first = await ownerWithProject();
    const second = await ownerWithProject();
    expect((await add(first.owner, first.projectId, 'claimed-example.com')).status).toBe(200);
    expectError(await add(first.owner, first.projectId, 'claimed-example.com'), 409, 'CONFLICT');
    const taken = await add(second.owner, second.projectId, 'CLAIMED-example.com');
    expectError(taken, 409, 'CONFLICT');
    expect(JSON.stringify(taken.body)).not.toContain(first.projectId);
  });

  it('refuses viewers (403) and a project blocked over an unpaid invoice (402 PROJECT_BLOCKED)', async () => {
    const { owner, projectId } = await ownerWithProject();
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expectError(await add(viewer, projectId, 'viewer-example.com'), 403, 'FORBIDDEN');
    expect((await api('GET', base(projectId), { cookie: viewer.cookie })).status).toBe(200);
    await queryRows(sql`update projects set blocked_at = now(), blocked_reason = 'Invoice unpaid' where id = ${projectId}`);
    expectError(await add(owner, projectId, 'blocked-example.com'), 402, 'PROJECT_BLOCKED');
    expect(await queryRows(sql`select id from domains where project_id = ${projectId}`)).toEqual([]);
  });

  it('keeps a domain to its project: another project reads 404, and removing frees the name', async () => {
    const { owner, projectId } = await ownerWithProject();
    const other = await ownerWithProject();
    const domain = (await add(owner, projectId, 'moving-example.com')).data;
    expectError(await api('GET', `${base(other.projectId)}/${domain.id}`, { cookie: other.owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${base(other.projectId)}/moving-example.com`, { cookie: other.owner.cookie }), 404, 'NOT_FOUND');
    expect((await api('DELETE', `${base(projectId)}/moving-example.com`, { cookie: owner.cookie })).status).toBe(200);
    expect((await add(other.owner, other.projectId, 'moving-example.com')).status).toBe(200);
  });

  it('keeps the project from being deleted while it holds a domain', async () => {
    const { owner, projectId } = await ownerWithProject();
    await add(owner, projectId, 'anchor-example.com');
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 domain');
  });
});

describe('ownership verification by DNS lookup', () => {
  it('turns VERIFIED when the TXT record is found, recording the event', async () => {
    const { owner, projectId } = await ownerWithProject();
    const domain = (await add(owner, projectId, 'proven-example.com')).data;
    await publishTxt(domain.verificationRecord.name, domain.verificationRecord.value);
    const res = await verify(owner, projectId, 'proven-example.com');
    expect(res.status).toBe(200);
    expect(res.data.check).toMatchObject({ verified: true, found: [domain.verificationRecord.value], error: null, expected: domain.verificationRecord });
    expect(res.data.domain.status).toBe('VERIFIED');
    const events = await queryRows<{ type: string }>(sql`select type from events where project_id = ${projectId} and type = 'domain.verified'`);
    expect(events).toHaveLength(1);
  });

  it('stays PENDING and says what it found: nothing at all, or another value', async () => {
    const { owner, projectId } = await ownerWithProject();
    const domain = (await add(owner, projectId, 'unproven-example.com')).data;
    await hostZone('unproven-example.com');
    const nothing = await verify(owner, projectId, domain.id);
    expect(nothing.data.check).toMatchObject({ verified: false, found: [], error: 'NXDOMAIN' });
    expect(nothing.data.domain.status).toBe('PENDING');
    await publishTxt(domain.verificationRecord.name, 'cloudpanel-verify=someone-elses-token');
    const wrong = await verify(owner, projectId, domain.id);
    expect(wrong.data.check).toMatchObject({ verified: false, found: ['cloudpanel-verify=someone-elses-token'], error: null });
    expect(wrong.data.domain.status).toBe('PENDING');
  });

  it('checks pending domains in the background when they are due, backing off', async () => {
    const { owner, projectId } = await ownerWithProject();
    const domain = (await add(owner, projectId, 'later-example.com')).data;
    expect(await checkPendingDomains(new Date())).toBe(0);
    const due = new Date(Date.now() + 61_000);
    expect(await checkPendingDomains(due)).toBe(0);
    const [afterOne] = await queryRows<{ check_attempts: number; next_check_at: string }>(
      sql`select check_attempts, next_check_at from domains where id = ${domain.id}`,
    );
    expect(afterOne!.check_attempts).toBe(1);
    expect(new Date(afterOne!.next_check_at).getTime() - due.getTime()).toBe(120_000);
    await publishTxt(domain.verificationRecord.name, domain.verificationRecord.value);
    expect(await checkPendingDomains(new Date(due.getTime() + 60_000))).toBe(0);
    expect(await checkPendingDomains(new Date(due.getTime() + 120_000))).toBe(1);
    expect((await api<Domain>('GET', `${base(projectId)}/${domain.id}`, { cookie: owner.cookie })).data.status).toBe('VERIFIED');
  });

  it('spaces background checks out twice as long each time, up to six hours, and gives up after a week', () => {
    const created = new Date('2026-11-01T00:00:00Z');
    const now = new Date('2026-11-01T01:00:00Z');
    const after = (attempts: number) => nextCheckAfter(created, attempts, now)!.getTime() - now.getTime();
    expect([0, 1, 2, 3].map(after)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(after(9)).toBe(6 * 3_600_000);
    expect(after(50)).toBe(6 * 3_600_000);
    expect(nextCheckAfter(created, 3, new Date(created.getTime() + GIVE_UP_AFTER_MS - 1))).not.toBeNull();
    expect(nextCheckAfter(created, 3, new Date(created.getTime() + GIVE_UP_AFTER_MS))).toBeNull();
  });
});

describe('domains with a connected DNS provider', () => {
  it('creates the verification record itself with auto-DNS on, so a check verifies at once', async () => {
    const { owner, projectId } = await ownerWithProject();
    await connect(owner, projectId);
    await api('PATCH', `/v1/projects/${projectId}/integrations/dns-provider/settings`, { cookie: owner.cookie, body: { autoDnsEnabled: true } });
    const res = await add(owner, projectId, 'shop.example.com');
    expect(res.data.autoDns).toEqual({ created: true, detail: null });
    expect(res.data.dnsRecords.map((r) => r.name)).toContain(res.data.verificationRecord.name);
    expect((await verify(owner, projectId, 'shop.example.com')).data.domain.status).toBe('VERIFIED');
  });

  it('leaves it to a one-click creation with auto-DNS off, and lists the zone records at the domain', async () => {
    const { owner, projectId } = await ownerWithProject();
    await connect(owner, projectId);
    const res = await add(owner, projectId, 'example.net');
    expect(res.data.autoDns.created).toBe(false);
    expect(res.data.dnsRecords.length).toBeGreaterThan(0);
    for (const record of res.data.dnsRecords) expect(record.name === 'example.net' || record.name.endsWith('.example.net')).toBe(true);
    expect((await verify(owner, projectId, 'example.net')).data.domain.status).toBe('PENDING');
    const created = await api<Domain>('POST', `${base(projectId)}/example.net/verification-record`, { cookie: owner.cookie });
    expect(created.status).toBe(200);
    expect(created.data.dnsRecords.map((r) => r.content)).toContain(res.data.verificationRecord.value);
    expect((await verify(owner, projectId, 'example.net')).data.domain.status).toBe('VERIFIED');
  });

  it('answers the one-click creation with 400 without a connection and 404 when no zone holds the domain', async () => {
    const { owner, projectId } = await ownerWithProject();
    await add(owner, projectId, 'elsewhere-example.org');
    expectError(await api('POST', `${base(projectId)}/elsewhere-example.org/verification-record`, { cookie: owner.cookie }), 400, 'DNS_PROVIDER_NOT_CONNECTED');
    await connect(owner, projectId);
    expectError(await api('POST', `${base(projectId)}/elsewhere-example.org/verification-record`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('domain search', () => {
  it('answers candidates with availability and yearly price to any key with domains:read', async () => {
    const { owner, projectId } = await ownerWithProject();
    const key = await createApiKey(owner, projectId, ['domains:read']);
    const res = await api<Array<{ name: string; available: boolean; priceYearly: number; currency: string }>>('GET', '/v1/domains/search?query=acme-rockets', {
      key: key.key,
    });
    expect(res.status).toBe(200);
    expect(res.data.map((c) => c.name)).toContain('acme-rockets.com');
    for (const candidate of res.data) expect(Number.isInteger(candidate.priceYearly) && candidate.priceYearly > 0).toBe(true);
    const other = await createApiKey(owner, projectId, ['servers:read']);
    expectError(await api('GET', '/v1/domains/search?query=acme-rockets', { key: other.key }), 403, 'FORBIDDEN');
    expectError(await api('GET', '/v1/domains/search?query=', { key: key.key }), 422, 'VALIDATION_ERROR');
  });
});

describe('provider report', () => {
  it('tells /healthz that the DNS provider and the registrar are simulated', async () => {
    const { providers } = await checkHealth(providerReports());
    expect(providers?.dns).toMatchObject({ kind: 'simulator' });
    expect(providers?.registrar).toMatchObject({ kind: 'simulator', description: expect.stringContaining('Simulated registrar') });
  });
});

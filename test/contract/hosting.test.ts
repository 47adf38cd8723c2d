import { request } from 'node:http';
import { sql } from 'drizzle-orm';
import { createConnection } from 'mysql2/promise';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../db/schema/ids';
import type { Preview } from '../../server/billing/preview';
import { hostingSuspension } from '../../server/domains/hosting/suspension';
import type { Site } from '../../server/domains/hosting/schema';
import { resetConfigForTests } from '../../server/platform/config';
import { AppError } from '../../server/platform/errors';
import { startNameserver } from '../../server/providers/dns/nameserver';
import { getHostingDatabaseProvider } from '../../server/providers/hosting';
import { getWebServingProvider } from '../../server/providers/hosting/web';
import { ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { paidProject } from './serverFixtures';

const base = (projectId: string) => `/v1/projects/${projectId}/hosting/shared`;
let counter = 0;
/** Site names are global, and database names on the MariaDB server outlive a run: each is new. */
const uniqueSite = () => `s${process.pid}_${Date.now().toString(36)}_${counter++}`;

/** A page as a browser asking for `host` gets it (fetch cannot set Host). */
function pageOf(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

interface Created {
  tenantId: string;
  status: 'ACTIVE';
  database?: { id: string; dbName: string; dbUser: string; dbPassword: string; host: string; port: number; maxConnections: number };
  databaseError?: string;
}

function createCall(user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  return api<Created>('POST', base(projectId), { cookie: user.cookie, body: { siteName: uniqueSite(), ...body } });
}

async function createSite(user: TestUser, projectId: string, body: Record<string, unknown> = {}): Promise<Site & Created> {
  const res = await createCall(user, projectId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const site = await api<Site>('GET', `${base(projectId)}/${res.data.tenantId}`, { cookie: user.cookie });
  return { ...site.data, ...res.data };
}

describe('hosting sites: buying', () => {
  it('previews the tier and extra storage and charges exactly the preview, with prices and features listed', async () => {
    const { owner, projectId } = await paidProject();
    const prices = await api<{ tier: string; monthly: number; currency: string }[]>('GET', `${base(projectId)}/prices`, { cookie: owner.cookie });
    expect(prices.data).toEqual([
      { tier: 'STARTER', monthly: 500, currency: 'USD' },
      { tier: 'GROWTH', monthly: 1500, currency: 'USD' },
      { tier: 'SCALE', monthly: 3500, currency: 'USD' },
    ]);
    const features = await api('GET', `${base(projectId)}/features`, { cookie: owner.cookie });
    expect(features.data).toEqual({ databases: true, extraStorage: { blockGb: 10, monthly: 200, currency: 'USD' } });
    const preview = await api<Preview>('GET', `${base(projectId)}/preview?tier=GROWTH&extraStorageGb=20`, { cookie: owner.cookie });
    expect(preview.data.monthly).toBe(1500 + 2 * 200);
    const site = await createSite(owner, projectId, { tier: 'GROWTH', extraStorageGb: 20, phpVersion: '8.2' });
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBe(preview.data.dueToday);
    expect(site).toMatchObject({
      status: 'ACTIVE',
      tier: 'GROWTH',
      phpVersion: '8.2',
      extraStorageGb: 20,
      limits: { diskGb: 45, phpWorkers: 5, memoryMb: 512, domains: 10, databases: 10, connectionsPerDatabase: 25 },
      sftp: { host: '127.0.0.1', username: site.siteName },
    });
    expect(site.url).toMatch(new RegExp(`^http://${site.siteName}\\.sites\\.localhost(:\\d+)?$`));
    expect(site.ready).toBe(true);
    if (getWebServingProvider().kind === 'embedded') {
      // The welcome page is PHP, run by the site's own pool.
      expect(await pageOf(getWebServingProvider().httpPort(), `${site.siteName}.sites.localhost`)).toContain('It works');
    }
    expect(site).not.toHaveProperty('sftpPassword');
    const withCredentials = await api<Site>('GET', `${base(projectId)}/${site.tenantId}?credentials=true`, { cookie: owner.cookie });
    expect(withCredentials.data.sftpPassword).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const access = await api('GET', `${base(projectId)}/${site.tenantId}/access`, { cookie: owner.cookie });
    expect(access.data).toEqual({ username: site.siteName, host: '127.0.0.1', sftp: { port: site.sftp.port }, ssh: { port: site.sftp.port, enabled: false } });
    expect(site.sftp.port).not.toBe(22);
  });

  it('refuses bad input with 422, a taken name with 409 and no card with 402', async () => {
    const { owner, projectId } = await paidProject();
    for (const body of [
      { siteName: 'ab' },
      { siteName: 'a'.repeat(41) },
      { siteName: '1site' },
      { siteName: 'Site' },
      { siteName: 'my-site' },
      { tier: 'HUGE' },
      { phpVersion: '7.4' },
      { extraStorageGb: 15 },
      { extraStorageGb: -10 },
      { database: { name: 'Bad' } },
      { database: { name: 'a'.repeat(17) } },
    ]) {
      expectError(await createCall(owner, projectId, body), 422, 'VALIDATION_ERROR');
    }
    const taken = await createSite(owner, projectId);
    const other = await paidProject();
    expectError(await createCall(other.owner, other.projectId, { siteName: taken.siteName }), 409, 'CONFLICT');
    const cardless = await createUser();
    const project = await createProject(cardless);
    expectError(await createCall(cardless, project.projectId), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    expect(await ledgerIntents(other.owner.id)).toEqual([]);
  });

  it('makes the database asked for, reachable with its credentials, and keeps the site when the database fails', async () => {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId, { database: { name: 'shop' } });
    expect(site.database).toMatchObject({ dbName: `${site.siteName}_shop`, maxConnections: 10 });
    if (getHostingDatabaseProvider().kind === 'mysql') {
      const connection = await createConnection({
        host: site.database!.host,
        port: site.database!.port,
        user: site.database!.dbUser,
        password: site.database!.dbPassword,
        database: site.database!.dbName,
      });
      await connection.query('create table t (id int)');
      await connection.end();
    }
    vi.spyOn(getHostingDatabaseProvider(), 'createDatabase').mockRejectedValue(new AppError('UPSTREAM_ERROR', 'The database server could not be reached'));
    const kept = await createSite(owner, projectId, { database: { name: 'shop' } });
    expect(kept.database).toBeUndefined();
    expect(kept.databaseError).toContain('could not be reached');
    expect((await api<Site[]>('GET', base(projectId), { cookie: owner.cookie })).data.map((s) => s.tenantId)).toContain(kept.tenantId);
  });

  it('keeps a project holding a site from being deleted, and a servers key from reaching sites', async () => {
    const { owner, projectId } = await paidProject();
    await createSite(owner, projectId);
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 hosting site');
    const servers = await createApiKey(owner, projectId, ['servers:read', 'servers:write']);
    expectError(await api('GET', base(projectId), { key: servers.key }), 403, 'FORBIDDEN');
    const reader = await createApiKey(owner, projectId, ['hosting:read']);
    expect((await api('GET', base(projectId), { key: reader.key })).status).toBe(200);
  });
});

describe('hosting databases', () => {
  it('creates, reads with the password, lists without it, enforces the tier limit and drops on delete', async () => {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId);
    const url = `${base(projectId)}/${site.tenantId}/databases`;
    const first = await api<{ id: string; dbPassword: string }>('POST', url, { cookie: owner.cookie, body: { name: 'one' } });
    expect(first.status).toBe(200);
    expectError(await api('POST', url, { cookie: owner.cookie, body: { name: 'one' } }), 409, 'CONFLICT');
    expect((await api('POST', url, { cookie: owner.cookie, body: { name: 'two' } })).status).toBe(200);
    expectError(await api('POST', url, { cookie: owner.cookie, body: { name: 'three' } }), 400, 'BAD_REQUEST');
    const listed = await api<Record<string, unknown>[]>('GET', url, { cookie: owner.cookie });
    expect(listed.data.map((d) => d.name)).toEqual(['one', 'two']);
    expect(listed.data[0]).not.toHaveProperty('dbPassword');
    const single = await api<{ dbPassword: string }>('GET', `${url}/${first.data.id}`, { cookie: owner.cookie });
    expect(single.data.dbPassword).toBe(first.data.dbPassword);
    expect((await api('DELETE', `${url}/${first.data.id}`, { cookie: owner.cookie })).status).toBe(200);
    expectError(await api('GET', `${url}/${first.data.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('hosting domains: every attach rule', () => {
  async function domainWorld(tier = 'STARTER') {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId, { tier });
    const url = `${base(projectId)}/${site.tenantId}/domains`;
    const attach = (body: Record<string, unknown>) =>
      api<{ domainId: string; hostname: string; instructions: Record<string, unknown> }>('POST', url, { cookie: owner.cookie, body });
    const list = async () => (await api<Record<string, unknown>[]>('GET', url, { cookie: owner.cookie })).data;
    return { owner, projectId, site, url, attach, list };
  }

  it('serves a SITE domain from <hostname>/public_html by default, a subdomain from inside its parent, and a path when given', async () => {
    const world = await domainWorld('GROWTH');
    const host = `${uniqueSite().replace(/_/g, '-')}.example.com`;
    const attached = await world.attach({ hostname: host.toUpperCase() });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    expect(attached.data.hostname).toBe(host);
    expect(attached.data.instructions).toEqual({
      recordType: 'CNAME',
      name: host,
      value: `${world.site.siteName}.sites.localhost`,
      ownershipVerification: { type: 'TXT', name: `_panel-site-verify.${host}`, value: expect.stringMatching(/^[a-f0-9]{32}$/) },
    });
    expect((await world.attach({ hostname: `blog.${host}` })).status).toBe(200);
    expect((await world.attach({ hostname: `docs.${host}`, path: 'docs/public' })).status).toBe(200);
    const domains = await world.list();
    expect(domains[0]!.instructions).toEqual(attached.data.instructions);
    expect(domains.map((d) => [d.hostname, d.kind, d.documentRoot, d.routingStatus, d.status])).toEqual([
      [host, 'SITE', `${host}/public_html`, 'VERIFYING', 'ACTIVE'],
      [`blog.${host}`, 'SITE', `${host}/blog/public_html`, 'VERIFYING', 'ACTIVE'],
      [`docs.${host}`, 'SITE', 'docs/public', 'VERIFYING', 'ACTIVE'],
    ]);
    const files = await api<{ name: string; type: string }[]>('GET', `${base(world.projectId)}/${world.site.tenantId}/files?path=${encodeURIComponent(host)}`, {
      cookie: world.owner.cookie,
    });
    expect(files.data.map((entry) => entry.name).sort()).toEqual(['blog', 'public_html']);
  });

  it('needs a full http(s) redirect target without a query, takes 301 or 302, and refuses fields of another kind with 400', async () => {
    const world = await domainWorld('GROWTH');
    const host = (label: string) => `${label}-${uniqueSite().replace(/_/g, '-')}.example.org`;
    for (const body of [
      { kind: 'REDIRECT' },
      { kind: 'REDIRECT', redirectTarget: 'example.com' },
      { kind: 'REDIRECT', redirectTarget: 'ftp://example.com' },
      { kind: 'REDIRECT', redirectTarget: 'https://example.com/?a=1' },
      { kind: 'REDIRECT', redirectTarget: 'https://example.com', redirectStatus: 307 },
      { kind: 'REDIRECT', redirectTarget: 'https://example.com', path: 'x' },
      { kind: 'SITE', redirectTarget: 'https://example.com' },
      { kind: 'SITE', redirectStatus: 301 },
      { kind: 'PARKED', path: 'x' },
      { kind: 'PARKED', redirectStatus: 302 },
    ]) {
      expectError(await world.attach({ hostname: host('r'), ...body }), 400, 'BAD_REQUEST');
    }
    const redirect = await world.attach({ hostname: host('go'), kind: 'REDIRECT', redirectTarget: 'https://example.com/new/' });
    const parked = await world.attach({ hostname: host('parked'), kind: 'PARKED' });
    const list = await world.list();
    expect(list.find((d) => d.id === redirect.data.domainId)).toMatchObject({
      kind: 'REDIRECT',
      redirectTarget: 'https://example.com/new',
      redirectStatus: 301,
      documentRoot: null,
    });
    expect(list.find((d) => d.id === parked.data.domainId)).toMatchObject({ kind: 'PARKED', redirectTarget: null, redirectStatus: null, documentRoot: null });

    const replaced = await api('PATCH', `${world.url}/${redirect.data.domainId}`, {
      cookie: world.owner.cookie,
      body: { kind: 'REDIRECT', redirectTarget: 'http://example.net', redirectStatus: 302 },
    });
    expect(replaced.data).toMatchObject({ redirectTarget: 'http://example.net', redirectStatus: 302 });
    const toSite = await api('PATCH', `${world.url}/${redirect.data.domainId}`, { cookie: world.owner.cookie, body: {} });
    expect(toSite.data).toMatchObject({ kind: 'SITE', redirectTarget: null, redirectStatus: null, documentRoot: expect.stringMatching(/public_html$/) });
    expectError(
      await api('PATCH', `${world.url}/${redirect.data.domainId}`, { cookie: world.owner.cookie, body: { kind: 'PARKED', path: 'x' } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('refuses the platform domain and its subdomains and the tier limit with 400, a hostname on any site with 409, and detaches keeping the files', async () => {
    const world = await domainWorld('STARTER');
    expectError(await world.attach({ hostname: `${world.site.siteName.replace(/_/g, '-')}.sites.localhost` }), 400, 'BAD_REQUEST');
    expectError(await world.attach({ hostname: `www.${world.site.siteName.replace(/_/g, '-')}.sites.localhost` }), 400, 'BAD_REQUEST');
    expectError(await world.attach({ hostname: 'not a host' }), 400, 'BAD_REQUEST');
    const host = (n: number) => `d${n}-${uniqueSite().replace(/_/g, '-')}.example.net`;
    const first = host(1);
    for (const hostname of [first, host(2), host(3)]) expect((await world.attach({ hostname })).status).toBe(200);
    expectError(await world.attach({ hostname: host(4) }), 400, 'BAD_REQUEST');
    const other = await domainWorld('STARTER');
    expectError(await other.attach({ hostname: first }), 409, 'CONFLICT');

    const [attached] = await world.list();
    expect((await api('DELETE', `${world.url}/${attached!.id as string}`, { cookie: world.owner.cookie })).status).toBe(200);
    expect((await world.list()).map((d) => d.hostname)).not.toContain(first);
    const files = await api<{ name: string }[]>('GET', `${base(world.projectId)}/${world.site.tenantId}/files?path=`, { cookie: world.owner.cookie });
    expect(files.data.map((entry) => entry.name)).toContain(first);
    expect((await other.attach({ hostname: first })).status).toBe(200);
  });
});

describe('hosting domains: routing', () => {
  it('turns ACTIVE on the list read once the ownership TXT and the CNAME resolve, not before', async () => {
    const nameserver = await startNameserver({ host: '127.0.0.1', port: 0 });
    Object.assign(process.env, { DNS_RESOLVERS: `127.0.0.1:${nameserver.port}`, DNS_LOOKUP_TIMEOUT_MS: '1000' });
    resetConfigForTests();
    try {
      const { owner, projectId } = await paidProject();
      const site = await createSite(owner, projectId);
      const zone = `z${uniqueSite().replace(/_/g, '-')}.example`;
      const hostname = `www.${zone}`;
      const url = `${base(projectId)}/${site.tenantId}/domains`;
      const attached = await api<{ instructions: { value: string; ownershipVerification: { name: string; value: string } } }>('POST', url, {
        cookie: owner.cookie,
        body: { hostname },
      });
      const routing = async () => (await api<{ routingStatus: string }[]>('GET', url, { cookie: owner.cookie })).data[0]!.routingStatus;
      const zoneId = newId('zone');
      await queryRows(sql`insert into dns_sim_zones (id, account, name, status) values (${zoneId}, ${`published-${zoneId}`}, ${zone}, 'active')`);
      const publish = (type: string, name: string, content: string) =>
        queryRows(
          sql`insert into dns_sim_records (id, zone_id, type, name, content, ttl, proxied) values (${newId('rec')}, ${zoneId}, ${type}, ${name}, ${content}, 1, false)`,
        );
      const { ownershipVerification, value } = attached.data.instructions;
      await publish('TXT', ownershipVerification.name, ownershipVerification.value);
      expect(await routing()).toBe('VERIFYING');
      await publish('CNAME', hostname, value);
      expect(await routing()).toBe('ACTIVE');
    } finally {
      delete process.env.DNS_RESOLVERS;
      delete process.env.DNS_LOOKUP_TIMEOUT_MS;
      resetConfigForTests();
      await nameserver.stop();
    }
  });
});

describe('tiers, suspension and deletion', () => {
  it('applies a tier change at once, refuses a downgrade that does not fit, and keeps the disk', async () => {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId, { tier: 'GROWTH' });
    for (const name of ['a', 'b', 'c']) await api('POST', `${base(projectId)}/${site.tenantId}/databases`, { cookie: owner.cookie, body: { name } });
    const patch = (tier: string) => api<Site>('PATCH', `${base(projectId)}/${site.tenantId}/tier`, { cookie: owner.cookie, body: { tier } });
    expectError(await patch('STARTER'), 409, 'CONFLICT');
    expectError(await patch('GROWTH'), 409, 'CONFLICT');
    const up = await patch('SCALE');
    expect(up.data).toMatchObject({ tier: 'SCALE', limits: { diskGb: 25, phpWorkers: 12, databases: 30, connectionsPerDatabase: 50 } });
    const [item] = await queryRows<{ monthly: number }>(sql`select monthly from billing_items where resource_id = ${site.tenantId}`);
    expect(item!.monthly).toBe(3500);
  });

  it('takes a suspended site offline and serves it again once paid', async () => {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId);
    await hostingSuspension.suspend(projectId);
    const suspended = await api<Site>('GET', `${base(projectId)}/${site.tenantId}`, { cookie: owner.cookie });
    expect(suspended.data).toMatchObject({ status: 'SUSPENDED', ready: false });
    expect(await hostingSuspension.projectsWithSuspendedResources()).toContain(projectId);
    await hostingSuspension.resume(projectId);
    expect((await api<Site>('GET', `${base(projectId)}/${site.tenantId}`, { cookie: owner.cookie })).data.status).toBe('ACTIVE');
  });

  it('deletes a site with its databases and domains, and stops its billing', async () => {
    const { owner, projectId } = await paidProject();
    const site = await createSite(owner, projectId, { database: { name: 'gone' } });
    await api('POST', `${base(projectId)}/${site.tenantId}/domains`, {
      cookie: owner.cookie,
      body: { hostname: `x-${uniqueSite().replace(/_/g, '-')}.example.com` },
    });
    expect((await api('DELETE', `${base(projectId)}/${site.tenantId}`, { cookie: owner.cookie })).status).toBe(200);
    expectError(await api('GET', `${base(projectId)}/${site.tenantId}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    const [item] = await queryRows<{ ended_at: string | null }>(sql`select ended_at from billing_items where resource_id = ${site.tenantId}`);
    expect(item!.ended_at).not.toBeNull();
    if (getHostingDatabaseProvider().kind === 'mysql') {
      await expect(
        createConnection({ host: site.database!.host, port: site.database!.port, user: site.database!.dbUser, password: site.database!.dbPassword }),
      ).rejects.toThrow();
    }
  });
});

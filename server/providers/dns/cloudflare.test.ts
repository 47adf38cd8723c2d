import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeCloudflare, type FakeCloudflare } from '../../../test/fakes/cloudflareServer';
import { resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { CLOUDFLARE_OAUTH_SCOPES, CloudflareDnsProvider } from './cloudflare';
import { getDnsProvider, resetDnsProviderForTests } from './index';
import type { DnsRecordInput } from './types';

let fake: FakeCloudflare;
let provider: CloudflareDnsProvider;
let account: string;
let token: string;

const REDIRECT_URI = 'https://panel.example.com/v1/integrations/dns-provider/callback';

beforeAll(async () => {
  // Three per page: every listing below walks several pages.
  fake = await startFakeCloudflare({ maxPerPage: 3, recordQuota: 12 });
  provider = new CloudflareDnsProvider({
    apiUrl: fake.apiUrl,
    timeoutMs: 400,
    oauth: { ...fake.oauthClient, authorizeUrl: fake.authorizeUrl, tokenUrl: fake.tokenUrl },
  });
  account = fake.addAccount('Acme Corp');
  token = fake.addToken(account);
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function record(overrides: Partial<DnsRecordInput> = {}): DnsRecordInput {
  return { type: 'A', name: 'app.acme.test', content: '192.0.2.10', ttl: 1, proxied: false, priority: null, ...overrides };
}

/** A zone of its own for a test, in the shared account. */
function zone(name: string) {
  return fake.addZone(account, name);
}

function lastRequest(method: string, pathEnd: string) {
  const found = fake.requests.filter((request) => request.method === method && request.path.endsWith(pathEnd)).at(-1);
  if (!found) throw new Error(`no ${method} …${pathEnd}`);
  return found;
}

/** Every message, cause and field of an error, as one string to search. */
function everythingIn(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 6; depth += 1) {
    parts.push(String(current), JSON.stringify(current), (current as { stack?: string }).stack ?? '');
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

describe('Cloudflare DNS adapter: verifying a credential', () => {
  it('accepts an active token, sent as a bearer, and names its account', async () => {
    expect(await provider.verifyCredential(token)).toEqual({ accountName: 'Acme Corp' });
    expect(lastRequest('GET', '/client/v4/user/tokens/verify').headers.authorization).toBe(`Bearer ${token}`);
    expect(lastRequest('GET', '/client/v4/accounts').headers.authorization).toBe(`Bearer ${token}`);
    expect(provider.kind).toBe('cloudflare');
  });

  it('answers no account name when the token may not read accounts', async () => {
    const zoneOnly = fake.addToken(account, { readsAccount: false });
    expect(await provider.verifyCredential(zoneOnly)).toEqual({ accountName: null });
  });

  it.each(['disabled', 'expired'] as const)('refuses a %s token with DNS_CREDENTIAL_INVALID', async (status) => {
    const err = await refusal(provider.verifyCredential(fake.addToken(account, { status })));
    expect(err.code).toBe('DNS_CREDENTIAL_INVALID');
  });

  it('refuses an unknown or revoked token, without repeating it', async () => {
    const revoked = fake.addToken(account);
    fake.revokeToken(revoked);
    for (const credential of [revoked, 'x'.repeat(40)]) {
      const err = await refusal(provider.verifyCredential(credential));
      expect(err.code).toBe('DNS_CREDENTIAL_INVALID');
      expect(everythingIn(err)).not.toContain(credential);
    }
  });
});

describe('Cloudflare DNS adapter: zones', () => {
  it('lists every zone the token reaches across pages, lower-case, pending unless active', async () => {
    const other = fake.addAccount('Other');
    const own = fake.addAccount('Own');
    const names = ['b.test', 'a.test', 'C.Test', 'd.test', 'e.test', 'f.test', 'g.test'];
    for (const name of names) fake.addZone(own, name, name === 'd.test' ? 'pending' : name === 'e.test' ? 'initializing' : 'active');
    fake.addZone(other, 'elsewhere.test');
    const credential = fake.addToken(own);
    const before = fake.requests.length;

    const zones = await provider.listZones(credential);
    expect(zones.map((z) => [z.name, z.status])).toEqual([
      ['a.test', 'active'],
      ['b.test', 'active'],
      ['c.test', 'active'],
      ['d.test', 'pending'],
      ['e.test', 'pending'],
      ['f.test', 'active'],
      ['g.test', 'active'],
    ]);
    const pages = fake.requests.slice(before).filter((request) => request.path === '/client/v4/zones');
    expect(pages.map((request) => request.query.page)).toEqual(['1', '2', '3']);
  });

  it('lists only the zones a token is scoped to', async () => {
    const own = fake.addAccount('Scoped');
    const reached = fake.addZone(own, 'reached.test');
    fake.addZone(own, 'hidden.test');
    expect((await provider.listZones(fake.addToken(own, { zoneIds: [reached.id] }))).map((z) => z.name)).toEqual(['reached.test']);
  });
});

describe('Cloudflare DNS adapter: records', () => {
  it('lists the supported records across pages, by name then type, with MX priority and SRV and CAA content from their data', async () => {
    const z = zone('list.test');
    fake.addRecord(z.id, { type: 'TXT', name: 'list.test', content: 'v=spf1 -all' });
    fake.addRecord(z.id, { type: 'MX', name: 'list.test', content: 'mail.list.test', priority: 10 });
    fake.addRecord(z.id, { type: 'A', name: 'list.test', content: '192.0.2.1', proxied: true });
    fake.addRecord(z.id, { type: 'PTR', name: '1.list.test', content: 'host.list.test' });
    fake.addRecord(z.id, { type: 'HTTPS', name: 'list.test', content: '1 . alpn="h2"' });
    fake.addRecord(z.id, {
      type: 'SRV',
      name: '_sip._tcp.list.test',
      content: '5 5060 sip.list.test',
      priority: 10,
      data: { priority: 10, weight: 5, port: 5060, target: 'sip.list.test' },
    });
    fake.addRecord(z.id, { type: 'CAA', name: 'list.test', content: '0 issue "letsencrypt.org"', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } });
    fake.addRecord(z.id, { type: 'CNAME', name: 'www.list.test', content: 'list.test' });
    fake.addRecord(z.id, { type: 'AAAA', name: 'list.test', content: '2001:db8::1', ttl: 300 });
    const before = fake.requests.length;

    const records = await provider.listRecords(token, z.id);
    expect(records.map((r) => [r.name, r.type, r.content, r.priority])).toEqual([
      ['_sip._tcp.list.test', 'SRV', '10 5 5060 sip.list.test', null],
      ['list.test', 'A', '192.0.2.1', null],
      ['list.test', 'AAAA', '2001:db8::1', null],
      ['list.test', 'CAA', '0 issue "letsencrypt.org"', null],
      ['list.test', 'MX', 'mail.list.test', 10],
      ['list.test', 'TXT', 'v=spf1 -all', null],
      ['www.list.test', 'CNAME', 'list.test', null],
    ]);
    expect(records.find((r) => r.type === 'A')).toMatchObject({ proxied: true, ttl: 1, zoneId: z.id });
    expect(records.find((r) => r.type === 'AAAA')?.ttl).toBe(300);
    const pages = fake.requests.slice(before).filter((request) => request.path.endsWith('/dns_records'));
    expect(pages.map((request) => request.query.page)).toEqual(['1', '2', '3']);
  });

  it('reads SRV content from content and priority when Cloudflare sends no data', async () => {
    const z = zone('legacy-srv.test');
    fake.addRecord(z.id, { type: 'SRV', name: '_xmpp._tcp.legacy-srv.test', content: '0 5222 xmpp.legacy-srv.test', priority: 20 });
    expect((await provider.listRecords(token, z.id))[0]?.content).toBe('20 0 5222 xmpp.legacy-srv.test');
  });

  it('creates each type as Cloudflare takes it: SRV and CAA as data, MX with its priority, proxied only where it applies', async () => {
    const z = zone('create.test');
    const cases: Array<[DnsRecordInput, Record<string, unknown>, string]> = [
      [record({ name: 'create.test', proxied: true }), { type: 'A', name: 'create.test', content: '192.0.2.10', ttl: 1, proxied: true }, '192.0.2.10'],
      [record({ type: 'AAAA', name: 'v6.create.test', content: '2001:db8::2' }), { content: '2001:db8::2', proxied: false }, '2001:db8::2'],
      [record({ type: 'CNAME', name: 'www.create.test', content: 'create.test' }), { content: 'create.test', proxied: false }, 'create.test'],
      [
        record({ type: 'MX', name: 'create.test', content: 'mail.create.test', ttl: 3600, priority: 5 }),
        { content: 'mail.create.test', priority: 5, ttl: 3600 },
        'mail.create.test',
      ],
      [record({ type: 'TXT', name: '_dmarc.create.test', content: 'v=DMARC1; p=none' }), { content: 'v=DMARC1; p=none' }, 'v=DMARC1; p=none'],
      [record({ type: 'NS', name: 'sub.create.test', content: 'ns1.example.net' }), { content: 'ns1.example.net' }, 'ns1.example.net'],
      [
        record({ type: 'SRV', name: '_sip._tcp.create.test', content: '10 5 5060 sip.create.test' }),
        { data: { priority: 10, weight: 5, port: 5060, target: 'sip.create.test' } },
        '10 5 5060 sip.create.test',
      ],
      [
        record({ type: 'CAA', name: 'create.test', content: '128 issuewild "ca.example.net; account=1"' }),
        { data: { flags: 128, tag: 'issuewild', value: 'ca.example.net; account=1' } },
        '128 issuewild "ca.example.net; account=1"',
      ],
    ];
    for (const [input, wire, content] of cases) {
      const created = await provider.createRecord(token, z.id, input);
      const sent = JSON.parse(lastRequest('POST', `/zones/${z.id}/dns_records`).body!.toString('utf8')) as Record<string, unknown>;
      expect(sent).toMatchObject({ type: input.type, name: input.name, ...wire });
      if (!['A', 'AAAA', 'CNAME'].includes(input.type)) expect(sent).not.toHaveProperty('proxied');
      if (input.type !== 'MX') expect(sent).not.toHaveProperty('priority');
      expect(created).toMatchObject({
        zoneId: z.id,
        type: input.type,
        name: input.name,
        content,
        ttl: input.ttl,
        proxied: input.proxied,
        priority: input.priority,
      });
      expect(fake.records(z.id).some((stored) => stored.id === created.id)).toBe(true);
    }
  });

  it('replaces a record with PUT, keeping its id and creation time', async () => {
    const z = zone('update.test');
    const created = await provider.createRecord(token, z.id, record({ name: 'app.update.test' }));
    const updated = await provider.updateRecord(
      token,
      z.id,
      created.id,
      record({ type: 'MX', name: 'app.update.test', content: 'mx.update.test', priority: 30, ttl: 120 }),
    );
    expect(lastRequest('PUT', `/dns_records/${created.id}`).method).toBe('PUT');
    expect(updated).toMatchObject({ id: created.id, type: 'MX', content: 'mx.update.test', priority: 30, ttl: 120, createdAt: created.createdAt });
    expect(fake.records(z.id)).toHaveLength(1);
  });

  it('deletes a record; deleting it again is NOT_FOUND', async () => {
    const z = zone('delete.test');
    const created = await provider.createRecord(token, z.id, record({ name: 'gone.delete.test' }));
    await provider.deleteRecord(token, z.id, created.id);
    expect(fake.records(z.id)).toEqual([]);
    const err = await refusal(provider.deleteRecord(token, z.id, created.id));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toBe('DNS record not found');
  });
});

describe('Cloudflare DNS adapter: errors', () => {
  it('maps 401, 403 and codes 9109 and 10000 to DNS_CREDENTIAL_INVALID', async () => {
    const z = zone('auth-errors.test');
    const revoked = fake.addToken(account);
    fake.revokeToken(revoked);
    expect((await refusal(provider.listZones(revoked))).code).toBe('DNS_CREDENTIAL_INVALID');
    fake.fail('GET /client/v4/zones', { status: 403 });
    expect((await refusal(provider.listZones(token))).code).toBe('DNS_CREDENTIAL_INVALID');
    for (const code of [9109, 10_000]) {
      fake.fail('GET /client/v4/zones/:zoneId/dns_records', { status: 400, body: { success: false, errors: [{ code, message: 'Nope' }], result: null } });
      expect((await refusal(provider.listRecords(token, z.id))).code).toBe('DNS_CREDENTIAL_INVALID');
    }
  });

  it('maps 404 and codes 7003 and 81044 to NOT_FOUND', async () => {
    const z = zone('missing.test');
    expect(await refusal(provider.listRecords(token, 'f'.repeat(32)))).toMatchObject({ code: 'NOT_FOUND', message: 'DNS zone not found' });
    expect(await refusal(provider.updateRecord(token, z.id, 'e'.repeat(32), record({ name: 'x.missing.test' })))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'DNS record not found',
    });
    // Another account's zone is as unknown as one that never existed.
    const stranger = fake.addZone(fake.addAccount('Stranger'), 'stranger.test');
    expect((await refusal(provider.createRecord(token, stranger.id, record({ name: 'stranger.test' })))).code).toBe('NOT_FOUND');
    fake.fail('GET /client/v4/zones/:zoneId/dns_records', {
      status: 400,
      body: { success: false, errors: [{ code: 7003, message: 'Could not route' }], result: null },
    });
    expect((await refusal(provider.listRecords(token, z.id))).code).toBe('NOT_FOUND');
  });

  it('maps a record Cloudflare refuses to VALIDATION_ERROR with its message, on the field when the code tells it', async () => {
    const z = zone('refused.test');
    await provider.createRecord(token, z.id, record({ name: 'dup.refused.test' }));
    const identical = await refusal(provider.createRecord(token, z.id, record({ name: 'dup.refused.test' })));
    expect(identical).toMatchObject({ code: 'VALIDATION_ERROR', fields: { content: 'An identical record already exists.' } });
    expect(identical.message).toContain('An identical record already exists.');
    const cname = await refusal(provider.createRecord(token, z.id, record({ type: 'CNAME', name: 'dup.refused.test', content: 'target.example.net' })));
    expect(cname).toMatchObject({ code: 'VALIDATION_ERROR', fields: { name: 'An A, AAAA, or CNAME record with that host already exists.' } });
    const content = await refusal(provider.createRecord(token, z.id, record({ name: 'bad.refused.test', content: '999.1.1.1' })));
    expect(content).toMatchObject({ code: 'VALIDATION_ERROR', fields: { content: 'Content for A record must be a valid IPv4 address.' } });
    const unknownCode = await refusal(
      provider.createRecord(token, z.id, record({ type: 'MX', name: 'refused.test', content: 'mail.refused.test', priority: null })),
    );
    expect(unknownCode.code).toBe('VALIDATION_ERROR');
    expect(unknownCode.message).toContain('MX records require a priority');
    expect(unknownCode.reportedFields).toEqual({});
  });

  it('refuses a record past the zone quota as VALIDATION_ERROR', async () => {
    const z = zone('quota.test');
    for (let i = 0; i < 12; i += 1) fake.addRecord(z.id, { type: 'TXT', name: 'quota.test', content: `value ${i}` });
    const err = await refusal(provider.createRecord(token, z.id, record({ name: 'quota.test' })));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(err.message).toContain('Record quota exceeded.');
  });

  it('maps 5xx, 429, a refused listing and an unknown code to UPSTREAM_ERROR', async () => {
    const z = zone('upstream.test');
    fake.fail('GET /client/v4/zones', { status: 500 });
    expect(await refusal(provider.listZones(token))).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'The DNS provider failed while listing zones' });
    fake.fail('GET /client/v4/zones', { status: 429 });
    expect((await refusal(provider.listZones(token))).message).toMatch(/rate limit/);
    fake.fail('GET /client/v4/zones/:zoneId/dns_records', {
      status: 400,
      body: { success: false, errors: [{ code: 1004, message: 'Bad filter' }], result: null },
    });
    expect((await refusal(provider.listRecords(token, z.id))).code).toBe('UPSTREAM_ERROR');
    fake.fail('POST /client/v4/zones/:zoneId/dns_records', { status: 200, body: { success: false, errors: [{ code: 1234, message: 'Odd' }], result: null } });
    expect((await refusal(provider.createRecord(token, z.id, record({ name: 'odd.upstream.test' })))).code).toBe('UPSTREAM_ERROR');
    fake.fail('POST /client/v4/zones/:zoneId/dns_records', { status: 503 });
    expect((await refusal(provider.createRecord(token, z.id, record({ name: 'odd.upstream.test' })))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps an unparseable or misshapen body to UPSTREAM_ERROR', async () => {
    const z = zone('garbled.test');
    fake.fail('GET /client/v4/zones', { status: 200, body: '<html>Cloudflare is down</html>' });
    expect(await refusal(provider.listZones(token))).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringMatching(/unexpected response/) });
    fake.fail('GET /client/v4/zones/:zoneId/dns_records', { status: 200, body: { success: true, errors: [], result: [{ id: 1 }] } });
    expect((await refusal(provider.listRecords(token, z.id))).code).toBe('UPSTREAM_ERROR');
    fake.fail('GET /client/v4/user/tokens/verify', { status: 502, body: 'Bad gateway' });
    expect((await refusal(provider.verifyCredential(token))).code).toBe('UPSTREAM_ERROR');
  });

  it('fails a listing whose later page fails, rather than answering part of it', async () => {
    const own = fake.addAccount('Paged');
    for (const name of ['p1.test', 'p2.test', 'p3.test', 'p4.test']) fake.addZone(own, name);
    fake.fail('GET /client/v4/zones', { status: 500, after: 1 });
    expect((await refusal(provider.listZones(fake.addToken(own)))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps a timeout and an unreachable provider to UPSTREAM_ERROR', async () => {
    fake.fail('GET /client/v4/zones', { delayMs: 1500 });
    expect((await refusal(provider.listZones(token))).message).toMatch(/did not answer within 400 ms while listing zones/);
    const closed = await startFakeCloudflare();
    await closed.close();
    const unreachable = new CloudflareDnsProvider({ apiUrl: closed.apiUrl, timeoutMs: 400 });
    expect(await refusal(unreachable.listZones(token))).toMatchObject({ code: 'UPSTREAM_ERROR', message: expect.stringMatching(/could not be reached/) });
  });

  it('never puts the credential in an error or a log line, even when Cloudflare echoes it', async () => {
    const logger = getLogger();
    const spies = (['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const).map((level) => vi.spyOn(logger, level));
    const z = zone('secret.test');
    const echo = { success: false, errors: [{ code: 1234, message: `Token ${token} is odd` }], result: null };
    const failures = [
      () => {
        fake.fail('GET /client/v4/zones', { status: 500, body: echo });
        return provider.listZones(token);
      },
      () => {
        fake.fail('POST /client/v4/zones/:zoneId/dns_records', { status: 400, body: echo });
        return provider.createRecord(token, z.id, record({ name: 'secret.test' }));
      },
      () => {
        fake.fail('GET /client/v4/zones/:zoneId/dns_records', { delayMs: 1500 });
        return provider.listRecords(token, z.id);
      },
      () => {
        fake.fail('GET /client/v4/user/tokens/verify', { status: 401 });
        return provider.verifyCredential(token);
      },
      () => provider.deleteRecord(token, z.id, 'd'.repeat(32)),
    ];
    for (const fail of failures) {
      const err = await refusal(fail());
      expect(everythingIn(err)).not.toContain(token);
    }
    const logged = JSON.stringify(spies.map((spy) => spy.mock.calls));
    expect(logged).toContain('DNS provider failed while listing zones');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(token);
  });
});

describe('Cloudflare DNS adapter: OAuth', () => {
  it('sends the customer to the authorize URL with the client, redirect, code response, state and scopes', () => {
    const url = new URL(provider.oauth!.authorizeUrl('state-123', REDIRECT_URI));
    expect(`${url.origin}${url.pathname}`).toBe(fake.authorizeUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: fake.oauthClient.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'state-123',
      scope: CLOUDFLARE_OAUTH_SCOPES.join(' '),
    });
  });

  it('trades a code for an access token with a form body carrying the client credentials; the code works once', async () => {
    const code = fake.issueCode(token, REDIRECT_URI);
    expect(await provider.oauth!.exchangeCode(code, REDIRECT_URI)).toEqual({ accessToken: token });
    const sent = lastRequest('POST', '/oauth2/token');
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(sent.body!.toString('utf8')))).toEqual({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: fake.oauthClient.clientId,
      client_secret: fake.oauthClient.clientSecret,
    });
    const again = await refusal(provider.oauth!.exchangeCode(code, REDIRECT_URI));
    expect(again.code).toBe('DNS_CREDENTIAL_INVALID');
    expect(everythingIn(again)).not.toContain(code);
  });

  it('follows the whole grant: the consent redirect carries a code and the state, and the token it buys lists zones', async () => {
    const response = await fetch(provider.oauth!.authorizeUrl('state-xyz', REDIRECT_URI), { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('state-xyz');
    const { accessToken } = await provider.oauth!.exchangeCode(back.searchParams.get('code')!, REDIRECT_URI);
    expect((await provider.listZones(accessToken)).map((z) => z.name)).toEqual([expect.stringMatching(/^oauth-.*\.example$/)]);
  });

  it('refuses a code for another redirect URI, and a wrong client secret, with DNS_CREDENTIAL_INVALID', async () => {
    expect((await refusal(provider.oauth!.exchangeCode(fake.issueCode(token, REDIRECT_URI), 'https://evil.example/cb'))).code).toBe('DNS_CREDENTIAL_INVALID');
    const wrongSecret = new CloudflareDnsProvider({
      apiUrl: fake.apiUrl,
      oauth: { ...fake.oauthClient, clientSecret: 'wrong', authorizeUrl: fake.authorizeUrl, tokenUrl: fake.tokenUrl },
    });
    expect((await refusal(wrongSecret.oauth!.exchangeCode(fake.issueCode(token, REDIRECT_URI), REDIRECT_URI))).code).toBe('DNS_CREDENTIAL_INVALID');
  });

  it('maps a failing token endpoint or an answer without an access token to UPSTREAM_ERROR', async () => {
    fake.fail('POST /oauth2/token', { status: 500, body: { error: 'server_error' } });
    expect((await refusal(provider.oauth!.exchangeCode(fake.issueCode(token, REDIRECT_URI), REDIRECT_URI))).code).toBe('UPSTREAM_ERROR');
    fake.fail('POST /oauth2/token', { status: 200, body: { token_type: 'bearer' } });
    expect((await refusal(provider.oauth!.exchangeCode(fake.issueCode(token, REDIRECT_URI), REDIRECT_URI))).code).toBe('UPSTREAM_ERROR');
  });

  it('has no OAuth without an OAuth app', () => {
    expect(new CloudflareDnsProvider({ apiUrl: fake.apiUrl }).oauth).toBeNull();
  });
});

describe('getDnsProvider', () => {
  const saved = { ...process.env };

  function configure(env: Record<string, string>): void {
    for (const name of Object.keys(process.env)) if (name.startsWith('DNS_')) delete process.env[name];
    Object.assign(process.env, env);
    resetConfigForTests();
    resetDnsProviderForTests();
  }

  afterAll(() => {
    process.env = saved;
    resetConfigForTests();
    resetDnsProviderForTests();
  });

  it('is the simulator by default, without OAuth, made once', () => {
    configure({});
    const made = getDnsProvider();
    expect(made.kind).toBe('simulator');
    expect(made.oauth).toBeNull();
    expect(getDnsProvider()).toBe(made);
  });

  it('is the Cloudflare adapter on DNS_API_URL, with OAuth only when both the client id and secret are set', async () => {
    configure({ DNS_PROVIDER: 'cloudflare', DNS_API_URL: fake.apiUrl, DNS_OAUTH_CLIENT_ID: fake.oauthClient.clientId });
    expect(getDnsProvider().kind).toBe('cloudflare');
    expect(getDnsProvider().oauth).toBeNull();
    expect((await getDnsProvider().listZones(token)).length).toBeGreaterThan(0);

    configure({
      DNS_PROVIDER: 'cloudflare',
      DNS_API_URL: fake.apiUrl,
      DNS_OAUTH_CLIENT_ID: fake.oauthClient.clientId,
      DNS_OAUTH_CLIENT_SECRET: fake.oauthClient.clientSecret,
      DNS_OAUTH_AUTHORIZE_URL: fake.authorizeUrl,
      DNS_OAUTH_TOKEN_URL: fake.tokenUrl,
    });
    expect(getDnsProvider().oauth!.authorizeUrl('s', REDIRECT_URI).startsWith(fake.authorizeUrl)).toBe(true);
    expect(await getDnsProvider().oauth!.exchangeCode(fake.issueCode(token, REDIRECT_URI), REDIRECT_URI)).toEqual({ accessToken: token });
  });

  it('defaults to Cloudflare’s own endpoints', () => {
    configure({ DNS_PROVIDER: 'cloudflare', DNS_OAUTH_CLIENT_ID: 'id', DNS_OAUTH_CLIENT_SECRET: 'secret' });
    expect(getDnsProvider().oauth!.authorizeUrl('s', REDIRECT_URI)).toMatch(/^https:\/\/dash\.cloudflare\.com\/oauth2\/auth\?/);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { DnsSimulator, MAX_RECORDS_PER_ZONE } from './simulator';
import type { DnsRecordInput } from './types';

function configure(env: Record<string, string>): void {
  Object.assign(process.env, env);
  resetConfigForTests();
}

/** A fresh account each time: 40 characters of Cloudflare's token alphabet. */
function token(): string {
  return randomBytes(30).toString('base64url');
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

function record(overrides: Partial<DnsRecordInput> = {}): DnsRecordInput {
  return { type: 'A', name: 'app', content: '192.0.2.10', ttl: 1, proxied: false, priority: null, ...overrides };
}

const sim = new DnsSimulator();

async function zoneOf(credential: string, name = 'example.com') {
  const zone = (await sim.listZones(credential)).find((candidate) => candidate.name === name);
  if (!zone) throw new Error(`no zone ${name}`);
  return zone;
}

beforeEach(() => {
  configure({ DNS_SIM_ZONES: 'example.com,example.net', DNS_SIM_FAIL: '' });
});

describe('DNS simulator: credentials', () => {
  it('accepts a 40-character token and names the account after its hash', async () => {
    const credential = token();
    const account = createHash('sha256').update(credential).digest('hex');
    expect(await sim.verifyCredential(credential)).toEqual({ accountName: `Simulated account ${account.slice(0, 6)}` });
    expect(sim.kind).toBe('simulator');
    expect(sim.oauth).toBeNull();
    expect(sim.description).toMatch(/simulated/i);
  });

  it.each([
    ['too short', 'a'.repeat(39)],
    ['too long', 'a'.repeat(41)],
    ['outside the token alphabet', `${'a'.repeat(39)}.`],
    ['empty', ''],
    ['revoked', `revoked${'a'.repeat(33)}`],
  ])('refuses a token %s with DNS_CREDENTIAL_INVALID, on every operation, without repeating it', async (_label, credential) => {
    for (const call of [
      () => sim.verifyCredential(credential),
      () => sim.listZones(credential),
      () => sim.listRecords(credential, 'dnszone_x'),
      () => sim.createRecord(credential, 'dnszone_x', record()),
      () => sim.updateRecord(credential, 'dnszone_x', 'dnsrec_x', record()),
      () => sim.deleteRecord(credential, 'dnszone_x', 'dnsrec_x'),
    ]) {
      const err = await refusal(call());
      expect(err.code).toBe('DNS_CREDENTIAL_INVALID');
      if (credential) expect(err.message).not.toContain(credential);
    }
  });

  it('stores no token: only its hash names the account', async () => {
    const credential = token();
    await sim.listZones(credential);
    const { getDb } = await import('../../../db');
    const { dnsSimZones } = await import('../../../db/schema');
    const rows = await (await getDb()).select().from(dnsSimZones);
    expect(JSON.stringify(rows)).not.toContain(credential);
    expect(rows.some((row) => row.account === createHash('sha256').update(credential).digest('hex'))).toBe(true);
  });
});

describe('DNS simulator: zones and seeding', () => {
  it('seeds a new account with the DNS_SIM_ZONES zones, active, each with an apex A, a www CNAME and an MX', async () => {
    const credential = token();
    const zones = await sim.listZones(credential);
    expect(zones.map((zone) => [zone.name, zone.status])).toEqual([
      ['example.com', 'active'],
      ['example.net', 'active'],
    ]);
    for (const zone of zones) {
      const records = await sim.listRecords(credential, zone.id);
      expect(records.map((r) => [r.type, r.name, r.content, r.priority])).toEqual(
        expect.arrayContaining([
          ['A', zone.name, '203.0.113.10', null],
          ['CNAME', `www.${zone.name}`, zone.name, null],
          ['MX', zone.name, `mail.${zone.name}`, 10],
        ]),
      );
      expect(records.every((r) => r.zoneId === zone.id)).toBe(true);
    }
  });

  it('seeds once, even when the first uses race each other', async () => {
    const credential = token();
    await Promise.all([sim.listZones(credential), sim.verifyCredential(credential), sim.listZones(credential), sim.listZones(credential)]);
    const zones = await sim.listZones(credential);
    expect(zones).toHaveLength(2);
    const records = await sim.listRecords(credential, zones[0]!.id);
    expect(records).toHaveLength(4);
  });

  it('does not seed again an account whose demo records were deleted', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    for (const existing of await sim.listRecords(credential, zone.id)) await sim.deleteRecord(credential, zone.id, existing.id);
    expect(await sim.listRecords(credential, zone.id)).toEqual([]);
    expect(await sim.listZones(credential)).toHaveLength(2);
  });

  it('takes its zones from DNS_SIM_ZONES', async () => {
    configure({ DNS_SIM_ZONES: 'Shop.Example.ORG., demo.test' });
    expect((await sim.listZones(token())).map((zone) => zone.name)).toEqual(['demo.test', 'shop.example.org']);
  });

  it('keeps accounts apart: the same zone names, other ids, and NOT_FOUND across accounts', async () => {
    const alice = token();
    const bob = token();
    const aliceZone = await zoneOf(alice);
    const bobZone = await zoneOf(bob);
    expect(bobZone.id).not.toBe(aliceZone.id);
    const [aliceRecord] = await sim.listRecords(alice, aliceZone.id);
    for (const call of [
      () => sim.listRecords(bob, aliceZone.id),
      () => sim.createRecord(bob, aliceZone.id, record()),
      () => sim.updateRecord(bob, aliceZone.id, aliceRecord!.id, record()),
      () => sim.deleteRecord(bob, aliceZone.id, aliceRecord!.id),
      // Bob's own zone with Alice's record in the path: still not his.
      () => sim.updateRecord(bob, bobZone.id, aliceRecord!.id, record()),
      () => sim.deleteRecord(bob, bobZone.id, aliceRecord!.id),
    ]) {
      expect((await refusal(call())).code).toBe('NOT_FOUND');
    }
    expect((await sim.listRecords(alice, aliceZone.id)).map((r) => r.id)).toContain(aliceRecord!.id);
  });

  it('keeps its state in PostgreSQL: another instance sees the same zones and records', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const created = await sim.createRecord(credential, zone.id, record());
    const other = new DnsSimulator();
    expect((await other.listRecords(credential, zone.id)).map((r) => r.id)).toContain(created.id);
  });
});

describe('DNS simulator: records', () => {
  it('creates a record with its name made fully qualified, and lists records by name then type', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const created = await sim.createRecord(credential, zone.id, record({ name: 'App', content: '192.0.2.10' }));
    expect(created).toMatchObject({ zoneId: zone.id, type: 'A', name: 'app.example.com', content: '192.0.2.10', ttl: 1, proxied: false, priority: null });
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    await sim.createRecord(credential, zone.id, record({ type: 'TXT', name: 'app', content: 'hello' }));
    await sim.createRecord(credential, zone.id, record({ type: 'AAAA', name: 'app.example.com', content: '2001:db8::1' }));
    await sim.createRecord(credential, zone.id, record({ type: 'SRV', name: '_sip._tcp', content: '10 5 5060 sip.example.com', ttl: 300 }));
    await sim.createRecord(credential, zone.id, record({ type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' }));
    const listed = (await sim.listRecords(credential, zone.id)).map((r) => `${r.name} ${r.type}`);
    expect(listed).toEqual([
      '_sip._tcp.example.com SRV',
      'app.example.com A',
      'app.example.com AAAA',
      'app.example.com TXT',
      'example.com A',
      'example.com CAA',
      'example.com MX',
      'mail.example.com A',
      'www.example.com CNAME',
    ]);
  });

  it('applies the record rules, each refusal on its field', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const cases: Array<[DnsRecordInput, string, RegExp]> = [
      [record({ proxied: true, ttl: 300 }), 'proxied', /proxied needs ttl 1/],
      [record({ type: 'MX', content: 'mail.example.com', priority: null }), 'priority', /MX records need a priority/],
      [record({ content: 'not-an-address' }), 'content', /IPv4/],
      [record({ name: 'www.other.com' }), 'name', /inside it/],
      [record({ type: 'CNAME', name: 'example.com', content: 'target.example.net' }), 'name', /cannot be at the zone apex/],
      [record({ type: 'CNAME', name: '@', content: 'target.example.net' }), 'name', /cannot be at the zone apex/],
    ];
    for (const [input, field, message] of cases) {
      const err = await refusal(sim.createRecord(credential, zone.id, input));
      expect(err.code).toBe('VALIDATION_ERROR');
      expect(err.fields?.[field]).toMatch(message);
    }
    expect(await sim.listRecords(credential, zone.id)).toHaveLength(4);
  });

  it('refuses an identical record, and a CNAME sharing its name with any other record, either way round', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    await sim.createRecord(credential, zone.id, record());
    const identical = await refusal(sim.createRecord(credential, zone.id, record({ name: 'APP.example.com.', ttl: 300 })));
    expect(identical.fields).toEqual({ content: 'an identical record already exists' });
    // The same name and type with other content is a second value of the set, which is allowed.
    await sim.createRecord(credential, zone.id, record({ content: '192.0.2.11' }));

    const cnameOverA = await refusal(sim.createRecord(credential, zone.id, record({ type: 'CNAME', content: 'target.example.net' })));
    expect(cnameOverA.fields?.name).toMatch(/CNAME record cannot share its name/);
    const txtBesideCname = await refusal(sim.createRecord(credential, zone.id, record({ type: 'TXT', name: 'www', content: 'hello' })));
    expect(txtBesideCname.fields?.name).toMatch(/a CNAME record already has this name/);
    const secondCname = await refusal(sim.createRecord(credential, zone.id, record({ type: 'CNAME', name: 'www', content: 'other.example.net' })));
    expect(secondCname.fields?.name).toMatch(/CNAME/);
  });

  it('lets one of two identical records racing into a zone in', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => sim.createRecord(credential, zone.id, record({ name: 'race' }))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((await sim.listRecords(credential, zone.id)).filter((r) => r.name === 'race.example.com')).toHaveLength(1);
  });

  it(`holds at most ${MAX_RECORDS_PER_ZONE} records in a zone`, async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const room = MAX_RECORDS_PER_ZONE - (await sim.listRecords(credential, zone.id)).length;
    for (let i = 0; i < room; i += 1) await sim.createRecord(credential, zone.id, record({ type: 'TXT', content: `value ${i}` }));
    const err = await refusal(sim.createRecord(credential, zone.id, record({ type: 'TXT', content: 'one too many' })));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(new RegExp(`${MAX_RECORDS_PER_ZONE} records`));
    expect(await sim.listRecords(credential, zone.id)).toHaveLength(MAX_RECORDS_PER_ZONE);
    // Replacing a record is no new record: the full zone still takes it.
    const [first] = await sim.listRecords(credential, zone.id);
    await sim.updateRecord(credential, zone.id, first!.id, record({ type: 'TXT', content: 'replaced' }));
  }, 60_000);

  it('replaces every field of a record, keeps its creation time and moves its modification time', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const created = await sim.createRecord(credential, zone.id, record());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await sim.updateRecord(credential, zone.id, created.id, {
      type: 'MX',
      name: 'app',
      content: 'mx.example.net',
      ttl: 600,
      proxied: false,
      priority: 20,
    });
    expect(updated).toMatchObject({ id: created.id, type: 'MX', name: 'app.example.com', content: 'mx.example.net', ttl: 600, priority: 20 });
    expect(updated.createdAt).toBe(created.createdAt);
    expect(Date.parse(updated.modifiedAt)).toBeGreaterThan(Date.parse(created.modifiedAt));
    expect((await sim.listRecords(credential, zone.id)).find((r) => r.id === created.id)).toEqual(updated);
    // Saving a record unchanged is no clash with itself.
    await sim.updateRecord(credential, zone.id, created.id, { type: 'MX', name: 'app', content: 'mx.example.net', ttl: 600, proxied: false, priority: 20 });
  });

  it('refuses an update that breaks a rule or clashes with another record, and answers NOT_FOUND for an unknown one', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const first = await sim.createRecord(credential, zone.id, record());
    const second = await sim.createRecord(credential, zone.id, record({ content: '192.0.2.11' }));
    expect((await refusal(sim.updateRecord(credential, zone.id, second.id, record()))).fields).toEqual({ content: 'an identical record already exists' });
    expect((await refusal(sim.updateRecord(credential, zone.id, first.id, record({ type: 'CNAME', content: 'x.example.net' })))).fields?.name).toMatch(
      /cannot share its name/,
    );
    expect((await refusal(sim.updateRecord(credential, zone.id, first.id, record({ ttl: 30 })))).fields?.ttl).toMatch(/ttl must be 1/);
    expect((await refusal(sim.updateRecord(credential, zone.id, 'dnsrec_missing', record({ content: '192.0.2.99' })))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.listRecords(credential, 'dnszone_missing'))).code).toBe('NOT_FOUND');
  });

  it('deletes a record permanently; a second delete is NOT_FOUND', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const created = await sim.createRecord(credential, zone.id, record());
    await sim.deleteRecord(credential, zone.id, created.id);
    expect((await sim.listRecords(credential, zone.id)).map((r) => r.id)).not.toContain(created.id);
    expect((await refusal(sim.deleteRecord(credential, zone.id, created.id))).code).toBe('NOT_FOUND');
  });
});

describe('DNS simulator: DNS_SIM_FAIL', () => {
  it('makes each named operation fail with UPSTREAM_ERROR and leaves the others working', async () => {
    const credential = token();
    const zone = await zoneOf(credential);
    const existing = await sim.createRecord(credential, zone.id, record());
    const operations = {
      verify: () => sim.verifyCredential(credential),
      zones: () => sim.listZones(credential),
      records: () => sim.listRecords(credential, zone.id),
      create: () => sim.createRecord(credential, zone.id, record({ name: 'fresh' })),
      update: () => sim.updateRecord(credential, zone.id, existing.id, record({ content: '192.0.2.12' })),
      delete: () => sim.deleteRecord(credential, zone.id, existing.id),
    };
    for (const [failing, call] of Object.entries(operations)) {
      configure({ DNS_SIM_FAIL: failing });
      const err = await refusal(call());
      expect(err.code).toBe('UPSTREAM_ERROR');
      expect(err.message).toContain(failing);
      const others = Object.entries(operations).filter(([name]) => name !== failing && name !== 'delete' && name !== 'create');
      for (const [, other] of others) await other();
    }
    configure({ DNS_SIM_FAIL: '' });
    await sim.deleteRecord(credential, zone.id, existing.id);
  });

  it('refuses an unknown operation name at configuration time', () => {
    configure({ DNS_SIM_FAIL: 'explode' });
    return import('../../platform/config').then(({ getConfig }) => {
      expect(() => getConfig()).toThrow(/DNS_SIM_FAIL: unknown operation "explode"/);
      configure({ DNS_SIM_FAIL: '' });
    });
  });
});

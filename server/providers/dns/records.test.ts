import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors';
import { dnsRecordInputSchema, recordInZone, recordNameInZone, type DnsRecordBody } from './records';

const base: Record<DnsRecordBody['type'], DnsRecordBody> = {
  A: { type: 'A', name: '@', content: '192.0.2.1', ttl: 1, proxied: false },
  AAAA: { type: 'AAAA', name: 'www', content: '2001:db8::1', ttl: 1, proxied: false },
  CNAME: { type: 'CNAME', name: 'www', content: 'example.net', ttl: 1, proxied: false },
  MX: { type: 'MX', name: '@', content: 'mail.example.com', ttl: 3600, proxied: false, priority: 10 },
  TXT: { type: 'TXT', name: '_dmarc', content: 'v=DMARC1; p=none', ttl: 1, proxied: false },
  NS: { type: 'NS', name: 'sub', content: 'ns1.example.net', ttl: 86_400, proxied: false },
  SRV: { type: 'SRV', name: '_sip._tcp', content: '10 5 5060 sip.example.com', ttl: 60, proxied: false },
  CAA: { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"', ttl: 1, proxied: false },
};

const accepted: Array<[string, DnsRecordBody]> = [
  ['A with an IPv4 address', base.A],
  ['A proxied with ttl 1', { ...base.A, proxied: true }],
  ['AAAA with an IPv6 address', base.AAAA],
  ['AAAA proxied', { ...base.AAAA, proxied: true }],
  ['CNAME to a host name', base.CNAME],
  ['CNAME proxied', { ...base.CNAME, proxied: true }],
  ['CNAME to a host name with a final dot and underscores', { ...base.CNAME, name: 's1._domainkey', content: 's1.domainkey.u123.wl.sendgrid.net.' }],
  ['MX with priority 0', { ...base.MX, priority: 0 }],
  ['MX with priority 65535', { ...base.MX, priority: 65_535 }],
  ['TXT of one character', { ...base.TXT, content: 'x' }],
  ['TXT of 2048 characters', { ...base.TXT, content: 'a'.repeat(2048) }],
  ['TXT with non-ASCII printable text', { ...base.TXT, content: 'café ☕ "quoted"' }],
  ['NS to a host name', base.NS],
  ['SRV with a host target', base.SRV],
  ['SRV with . as target and the largest numbers', { ...base.SRV, content: '65535 65535 65535 .' }],
  ['CAA issue', base.CAA],
  ['CAA issuewild with flags 128', { ...base.CAA, content: '128 issuewild ";"' }],
  ['CAA iodef', { ...base.CAA, content: '0 iodef "mailto:security@example.com"' }],
  ['ttl 60', { ...base.A, ttl: 60 }],
  ['ttl 86400', { ...base.A, ttl: 86_400 }],
  ['a wildcard name', { ...base.A, name: '*.apps' }],
  ['a fully qualified name', { ...base.A, name: 'www.example.com.' }],
  ['priority given as null for a non-MX record', { ...base.A, priority: null }],
];

const refused: Array<[string, unknown, string, RegExp]> = [
  ['an unknown type', { ...base.A, type: 'PTR' }, 'type', /type must be one of A, AAAA, CNAME, MX, TXT, NS, SRV, CAA/],
  ['an empty name', { ...base.A, name: '' }, 'name', /name is required/],
  ['a name with a space', { ...base.A, name: 'my host' }, 'name', /name must be @ or a domain name/],
  ['a label longer than 63 characters', { ...base.A, name: 'a'.repeat(64) }, 'name', /name must be @ or a domain name/],
  ['a label starting with a hyphen', { ...base.A, name: '-www' }, 'name', /name must be @ or a domain name/],
  ['a wildcard that is not the first label', { ...base.A, name: 'www.*' }, 'name', /name must be @ or a domain name/],
  ['ttl 0', { ...base.A, ttl: 0 }, 'ttl', /ttl must be 1 \(automatic\) or 60 to 86400 seconds/],
  ['ttl 59', { ...base.A, ttl: 59 }, 'ttl', /ttl must be 1 \(automatic\) or 60 to 86400 seconds/],
  ['ttl 86401', { ...base.A, ttl: 86_401 }, 'ttl', /ttl must be 1 \(automatic\) or 60 to 86400 seconds/],
  ['a fractional ttl', { ...base.A, ttl: 60.5 }, 'ttl', /ttl must be a whole number/],
  ['proxied without a boolean', { ...base.A, proxied: 'yes' }, 'proxied', /./],
  ['proxied with ttl 300', { ...base.A, proxied: true, ttl: 300 }, 'proxied', /proxied needs ttl 1 \(automatic\)/],
  ['proxied MX', { ...base.MX, ttl: 1, proxied: true }, 'proxied', /proxied applies only to A, AAAA and CNAME records/],
  ['proxied TXT', { ...base.TXT, proxied: true }, 'proxied', /proxied applies only to A, AAAA and CNAME records/],
  ['proxied NS', { ...base.NS, ttl: 1, proxied: true }, 'proxied', /proxied applies only to A, AAAA and CNAME records/],
  ['proxied SRV', { ...base.SRV, ttl: 1, proxied: true }, 'proxied', /proxied applies only to A, AAAA and CNAME records/],
  ['proxied CAA', { ...base.CAA, proxied: true }, 'proxied', /proxied applies only to A, AAAA and CNAME records/],
  ['MX without priority', { ...base.MX, priority: undefined }, 'priority', /MX records need a priority from 0 to 65535/],
  ['MX with a null priority', { ...base.MX, priority: null }, 'priority', /MX records need a priority from 0 to 65535/],
  ['MX with priority 65536', { ...base.MX, priority: 65_536 }, 'priority', /priority must be from 0 to 65535/],
  ['MX with a negative priority', { ...base.MX, priority: -1 }, 'priority', /priority must be from 0 to 65535/],
  ['MX with a fractional priority', { ...base.MX, priority: 1.5 }, 'priority', /priority must be a whole number/],
  ['a priority on an A record', { ...base.A, priority: 10 }, 'priority', /priority applies only to MX records/],
  ['a priority on an SRV record', { ...base.SRV, priority: 10 }, 'priority', /priority applies only to MX records/],
  ['A with an IPv6 address', { ...base.A, content: '2001:db8::1' }, 'content', /A record must be an IPv4 address/],
  ['A with an octet over 255', { ...base.A, content: '192.0.2.256' }, 'content', /A record must be an IPv4 address/],
  ['A with a host name', { ...base.A, content: 'example.com' }, 'content', /A record must be an IPv4 address/],
  ['AAAA with an IPv4 address', { ...base.AAAA, content: '192.0.2.1' }, 'content', /AAAA record must be an IPv6 address/],
  ['AAAA with garbage', { ...base.AAAA, content: '2001:db8::g' }, 'content', /AAAA record must be an IPv6 address/],
  ['CNAME to an address', { ...base.CNAME, content: '192.0.2.1 x' }, 'content', /CNAME record must be a host name/],
  ['CNAME to a single label', { ...base.CNAME, content: 'localhost' }, 'content', /CNAME record must be a host name/],
  ['CNAME at the apex', { ...base.CNAME, name: '@' }, 'name', /a CNAME record cannot be at the zone apex/],
  ['NS to a name with a space', { ...base.NS, content: 'ns1 example.net' }, 'content', /NS record must be a host name/],
  ['MX to a URL', { ...base.MX, content: 'https://mail.example.com' }, 'content', /MX record must be a host name/],
  ['an empty content', { ...base.TXT, content: '' }, 'content', /content is required/],
  ['TXT of 2049 characters', { ...base.TXT, content: 'a'.repeat(2049) }, 'content', /TXT record must be at most 2048 characters/],
  ['TXT with a newline', { ...base.TXT, content: 'line\nbreak' }, 'content', /TXT record must be printable text/],
  ['SRV with three parts', { ...base.SRV, content: '10 5 5060' }, 'content', /SRV record must be "priority weight port target"/],
  ['SRV with a port over 65535', { ...base.SRV, content: '10 5 65536 sip.example.com' }, 'content', /must be whole numbers from 0 to 65535/],
  ['SRV with a negative weight', { ...base.SRV, content: '10 -5 5060 sip.example.com' }, 'content', /must be whole numbers from 0 to 65535/],
  ['SRV with a bad target', { ...base.SRV, content: '10 5 5060 sip_host!' }, 'content', /target of an SRV record must be a host name/],
  ['CAA with flags 256', { ...base.CAA, content: '256 issue "letsencrypt.org"' }, 'content', /flags of a CAA record must be a whole number from 0 to 255/],
  [
    'CAA with an unknown tag',
    { ...base.CAA, content: '0 contactemail "a@example.com"' },
    'content',
    /tag of a CAA record must be one of issue, issuewild, iodef/,
  ],
  ['CAA with an unquoted value', { ...base.CAA, content: '0 issue letsencrypt.org' }, 'content', /value of a CAA record must be in double quotes/],
  ['CAA with two parts', { ...base.CAA, content: '0 issue' }, 'content', /CAA record must be 'flags tag "value"'/],
];

describe('dnsRecordInputSchema', () => {
  it.each(accepted)('accepts %s', (_label, body) => {
    const result = dnsRecordInputSchema.safeParse(body);
    expect(result.error?.issues).toBeUndefined();
    expect(result.success).toBe(true);
  });

  it.each(refused)('refuses %s, on the right field with the rule named', (_label, body, path, message) => {
    const result = dnsRecordInputSchema.safeParse(body);
    expect(result.success).toBe(false);
    const issues = result.error?.issues ?? [];
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toContainEqual([path, expect.stringMatching(message)]);
  });

  it('normalises what it accepts: lower-case names and host names without the final dot, single spaces, priority null', () => {
    expect(dnsRecordInputSchema.parse({ ...base.CNAME, name: 'WWW', content: 'Target.Example.NET.' })).toEqual({
      type: 'CNAME',
      name: 'www',
      content: 'target.example.net',
      ttl: 1,
      proxied: false,
      priority: null,
    });
    expect(dnsRecordInputSchema.parse({ ...base.SRV, content: ' 010  5 5060   SIP.example.com. ' }).content).toBe('10 5 5060 sip.example.com');
    expect(dnsRecordInputSchema.parse({ ...base.CAA, content: '0   issue  "letsencrypt.org"' }).content).toBe('0 issue "letsencrypt.org"');
    expect(dnsRecordInputSchema.parse(base.MX).priority).toBe(10);
    expect(dnsRecordInputSchema.parse(base.TXT).content).toBe('v=DMARC1; p=none');
  });
});

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('recordNameInZone', () => {
  it.each([
    ['@', 'example.com', 'example.com'],
    ['example.com', 'example.com', 'example.com'],
    ['Example.COM.', 'example.com', 'example.com'],
    ['www', 'example.com', 'www.example.com'],
    ['_dmarc', 'example.com', '_dmarc.example.com'],
    ['_sip._tcp', 'example.com', '_sip._tcp.example.com'],
    ['*', 'example.com', '*.example.com'],
    ['WWW.Example.com', 'example.com', 'www.example.com'],
    ['deep.www.example.com.', 'example.com', 'deep.www.example.com'],
    ['www', 'Example.co.uk.', 'www.example.co.uk'],
  ])('%s in %s is %s', (name, zone, expected) => {
    expect(recordNameInZone(name, zone)).toBe(expected);
  });

  it.each([
    ['www.other.com', 'example.com', /name must be the zone example\.com or a name inside it/],
    ['other.com.', 'example.com', /name must be the zone example\.com or a name inside it/],
    ['notexample.com', 'example.com', /name must be the zone example\.com or a name inside it/],
    ['com', 'example.com', /name must be the zone example\.com or a name inside it/],
    ['bad name', 'example.com', /name must be @ or a domain name/],
    [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}`, 'example.com', /at most 253 characters/],
  ])('refuses %s in %s with 422 on name', (name, zone, message) => {
    const err = refusal(() => recordNameInZone(name, zone));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.status).toBe(422);
    expect(err.fields?.name).toMatch(message);
  });
});

describe('recordInZone', () => {
  it('makes the name fully qualified and keeps the rest', () => {
    const record = dnsRecordInputSchema.parse(base.MX);
    expect(recordInZone({ ...record, name: 'mail' }, 'example.com')).toEqual({ ...record, name: 'mail.example.com' });
  });

  it('refuses a CNAME at the apex written as the zone name', () => {
    const record = dnsRecordInputSchema.parse({ ...base.CNAME, name: 'example.com' });
    const err = refusal(() => recordInZone(record, 'example.com'));
    expect(err.fields).toEqual({ name: 'a CNAME record cannot be at the zone apex' });
    expect(recordInZone({ ...record, name: 'www' }, 'example.com').name).toBe('www.example.com');
  });
});

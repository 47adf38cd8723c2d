import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/fakes/webhookReceiver';
import { resetConfigForTests } from './config';
import { checkOutboundUrl, classifyAddress, outboundRequest, setOutboundResolver } from './outbound';

function allowPrivate(allowed: boolean): void {
  if (allowed) process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS = 'true';
  else delete process.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
}

/** A stub DNS: each name answers the addresses given, and every lookup is counted. */
function stubDns(table: Record<string, string[]>): { lookups: string[] } {
  const lookups: string[] = [];
  setOutboundResolver(async (hostname) => {
    lookups.push(hostname);
    return table[hostname] ?? [];
  });
  return { lookups };
}

beforeEach(() => allowPrivate(false));
afterEach(() => {
  setOutboundResolver(undefined);
  allowPrivate(false);
});

describe('address classes', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['172.32.0.1', 'public'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });
});

describe('checking a URL before it is saved', () => {
  it('accepts an https URL whose host resolves to public addresses only', async () => {
    stubDns({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    await expect(checkOutboundUrl('https://hooks.example.com/in')).resolves.toMatchObject({
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
  });

  it.each([
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['not a url', /absolute URL/],
    ['https://user:pass@hooks.example.com/', /user name or password/],
    ['https://nowhere.example.com/', /does not resolve/],
    ['https://internal.example.com/', /resolves to 10\.0\.0\.5, a private address/],
    ['https://mixed.example.com/', /resolves to 127\.0\.0\.1, a loopback address/],
    ['https://169.254.169.254/latest/meta-data', /cloud metadata address/],
    ['https://[fd00:ec2::254]/', /cloud metadata address/],
    ['https://[::1]:8443/', /loopback/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://cgnat.example.com/', /100\.64\.1\.1, a private address/],
    ['https://link.example.com/', /link-local/],
  ])('refuses %s with 422 URL_NOT_ALLOWED saying why', async (url, message) => {
    stubDns({
      'hooks.example.com': ['93.184.216.34'],
      'internal.example.com': ['10.0.0.5'],
      'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      'cgnat.example.com': ['100.64.1.1'],
      'link.example.com': ['fe80::1'],
    });
    const refusal = await checkOutboundUrl(url).catch((err: unknown) => err);
    expect(refusal).toMatchObject({ code: 'URL_NOT_ALLOWED', status: 422, fields: { url: expect.stringMatching(message) } });
  });

  it('lets loopback, private and http through with OUTBOUND_ALLOW_PRIVATE_NETWORKS, never metadata or link-local', async () => {
    allowPrivate(true);
    stubDns({ 'dev.example.com': ['127.0.0.1'], 'lan.example.com': ['192.168.0.10'] });
    await expect(checkOutboundUrl('http://dev.example.com:3000/')).resolves.toBeTruthy();
    await expect(checkOutboundUrl('https://lan.example.com/')).resolves.toBeTruthy();
    await expect(checkOutboundUrl('http://169.254.169.254/')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(checkOutboundUrl('http://[fe80::1]/')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });
});

describe('sending', () => {
  let receiver: WebhookReceiver;
  afterEach(() => receiver?.close());

  const send = (url: string) =>
    outboundRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2000, maxResponseBytes: 1024 });

  it('resolves once and connects to the address it checked: a name that rebinds to loopback afterwards is not followed', async () => {
    allowPrivate(true);
    receiver = await startWebhookReceiver();
    const port = new URL(receiver.url).port;
    let calls = 0;
    setOutboundResolver(async () => {
      calls += 1;
      return calls === 1 ? ['127.0.0.1'] : ['10.255.255.1'];
    });
    const answer = await send(`http://rebind.example.test:${port}/hook`);
    expect(answer.status).toBe(204);
    expect(calls).toBe(1);
    expect(receiver.received[0]!.headers.host).toBe(`rebind.example.test:${port}`);
  });

  it('refuses at delivery a name that now resolves to a private address, without connecting', async () => {
    allowPrivate(true);
    receiver = await startWebhookReceiver();
    const port = new URL(receiver.url).port;
    const dns = stubDns({ 'hooks.example.test': ['127.0.0.1'] });
    await checkOutboundUrl(`http://hooks.example.test:${port}/hook`);
    allowPrivate(false);
    await expect(send(`https://hooks.example.test:${port}/hook`)).rejects.toMatchObject({
      name: 'OutboundFailure',
      message: expect.stringMatching(/loopback/),
    });
    expect(dns.lookups).toEqual(['hooks.example.test', 'hooks.example.test']);
    expect(receiver.fake.requests).toHaveLength(0);
  });

  it('does not follow redirects', async () => {
    allowPrivate(true);
    receiver = await startWebhookReceiver();
    receiver.fail({ status: 307, headers: { location: receiver.url.replace('/hook', '/elsewhere') }, body: 'moved' });
    const answer = await send(receiver.url);
    expect(answer).toMatchObject({ status: 307, body: 'moved' });
    expect(receiver.fake.requests).toHaveLength(1);
  });
});

import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, RecordType } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { dnsSimRecords, dnsSimZones } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { resetConfigForTests } from '../../platform/config';
import { startConfiguredNameserver, startNameserver, txtStrings, type RunningNameserver } from './nameserver';

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

let server: RunningNameserver;

async function addZone(name: string, account = 'acct-a'): Promise<string> {
  const id = newId('dz');
  await (await getDb()).insert(dnsSimZones).values({ id, account, name, status: 'active' });
  return id;
}

async function addRecord(zoneId: string, type: string, name: string, content: string, extra: { ttl?: number; priority?: number } = {}): Promise<void> {
  await (
    await getDb()
  )
    .insert(dnsSimRecords)
    .values({ id: newId('dr'), zoneId, type, name, content, ttl: extra.ttl ?? 1, proxied: false, priority: extra.priority ?? null });
}

function queryMessage(name: string, type: RecordType, edns: boolean): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id: 4242,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name, class: 'IN' }],
    additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
  });
}

async function askUdp(name: string, type: RecordType, { edns = true } = {}): Promise<DecodedPacket> {
  const socket = createSocket('udp4');
  try {
    const reply = new Promise<Buffer>((resolve, reject) => {
      socket.once('message', resolve);
      socket.once('error', reject);
      setTimeout(() => reject(new Error('no UDP answer')), 3000);
    });
    socket.send(queryMessage(name, type, edns), server.port, '127.0.0.1');
    return dnsPacket.decode(await reply);
  } finally {
    socket.close();
  }
}

/** Two queries on one connection, so the framing of consecutive messages is exercised too. */
async function askTcp(...questions: Array<[string, RecordType]>): Promise<DecodedPacket[]> {
  const socket = connect(server.port, '127.0.0.1');
  try {
    let received = Buffer.alloc(0);
    const replies = new Promise<DecodedPacket[]>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const messages: DecodedPacket[] = [];
        let rest = received;
        while (rest.length >= 2 && rest.length >= 2 + rest.readUInt16BE(0)) {
          messages.push(dnsPacket.decode(rest.subarray(2, 2 + rest.readUInt16BE(0))));
          rest = rest.subarray(2 + rest.readUInt16BE(0));
        }
        if (messages.length === questions.length) resolve(messages);
      });
      socket.once('error', reject);
      setTimeout(() => reject(new Error('no TCP answer')), 3000);
    });
    // Sent as one write, split mid-message, to check the server reassembles frames.
    const frames = Buffer.concat(questions.map(([name, type]) => dnsPacket.streamEncode(dnsPacket.decode(queryMessage(name, type, false)))));
    socket.write(frames.subarray(0, 7));
    setTimeout(() => socket.write(frames.subarray(7)), 20);
    return await replies;
  } finally {
    socket.destroy();
  }
}

const rcodeOf = (packet: DecodedPacket) => RCODES[(packet.flags ?? 0) & 0xf];
const dataOf = (answers: Answer[] | undefined, type: string) => (answers ?? []).filter((a) => a.type === type).map((a) => ('data' in a ? a.data : null));

beforeAll(async () => {
  server = await startNameserver({ host: '127.0.0.1', port: 0 });
  const zone = await addZone('example.test');
  await addRecord(zone, 'NS', 'example.test', 'ns1.dns-sim.test');
  await addRecord(zone, 'A', 'example.test', '192.0.2.10', { ttl: 600 });
  await addRecord(zone, 'A', 'example.test', '192.0.2.11', { ttl: 600 });
  await addRecord(zone, 'AAAA', 'example.test', '2001:db8::10');
  await addRecord(zone, 'CNAME', 'www.example.test', 'example.test');
  await addRecord(zone, 'CNAME', 'cdn.example.test', 'edge.elsewhere.test');
  await addRecord(zone, 'MX', 'example.test', 'mail.example.test', { priority: 10 });
  await addRecord(zone, 'MX', 'example.test', 'backup.example.test', { priority: 20 });
  await addRecord(zone, 'SRV', '_sip._tcp.example.test', '10 60 5060 sip.example.test');
  await addRecord(zone, 'SRV', '_xmpp._tcp.example.test', '5 5222 xmpp.example.test', { priority: 3 });
  await addRecord(zone, 'CAA', 'example.test', '0 issue "letsencrypt.org"');
  await addRecord(zone, 'CAA', 'example.test', '128 iodef "mailto:security@example.test"');
  await addRecord(zone, 'TXT', 'deep.below.example.test', 'v=1');
  for (let i = 0; i < 12; i += 1) await addRecord(zone, 'TXT', 'big.example.test', `${i}-${'x'.repeat(200)}`);
  // Another account holding a zone of the same name: a simulator serves both.
  await addRecord(await addZone('example.test', 'acct-b'), 'A', 'other.example.test', '192.0.2.99');
});

afterAll(async () => {
  await server.stop();
});

describe('the DNS simulator nameserver', () => {
  it('answers A and AAAA from the zone, authoritatively, with the record TTL and 300 for automatic', async () => {
    const a = await askUdp('example.test', 'A');
    expect(rcodeOf(a)).toBe('NOERROR');
    expect(a.flag_aa).toBe(true);
    expect(a.id).toBe(4242);
    expect(dataOf(a.answers, 'A').sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(a.answers?.every((r) => 'ttl' in r && r.ttl === 600)).toBe(true);

    const aaaa = await askUdp('EXAMPLE.test', 'AAAA');
    expect(dataOf(aaaa.answers, 'AAAA')).toEqual(['2001:db8::10']);
    expect(aaaa.answers?.[0] && 'ttl' in aaaa.answers[0] ? aaaa.answers[0].ttl : null).toBe(300);
  });

  it('answers a CNAME when asked for it, and with the CNAME and its in-zone target for another type', async () => {
    const cname = await askUdp('www.example.test', 'CNAME');
    expect(dataOf(cname.answers, 'CNAME')).toEqual(['example.test']);

    const a = await askUdp('www.example.test', 'A');
    expect(rcodeOf(a)).toBe('NOERROR');
    expect(a.answers?.map((r) => r.type)).toEqual(['CNAME', 'A', 'A']);
    expect(dataOf(a.answers, 'A').sort()).toEqual(['192.0.2.10', '192.0.2.11']);

    const outside = await askUdp('cdn.example.test', 'TXT');
    expect(rcodeOf(outside)).toBe('NOERROR');
    expect(dataOf(outside.answers, 'CNAME')).toEqual(['edge.elsewhere.test']);
    expect(outside.answers).toHaveLength(1);
  });

  it('answers MX with preferences, SRV in both conventional forms and CAA with flags', async () => {
    const mx = await askUdp('example.test', 'MX');
    expect(dataOf(mx.answers, 'MX')).toEqual(
      expect.arrayContaining([
        { preference: 10, exchange: 'mail.example.test' },
        { preference: 20, exchange: 'backup.example.test' },
      ]),
    );

    const sip = await askUdp('_sip._tcp.example.test', 'SRV');
    expect(dataOf(sip.answers, 'SRV')).toEqual([{ priority: 10, weight: 60, port: 5060, target: 'sip.example.test' }]);
    const xmpp = await askUdp('_xmpp._tcp.example.test', 'SRV');
    expect(dataOf(xmpp.answers, 'SRV')).toEqual([{ priority: 3, weight: 5, port: 5222, target: 'xmpp.example.test' }]);

    const caa = await askUdp('example.test', 'CAA');
    expect(dataOf(caa.answers, 'CAA')).toEqual(
      expect.arrayContaining([
        { flags: 0, tag: 'issue', value: 'letsencrypt.org', issuerCritical: false },
        { flags: 128, tag: 'iodef', value: 'mailto:security@example.test', issuerCritical: true },
      ]),
    );
  });

  it('answers NS and the SOA at the apex', async () => {
    expect(dataOf((await askUdp('example.test', 'NS')).answers, 'NS')).toEqual(['ns1.dns-sim.test']);
    const [soa] = dataOf((await askUdp('example.test', 'SOA')).answers, 'SOA');
    expect(soa).toMatchObject({ mname: 'ns1.dns-sim.test', rname: 'hostmaster.example.test', minimum: 60 });
  });

  it('says NXDOMAIN for an empty name, NODATA for a name without the type, and REFUSED outside its zones', async () => {
    const missing = await askUdp('nothing.example.test', 'A');
    expect(rcodeOf(missing)).toBe('NXDOMAIN');
    expect(missing.answers).toEqual([]);
    expect(missing.authorities?.map((r) => r.type)).toEqual(['SOA']);

    const noData = await askUdp('example.test', 'TXT');
    expect(rcodeOf(noData)).toBe('NOERROR');
    expect(noData.answers).toEqual([]);
    expect(noData.authorities?.map((r) => r.type)).toEqual(['SOA']);

    const emptyNonTerminal = await askUdp('below.example.test', 'TXT');
    expect(rcodeOf(emptyNonTerminal)).toBe('NOERROR');
    expect(emptyNonTerminal.answers).toEqual([]);

    const foreign = await askUdp('example.org', 'A');
    expect(rcodeOf(foreign)).toBe('REFUSED');
    expect(foreign.flag_aa).toBe(false);
  });

  it('serves the records of every account holding a zone of that name', async () => {
    expect(dataOf((await askUdp('other.example.test', 'A')).answers, 'A')).toEqual(['192.0.2.99']);
  });

  it('truncates an answer too large for UDP, and gives it whole over TCP', async () => {
    const udp = await askUdp('big.example.test', 'TXT', { edns: false });
    expect(udp.flag_tc).toBe(true);
    expect(udp.answers).toEqual([]);

    const [big, mx] = await askTcp(['big.example.test', 'TXT'], ['example.test', 'MX']);
    expect(big?.flag_tc).toBe(false);
    expect(big?.answers).toHaveLength(12);
    expect(dataOf(mx?.answers, 'MX')).toHaveLength(2);
  });

  it('is started from DNS_SIM_NAMESERVER, and not at all without it', async () => {
    const previous = process.env.DNS_SIM_NAMESERVER;
    try {
      process.env.DNS_SIM_NAMESERVER = '';
      resetConfigForTests();
      expect(await startConfiguredNameserver()).toBeNull();

      const probe = await startNameserver({ host: '127.0.0.1', port: 0 });
      const freePort = probe.port;
      await probe.stop();
      process.env.DNS_SIM_NAMESERVER = `127.0.0.1:${freePort}`;
      resetConfigForTests();
      const configured = await startConfiguredNameserver();
      expect(configured?.port).toBe(freePort);
      await configured?.stop();
    } finally {
      if (previous === undefined) delete process.env.DNS_SIM_NAMESERVER;
      else process.env.DNS_SIM_NAMESERVER = previous;
      resetConfigForTests();
    }
  });
});

describe('txtStrings', () => {
  it('cuts a value into strings of at most 255 bytes, between characters, that join back to it', () => {
    const value = `${'a'.repeat(254)}é${'ü'.repeat(200)}`;
    const strings = txtStrings(value);
    expect(strings.every((s) => s.length <= 255)).toBe(true);
    expect(strings[0]?.length).toBe(254);
    expect(strings.map((s) => s.toString('utf8')).join('')).toBe(value);
    expect(txtStrings('')).toEqual([Buffer.alloc(0)]);
  });
});

import { createSocket, type Socket } from 'node:dgram';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../db';
import { dnsSimRecords, dnsSimZones } from '../../db/schema';
import { newId } from '../../db/schema/ids';
import { startNameserver, type RunningNameserver } from '../providers/dns/nameserver';
import { getConfig, resetConfigForTests } from './config';
import { lookupTxt } from './dnsLookup';

const VERIFICATION = 'panel-verification=3f9a2c7e1b5d4e6f8a0b';
const LONG_VALUE = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(10)}`;

let nameserver: RunningNameserver;

function useResolvers(servers: string, timeoutMs = 3000): void {
  process.env.DNS_RESOLVERS = servers;
  process.env.DNS_LOOKUP_TIMEOUT_MS = String(timeoutMs);
  resetConfigForTests();
}

async function addRecord(zoneId: string, type: string, name: string, content: string): Promise<void> {
  await (await getDb()).insert(dnsSimRecords).values({ id: newId('dr'), zoneId, type, name, content, ttl: 1, proxied: false, priority: null });
}

beforeAll(async () => {
  nameserver = await startNameserver({ host: '127.0.0.1', port: 0 });
  const zoneId = newId('dz');
  await (await getDb()).insert(dnsSimZones).values({ id: zoneId, account: 'acct', name: 'verify.test', status: 'active' });
  await addRecord(zoneId, 'TXT', '_panel-challenge.verify.test', VERIFICATION);
  await addRecord(zoneId, 'TXT', 'several.verify.test', 'v=spf1 -all');
  await addRecord(zoneId, 'TXT', 'several.verify.test', VERIFICATION);
  await addRecord(zoneId, 'TXT', 'long.verify.test', LONG_VALUE);
  await addRecord(zoneId, 'TXT', 'stale.verify.test', 'panel-verification=an-old-token');
  await addRecord(zoneId, 'A', 'www.verify.test', '192.0.2.1');
});

afterEach(() => {
  delete process.env.DNS_RESOLVERS;
  delete process.env.DNS_LOOKUP_TIMEOUT_MS;
  resetConfigForTests();
});

afterAll(async () => {
  await nameserver.stop();
});

describe('lookupTxt against the simulator nameserver', () => {
  it('finds the TXT record at a name', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('_panel-challenge.verify.test')).toEqual({ found: [VERIFICATION], error: null });
  });

  it('finds every TXT record at a name', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    const result = await lookupTxt('several.verify.test');
    expect(result.error).toBeNull();
    expect(result.found.sort()).toEqual([VERIFICATION, 'v=spf1 -all'].sort());
  });

  it('joins the strings of a value longer than 255 bytes back into the value', async () => {
    expect(Buffer.byteLength(LONG_VALUE)).toBeGreaterThan(255);
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('long.verify.test')).toEqual({ found: [LONG_VALUE], error: null });
  });

  it('reports a record with another value as found: comparing is the caller’s', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('stale.verify.test')).toEqual({ found: ['panel-verification=an-old-token'], error: null });
  });

  it('answers NXDOMAIN for a name that does not exist', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('_panel-challenge.missing.verify.test')).toEqual({ found: [], error: 'NXDOMAIN' });
  });

  it('answers NODATA for a name without TXT records', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('www.verify.test')).toEqual({ found: [], error: 'NODATA' });
  });

  it('answers REFUSED for a name in no zone the nameserver holds', async () => {
    useResolvers(`127.0.0.1:${nameserver.port}`);
    expect(await lookupTxt('_panel-challenge.example.org')).toEqual({ found: [], error: 'REFUSED' });
  });

  it('asks an IPv6 nameserver given as [address]:port', async () => {
    const overIpv6 = await startNameserver({ host: '::1', port: 0 });
    try {
      useResolvers(`[::1]:${overIpv6.port}`);
      expect(await lookupTxt('_panel-challenge.verify.test')).toEqual({ found: [VERIFICATION], error: null });
    } finally {
      await overIpv6.stop();
    }
  });

  describe('with a nameserver that never answers', () => {
    let silent: Socket;

    beforeAll(async () => {
      silent = createSocket('udp4');
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    });

    afterAll(() => {
      silent.close();
    });

    it('answers TIMEOUT after its tries, without throwing', async () => {
      let queries = 0;
      silent.on('message', () => (queries += 1));
      useResolvers(`127.0.0.1:${silent.address().port}`, 150);
      const started = Date.now();
      expect(await lookupTxt('_panel-challenge.verify.test')).toEqual({ found: [], error: 'TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(queries).toBe(2);
    });
  });
});

describe('DNS_RESOLVERS', () => {
  it('takes addresses with or without a port, IPv4 and IPv6', () => {
    useResolvers(' 1.1.1.1, 127.0.0.1:5353,::1 , [2001:db8::1]:53');
    expect(getConfig().DNS_RESOLVERS).toEqual(['1.1.1.1', '127.0.0.1:5353', '::1', '[2001:db8::1]:53']);
    useResolvers('');
    expect(getConfig().DNS_RESOLVERS).toEqual([]);
  });

  it('refuses names and malformed entries, naming them', () => {
    for (const bad of ['dns.google', '127.0.0.1:99999', '[::1]', 'fe80::zz', '[127.0.0.1]:53', '1.1.1.1:']) {
      useResolvers(bad);
      expect(() => getConfig(), bad).toThrow(/DNS_RESOLVERS/);
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getRegistrarProvider, REGISTRAR_TLDS, resetRegistrarProviderForTests } from './index';
import { RegistrarSimulator } from './simulator';

const registrar = new RegistrarSimulator();

async function refusal(query: string): Promise<AppError> {
  const err: unknown = await registrar.searchDomains(query).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError for ${JSON.stringify(query)}, got ${String(err)}`);
  return err;
}

function withEnv(name: string, value: string): void {
  process.env[name] = value;
  resetConfigForTests();
  resetRegistrarProviderForTests();
}

afterEach(() => {
  delete process.env.REGISTRAR_SIM_FAIL;
  resetConfigForTests();
  resetRegistrarProviderForTests();
});

describe('the registrar simulator', () => {
  it('lists a bare label under every TLD, in order, priced in minor units of the billing currency', async () => {
    const candidates = await registrar.searchDomains('acme-widgets');
    expect(candidates.map((c) => c.name)).toEqual(REGISTRAR_TLDS.map((tld) => `acme-widgets.${tld}`));
    expect(candidates.map((c) => c.priceYearly)).toEqual([1299, 1499, 1199, 3999, 1499, 1699]);
    for (const c of candidates) {
      expect(c.currency).toBe(getConfig().BILLING_CURRENCY);
      expect(c.premium).toBe(false);
      expect(typeof c.available).toBe('boolean');
    }
  });

  it('answers exactly the name asked when the query has a TLD', async () => {
    const [only, ...more] = await registrar.searchDomains('acme-widgets.io');
    expect(more).toEqual([]);
    expect(only).toMatchObject({ name: 'acme-widgets.io', priceYearly: 3999, premium: false });
  });

  it('answers the same availability every time, and both answers across names', async () => {
    const labels = Array.from({ length: 30 }, (_, i) => `shop-${i}-sample`);
    const first = await Promise.all(labels.map((l) => registrar.searchDomains(l)));
    const again = await Promise.all(labels.map((l) => new RegistrarSimulator().searchDomains(l)));
    expect(again).toEqual(first);
    const answers = first.flat().map((c) => c.available);
    expect(answers.filter(Boolean).length).toBeGreaterThan(answers.length * 0.4);
    expect(answers.filter((a) => !a).length).toBeGreaterThan(answers.length * 0.2);
  });

  it('never offers a well-known name', async () => {
    for (const label of ['google', 'example', 'github']) {
      expect((await registrar.searchDomains(label)).every((c) => !c.available)).toBe(true);
    }
    expect(await registrar.searchDomains('Google.COM')).toEqual([expect.objectContaining({ name: 'google.com', available: false })]);
  });

  it('prices names of three characters or fewer as premium, far above the list price', async () => {
    const [short] = await registrar.searchDomains('abc.com');
    const [longer] = await registrar.searchDomains('abcd.com');
    expect(short).toMatchObject({ premium: true, priceYearly: 1299 * 25 });
    expect(longer).toMatchObject({ premium: false, priceYearly: 1299 });
    expect(Number.isInteger(short?.priceYearly)).toBe(true);
  });

  it('searches IDN input in punycode, folding case and a trailing dot', async () => {
    expect((await registrar.searchDomains('München.dev.')).map((c) => c.name)).toEqual(['xn--mnchen-3ya.dev']);
    expect((await registrar.searchDomains('  Bücher ')).map((c) => c.name)[0]).toBe('xn--bcher-kva.com');
  });

  it('refuses a query that names no registrable domain, on the field query', async () => {
    const refused = [
      '',
      '   ',
      'a'.repeat(64),
      'foo_bar',
      'foo bar',
      '-foo',
      'foo-',
      'foo.xyz',
      'shop.acme.com',
      'acme..com',
      'acme/com',
      `${'a'.repeat(63)}.`.repeat(4) + 'com',
    ];
    for (const query of refused) {
      const err = await refusal(query);
      expect(err.code, query).toBe('VALIDATION_ERROR');
      expect(Object.keys(err.fields ?? {}), query).toEqual(['query']);
    }
    expect((await refusal('foo.xyz')).message).toContain('.xyz is not offered');
    expect((await refusal('shop.acme.com')).message).toContain('not a subdomain');
    expect(await registrar.searchDomains('a'.repeat(63))).toHaveLength(REGISTRAR_TLDS.length);
    expect(await registrar.searchDomains('x-1')).toHaveLength(REGISTRAR_TLDS.length);
  });

  it('fails searches as an unreachable registrar when REGISTRAR_SIM_FAIL=search', async () => {
    withEnv('REGISTRAR_SIM_FAIL', 'search');
    const err = await refusal('acme-widgets');
    expect(err.code).toBe('UPSTREAM_ERROR');
    // The query is still checked first: an invalid one is the caller's error, not an outage.
    expect((await refusal('foo_bar')).code).toBe('VALIDATION_ERROR');
  });

  it('refuses an unknown REGISTRAR_SIM_FAIL operation', () => {
    withEnv('REGISTRAR_SIM_FAIL', 'register');
    expect(() => getConfig()).toThrow(/REGISTRAR_SIM_FAIL: unknown operation "register"/);
  });
});

describe('getRegistrarProvider', () => {
  it('makes the simulator once, and again after a reset', () => {
    const provider = getRegistrarProvider();
    expect(provider.kind).toBe('simulator');
    expect(provider.description).toMatch(/simulated/i);
    expect(getRegistrarProvider()).toBe(provider);
    resetRegistrarProviderForTests();
    expect(getRegistrarProvider()).not.toBe(provider);
  });

  it('refuses a REGISTRAR_PROVIDER it does not know', () => {
    withEnv('REGISTRAR_PROVIDER', 'namecheap');
    try {
      expect(() => getRegistrarProvider()).toThrow(/REGISTRAR_PROVIDER/);
    } finally {
      delete process.env.REGISTRAR_PROVIDER;
    }
  });
});

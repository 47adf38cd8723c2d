import { createHash } from 'node:crypto';
import { getConfig, type REGISTRAR_SIM_OPERATIONS } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { parseDomainQuery } from './query';
import { REGISTRAR_TLDS, type DomainCandidate, type RegistrarProvider, type RegistrarTld } from './types';

/** List prices for one year, in minor units. */
const PRICE_YEARLY: Record<RegistrarTld, number> = { com: 1299, net: 1499, org: 1199, io: 3999, dev: 1499, app: 1699 };

/** Labels this short are premium names, as registries hold them back and price them apart. */
const PREMIUM_MAX_LENGTH = 3;
const PREMIUM_PRICE_FACTOR = 25;

/** About this share of other names is free, so a search shows both answers. */
const AVAILABLE_PERCENT = 60;

/** Names everyone tries first: always taken, under every TLD, so demos and tests can count on it. */
const WELL_KNOWN_LABELS = new Set([
  'amazon',
  'apple',
  'cloudflare',
  'example',
  'facebook',
  'github',
  'google',
  'instagram',
  'linkedin',
  'microsoft',
  'netflix',
  'openai',
  'paypal',
  'stripe',
  'twitter',
  'wikipedia',
  'youtube',
]);

/**
 * A registrar without a registry: a name's availability follows from a hash of the name, so the
 * same search always answers the same; prices come from a TLD table. REGISTRAR_SIM_FAIL=search
 * makes searches fail as an unreachable registrar would.
 */
export class RegistrarSimulator implements RegistrarProvider {
  readonly kind = 'simulator' as const;
  readonly description = 'Simulated registrar: availability derived from each name, list prices per TLD; nothing is registered';

  // Async although nothing is awaited: a refused query rejects the promise, as a real registrar's would.
  async searchDomains(query: string): Promise<DomainCandidate[]> {
    const { label, tld } = parseDomainQuery(query);
    failIfInjected('search');
    const currency = getConfig().BILLING_CURRENCY;
    return (tld ? [tld] : REGISTRAR_TLDS).map((t) => candidate(label, t, currency));
  }
}

function candidate(label: string, tld: RegistrarTld, currency: string): DomainCandidate {
  const name = `${label}.${tld}`;
  const premium = label.length <= PREMIUM_MAX_LENGTH;
  const available = !WELL_KNOWN_LABELS.has(label) && createHash('sha256').update(name).digest().readUInt32BE(0) % 100 < AVAILABLE_PERCENT;
  const priceYearly = PRICE_YEARLY[tld] * (premium ? PREMIUM_PRICE_FACTOR : 1);
  return { name, available, priceYearly, currency, premium };
}

function failIfInjected(operation: (typeof REGISTRAR_SIM_OPERATIONS)[number]): void {
  if (getConfig().REGISTRAR_SIM_FAIL.includes(operation)) {
    throw new AppError('UPSTREAM_ERROR', `The domain registrar failed (${operation}); try again shortly`);
  }
}

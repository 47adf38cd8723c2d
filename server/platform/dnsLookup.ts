import { Resolver } from 'node:dns/promises';
import { getConfig } from './config';

/**
 * Why a lookup found nothing. NXDOMAIN: the name does not exist; NODATA: it exists without TXT
 * records; TIMEOUT: no nameserver answered in time; SERVFAIL, REFUSED, FORMERR: what the nameserver
 * said; CONNREFUSED: nothing listens there; BADNAME: the name cannot be asked; LOOKUP_FAILED: any
 * other failure of the resolver.
 */
export type DnsLookupError = 'NXDOMAIN' | 'NODATA' | 'TIMEOUT' | 'SERVFAIL' | 'REFUSED' | 'FORMERR' | 'CONNREFUSED' | 'BADNAME' | 'LOOKUP_FAILED';

export interface TxtLookup {
  /** Each TXT record's value, its character-strings joined (RFC 7208 §3.3); empty when error is set. */
  found: string[];
  error: DnsLookupError | null;
}

const TRIES = 2;

const ERROR_OF_RESOLVER_CODE = new Map<string, DnsLookupError>([
  ['ENOTFOUND', 'NXDOMAIN'],
  ['ENODATA', 'NODATA'],
  ['ETIMEOUT', 'TIMEOUT'],
  ['ESERVFAIL', 'SERVFAIL'],
  ['EREFUSED', 'REFUSED'],
  ['EFORMERR', 'FORMERR'],
  ['ECONNREFUSED', 'CONNREFUSED'],
  ['EBADNAME', 'BADNAME'],
]);

/**
 * The TXT records at `name`, asked of DNS_RESOLVERS (or the system's nameservers). Never throws:
 * a missing name, a missing record and an unreachable nameserver are answers the caller reports.
 * The caller compares the values; a record with another value is still found.
 */
export async function lookupTxt(name: string): Promise<TxtLookup> {
  return lookup(async (resolver) => (await resolver.resolveTxt(name)).map((strings) => strings.join('')));
}

/** The IPv4 addresses of `name`'s A records, under the same rules as lookupTxt. */
export async function lookupA(name: string): Promise<TxtLookup> {
  return lookup((resolver) => resolver.resolve4(name));
}

/** The target of `name`'s CNAME record (lower-case, without the trailing dot), under the same rules. */
export async function lookupCname(name: string): Promise<TxtLookup> {
  return lookup(async (resolver) => (await resolver.resolveCname(name)).map((target) => target.toLowerCase().replace(/\.$/, '')));
}

async function lookup(ask: (resolver: Resolver) => Promise<string[]>): Promise<TxtLookup> {
  const config = getConfig();
  // A resolver per lookup: a verification must see the zone as it is now, never an answer (or a
  // negative answer) cached by an earlier lookup, and a changed DNS_RESOLVERS applies at once.
  const resolver = new Resolver({ timeout: config.DNS_LOOKUP_TIMEOUT_MS, tries: TRIES });
  if (config.DNS_RESOLVERS.length) resolver.setServers(config.DNS_RESOLVERS);
  try {
    return { found: await ask(resolver), error: null };
  } catch (err) {
    return { found: [], error: lookupErrorOf(err) };
  }
}

function lookupErrorOf(err: unknown): DnsLookupError {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : '';
  return ERROR_OF_RESOLVER_CODE.get(code) ?? 'LOOKUP_FAILED';
}

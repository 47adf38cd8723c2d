import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { getConfig } from './config';
import { AppError } from './errors';

/**
 * Requests to URLs our customers type (webhook endpoints, later others). A URL is checked when it is
 * saved and again on every request, after DNS resolution: the host's addresses are resolved once,
 * every one must be public, and the connection goes to the address that was checked (the socket's
 * lookup is pinned to it), so a name that resolves to a public address for the check and a private
 * one a moment later (DNS rebinding) cannot reach the inside. Redirects are never followed.
 */

/** Resolves a host name to every address it has; the platform uses the system resolver, tests a stub. */
export type Resolver = (hostname: string) => Promise<string[]>;

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'multicast' | 'unspecified' | 'metadata' | 'reserved';

/** Classes that `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true` lets through, for local development and tests. Metadata never. */
const DEVELOPMENT_CLASSES: ReadonlySet<AddressClass> = new Set(['loopback', 'private']);

const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

const holder = globalThis as unknown as { __outboundResolver?: Resolver };

/** Replaces the resolver (tests stub DNS with it); `undefined` puts the system resolver back. */
export function setOutboundResolver(resolver: Resolver | undefined): void {
  holder.__outboundResolver = resolver;
}

function resolver(): Resolver {
  return holder.__outboundResolver ?? systemResolver;
}

const ranges: ReadonlyArray<[AddressClass, string, number, 'ipv4' | 'ipv6']> = [
  ['metadata', '169.254.169.254', 32, 'ipv4'],
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'],
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const blockLists = new Map<AddressClass, BlockList>();
for (const [cls, network, prefix, family] of ranges) {
  const list = blockLists.get(cls) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  blockLists.set(cls, list);
}
/** Checked first: a more specific class wins (the metadata address is also link-local). */
const CLASS_ORDER: readonly AddressClass[] = ['metadata', 'unspecified', 'loopback', 'link-local', 'multicast', 'private', 'reserved'];

/** What kind of address this is; IPv4 inside IPv6 (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`) counts as the IPv4 address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  if (embedded) return classifyAddress(embedded);
  for (const cls of CLASS_ORDER) {
    if (blockLists.get(cls)!.check(address, family === 4 ? 'ipv4' : 'ipv6')) return cls;
  }
  return 'public';
}

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** A URL with the public addresses it resolved to: requests go to these and no others. */
export interface CheckedUrl {
  url: URL;
  addresses: string[];
}

/**
 * Refuses a URL we must not call: not https (http only with OUTBOUND_ALLOW_PRIVATE_NETWORKS),
 * credentials in it, a host that does not resolve, or any resolved address that is loopback,
 * private (RFC 1918, CGNAT, ULA), link-local, multicast, unspecified, reserved or a cloud metadata
 * address. 422 `URL_NOT_ALLOWED` on the given field, with a message saying why.
 */
export async function checkOutboundUrl(raw: string, field = 'url'): Promise<CheckedUrl> {
  const refuse = (message: string) => new AppError('URL_NOT_ALLOWED', `${field}: ${message}`, { fields: { [field]: message } });
  const allowPrivate = getConfig().OUTBOUND_ALLOW_PRIVATE_NETWORKS;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('Not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate)) throw refuse('Must be an https:// URL');
  if (url.username || url.password) throw refuse('Must not contain a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolver()(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw refuse(`The host ${host} does not resolve to any address`);
  }
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls === 'public' || (allowPrivate && DEVELOPMENT_CLASSES.has(cls))) continue;
    throw refuse(`The host ${host} resolves to ${address}, a ${cls === 'metadata' ? 'cloud metadata' : cls} address; only public addresses can be called`);
  }
  return { url, addresses };
}

export interface OutboundRequest {
  method: 'POST' | 'GET' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is read and dropped. */
  maxResponseBytes: number;
}

/** An answer was received (whatever its status). */
export interface OutboundResponse {
  status: number;
  body: string;
  durationMs: number;
}

/** The request did not get an answer: refused URL, DNS, connection, TLS or timeout. */
export class OutboundFailure extends Error {
  constructor(
    message: string,
    readonly durationMs: number,
  ) {
    super(message);
    this.name = 'OutboundFailure';
  }
}

/**
 * Sends one request to a customer's URL, checked as `checkOutboundUrl` does, connecting only to the
 * address that was checked. A 3xx is returned as it is: redirects are not followed.
 */
export async function outboundRequest(input: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let checked: CheckedUrl;
  try {
    checked = await checkOutboundUrl(input.url);
  } catch (err) {
    throw new OutboundFailure(err instanceof Error ? err.message : String(err), elapsed());
  }
  const address = checked.addresses[0]!;
  const family = isIP(address);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const host = checked.url.hostname.replace(/^\[|\]$/g, '');
  const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const req = send(checked.url, {
      method: input.method,
      headers: { ...input.headers, ...(input.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(input.body)) }) },
      lookup: pinned,
      ...(isIP(host) ? {} : { servername: host }),
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new OutboundFailure(`No answer within ${input.timeoutMs / 1000} s`, elapsed())), input.timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err instanceof OutboundFailure ? err : new OutboundFailure(describeConnectionError(err), elapsed()));
    };
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      const kept: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < input.maxResponseBytes) kept.push(chunk.subarray(0, input.maxResponseBytes - size));
        size += chunk.length;
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(kept).toString('utf8'), durationMs: elapsed() });
      });
    });
    req.end(input.body);
  });
}

function describeConnectionError(err: Error): string {
  const code = (err as { code?: string }).code;
  return code ? `${code}: ${err.message}` : err.message;
}

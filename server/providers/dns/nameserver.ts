import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIP, isIPv6, type Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, OptAnswer, Question, RecordType } from 'dns-packet';
import { inArray } from 'drizzle-orm';
import { getDb } from '../../../db';
import { dnsSimRecords, dnsSimZones } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';
import { DNS_RECORD_TYPES, type DnsRecordType } from './types';

/**
 * The DNS simulator's zones served by a real authoritative nameserver (UDP and TCP), so domain
 * ownership is proved by a real DNS lookup even when the DNS provider is simulated. It answers
 * from the simulator's tables as they are at each query. Several accounts may hold a zone of the
 * same name; a simulator has no delegation to choose between them, so their records are served together.
 */

export interface NameserverOptions {
  host: string;
  /** 0 picks a free port; UDP and TCP then share it. */
  port: number;
}

export interface RunningNameserver {
  port: number;
  stop(): Promise<void>;
}

export async function startNameserver(options: NameserverOptions): Promise<RunningNameserver> {
  for (let attempt = 1; ; attempt += 1) {
    const udp = await bindUdp(options.host, options.port);
    const port = udp.address().port;
    try {
      const closeTcp = await listenTcp(options.host, port);
      return {
        port,
        stop: async () => {
          await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), closeTcp()]);
        },
      };
    } catch (err) {
      udp.close();
      // An ephemeral UDP port may be taken for TCP by someone else: pick another pair.
      const taken = err instanceof Error && 'code' in err && err.code === 'EADDRINUSE';
      if (options.port !== 0 || !taken || attempt >= 5) throw err;
    }
  }
}

/** Starts the nameserver at DNS_SIM_NAMESERVER when it is set; null when it is not. */
export async function startConfiguredNameserver(): Promise<RunningNameserver | null> {
  const address = getConfig().DNS_SIM_NAMESERVER;
  if (!address) return null;
  const running = await startNameserver(address);
  getLogger().info({ host: address.host, port: running.port }, 'DNS simulator nameserver listening (UDP and TCP)');
  return running;
}

/** Without EDNS a UDP answer must fit 512 bytes (RFC 1035); larger ones are cut and retried over TCP. */
const CLASSIC_UDP_LIMIT = 512;
/** What we accept and advertise over EDNS: the size that avoids IP fragmentation (DNS flag day 2020). */
const EDNS_UDP_LIMIT = 1232;
const TCP_LIMIT = 65_535;
const TCP_IDLE_MS = 10_000;
/** TTL 1 is the provider's "automatic". */
const AUTOMATIC_TTL = 300;
/** Short, so a record created just after a failed check is seen soon by resolvers caching its absence. */
const NEGATIVE_TTL = 60;
const MAX_CNAME_HOPS = 8;
const TXT_STRING_MAX_BYTES = 255;

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODE;

interface Resolution {
  rcode: Rcode;
  authoritative: boolean;
  answers: Answer[];
  authorities: Answer[];
}

type RecordRow = Pick<typeof dnsSimRecords.$inferSelect, 'type' | 'name' | 'content' | 'ttl' | 'priority' | 'modifiedAt'>;
type ServedRecord = RecordRow & { type: DnsRecordType };

interface Zone {
  name: string;
  records: ServedRecord[];
  soa: Answer;
}

/** The answer to one DNS message, or null for bytes that are not a query (dropped, as servers do). */
async function respond(message: Buffer, sizeLimit: number | 'udp'): Promise<Buffer | null> {
  let query: DecodedPacket;
  try {
    query = dnsPacket.decode(message);
  } catch {
    return null;
  }
  if (query.type !== 'query') return null;
  const queryFlags = query.flags ?? 0;
  const questions = query.questions ?? [];
  const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  const limit = sizeLimit === 'udp' ? (opt ? Math.min(Math.max(opt.udpPayloadSize, CLASSIC_UDP_LIMIT), EDNS_UDP_LIMIT) : CLASSIC_UDP_LIMIT) : sizeLimit;

  const base = { type: 'response' as const, id: query.id ?? 0, questions, additionals: opt ? [ednsRecord()] : [] };
  const encode = (resolution: Resolution, extraFlags = 0): Buffer => {
    const flags =
      (resolution.authoritative ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | (queryFlags & dnsPacket.RECURSION_DESIRED) | RCODE[resolution.rcode] | extraFlags;
    return dnsPacket.encode({ ...base, flags, answers: resolution.answers, authorities: resolution.authorities });
  };

  const resolution = await resolveQuery(queryFlags, questions);
  let full: Buffer;
  try {
    full = encode(resolution);
  } catch (err) {
    // A stored value the wire format cannot carry (a label over 63 bytes): the zone is broken.
    getLogger().error({ err, question: questions[0] }, 'DNS simulator nameserver could not encode its answer');
    return encode(failure('SERVFAIL'));
  }
  if (full.length <= limit) return full;
  return encode({ ...resolution, answers: [], authorities: [] }, dnsPacket.TRUNCATED_RESPONSE);
}

async function resolveQuery(queryFlags: number, questions: Question[]): Promise<Resolution> {
  const opcode = (queryFlags >> 11) & 0xf;
  if (opcode !== 0) return failure('NOTIMP');
  const question = questions[0];
  if (questions.length !== 1 || !question) return failure('FORMERR');
  if (question.class !== undefined && question.class !== 'IN' && question.class !== 'ANY') return failure('REFUSED');
  try {
    return await resolve(question.name, question.type);
  } catch (err) {
    getLogger().error({ err, name: question.name, type: question.type }, 'DNS simulator nameserver could not read its zones');
    return failure('SERVFAIL');
  }
}

function failure(rcode: Rcode): Resolution {
  return { rcode, authoritative: false, answers: [], authorities: [] };
}

async function resolve(askedName: string, type: RecordType): Promise<Resolution> {
  const zone = await findZone(normalise(askedName));
  if (!zone) return failure('REFUSED');
  const answers: Answer[] = [];
  let name = normalise(askedName);
  for (let hop = 0; hop < MAX_CNAME_HOPS; hop += 1) {
    const here = zone.records.filter((r) => r.name === name);
    if (type === 'SOA' && name === zone.name) return { rcode: 'NOERROR', authoritative: true, answers: [...answers, zone.soa], authorities: [] };
    const matching = here.filter((r) => r.type === type).flatMap(toAnswer);
    if (matching.length) return { rcode: 'NOERROR', authoritative: true, answers: [...answers, ...matching], authorities: [] };
    const alias = type === 'CNAME' ? undefined : here.find((r) => r.type === 'CNAME');
    if (!alias) {
      // A name with records below it exists even when it holds none itself (RFC 8020).
      const exists = here.length > 0 || name === zone.name || zone.records.some((r) => r.name.endsWith(`.${name}`));
      return { rcode: exists ? 'NOERROR' : 'NXDOMAIN', authoritative: true, answers, authorities: [zone.soa] };
    }
    answers.push(...toAnswer(alias));
    name = normalise(alias.content);
    // The target is someone else's to answer for: the resolver follows it.
    if (!within(name, zone.name)) break;
  }
  return { rcode: 'NOERROR', authoritative: true, answers, authorities: [] };
}

/** The closest enclosing zone of a name, with the records of every account holding a zone by that name. */
async function findZone(name: string): Promise<Zone | null> {
  const labels = name.split('.');
  const candidates = labels.map((_, i) => labels.slice(i).join('.'));
  const db = await getDb();
  const zones = await db
    .select({ id: dnsSimZones.id, name: dnsSimZones.name, createdAt: dnsSimZones.createdAt })
    .from(dnsSimZones)
    .where(inArray(dnsSimZones.name, candidates));
  if (!zones.length) return null;
  const zoneName = zones.map((z) => z.name).reduce((longest, n) => (n.length > longest.length ? n : longest));
  const held = zones.filter((z) => z.name === zoneName);
  const records = await db
    .select({
      type: dnsSimRecords.type,
      name: dnsSimRecords.name,
      content: dnsSimRecords.content,
      ttl: dnsSimRecords.ttl,
      priority: dnsSimRecords.priority,
      modifiedAt: dnsSimRecords.modifiedAt,
    })
    .from(dnsSimRecords)
    .where(
      inArray(
        dnsSimRecords.zoneId,
        held.map((z) => z.id),
      ),
    );
  const served = records.filter(isServed).map((r) => ({ ...r, name: normalise(r.name) }));
  const lastChange = Math.max(...held.map((z) => z.createdAt.getTime()), ...served.map((r) => r.modifiedAt.getTime()));
  return { name: zoneName, records: served, soa: soaOf(zoneName, served, lastChange) };
}

function soaOf(zoneName: string, records: ServedRecord[], lastChange: number): Answer {
  const primary = records.find((r) => r.type === 'NS' && r.name === zoneName);
  return {
    type: 'SOA',
    name: zoneName,
    ttl: NEGATIVE_TTL,
    data: {
      mname: primary ? normalise(primary.content) : `ns1.${zoneName}`,
      rname: `hostmaster.${zoneName}`,
      // Seconds of the last change: grows with every edit, as secondaries expect.
      serial: Math.floor(lastChange / 1000) >>> 0,
      refresh: 3600,
      retry: 600,
      expire: 604_800,
      minimum: NEGATIVE_TTL,
    },
  };
}

/** The record on the wire; none for content the record's type cannot carry (the provider's rules keep it out). */
function toAnswer(record: ServedRecord): Answer[] {
  const ttl = record.ttl === 1 ? AUTOMATIC_TTL : record.ttl;
  const name = record.name;
  const content = record.content.trim();
  switch (record.type) {
    case 'A':
      return isIP(content) === 4 ? [{ type: 'A', name, ttl, data: content }] : [];
    case 'AAAA':
      return isIP(content) === 6 ? [{ type: 'AAAA', name, ttl, data: content }] : [];
    case 'CNAME':
      return [{ type: 'CNAME', name, ttl, data: normalise(content) }];
    case 'NS':
      return [{ type: 'NS', name, ttl, data: normalise(content) }];
    case 'MX':
      return [{ type: 'MX', name, ttl, data: { preference: record.priority ?? 0, exchange: normalise(content) } }];
    case 'TXT':
      return [{ type: 'TXT', name, ttl, data: txtStrings(unquoted(content)) }];
    case 'SRV': {
      const srv = parseSrv(content, record.priority);
      return srv ? [{ type: 'SRV', name, ttl, data: srv }] : [];
    }
    case 'CAA': {
      const caa = parseCaa(content);
      return caa ? [{ type: 'CAA', name, ttl, data: caa }] : [];
    }
  }
}

/**
 * A TXT value as character-strings of at most 255 bytes, cut between characters so each string is
 * valid UTF-8 on its own; resolvers join them back (RFC 7208 §3.3).
 */
export function txtStrings(value: string): Buffer[] {
  const strings: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const char of value) {
    const bytes = Buffer.from(char, 'utf8');
    if (size + bytes.length > TXT_STRING_MAX_BYTES) {
      strings.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(bytes);
    size += bytes.length;
  }
  strings.push(Buffer.concat(current));
  return strings;
}

/** Providers show TXT content quoted or not; the quotes are not part of the value. */
function unquoted(content: string): string {
  return content.length >= 2 && content.startsWith('"') && content.endsWith('"') ? content.slice(1, -1) : content;
}

/** `priority weight port target` (RFC 2782), or `weight port target` with the record's own priority. */
function parseSrv(content: string, priority: number | null): { priority: number; weight: number; port: number; target: string } | null {
  const parts = content.split(/\s+/);
  const [first, ...rest] = parts.length === 4 ? parts : [String(priority ?? 0), ...parts];
  const numbers = [first, rest[0], rest[1]].map(Number);
  const target = rest[2];
  if (rest.length !== 3 || !target || !numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 65_535)) return null;
  const [p = 0, weight = 0, port = 0] = numbers;
  return { priority: p, weight, port, target: normalise(target) };
}

const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

/** `flags tag value`, the value quoted or not (RFC 8659 presentation format). */
function parseCaa(content: string): { flags: number; tag: (typeof CAA_TAGS)[number]; value: string } | null {
  const match = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(.*)$/.exec(content);
  const flags = Number(match?.[1]);
  const tag = CAA_TAGS.find((t) => t === match?.[2]?.toLowerCase());
  if (!match || !tag || flags > 255) return null;
  return { flags, tag, value: unquoted(match[3] ?? '') };
}

function ednsRecord(): OptAnswer {
  return { type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_LIMIT, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
}

function isServed(record: RecordRow): record is ServedRecord {
  return (DNS_RECORD_TYPES as readonly string[]).includes(record.type);
}

function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

function within(name: string, zoneName: string): boolean {
  return name === zoneName || name.endsWith(`.${zoneName}`);
}

async function bindUdp(host: string, port: number): Promise<UdpSocket> {
  const socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4' });
  socket.on('message', (message, remote) => {
    void respond(message, 'udp').then((reply) => {
      if (reply) socket.send(reply, remote.port, remote.address, () => undefined);
    });
  });
  await new Promise<void>((resolve, reject) => {
    const refuse = (err: Error) => {
      socket.close();
      reject(err);
    };
    socket.once('error', refuse);
    socket.bind(port, host, () => {
      socket.off('error', refuse);
      resolve();
    });
  });
  // Once bound, a failed send (the client went away) is that client's problem, not the server's.
  socket.on('error', () => undefined);
  return socket;
}

/** Listens, and returns what closes the server and its open connections. */
async function listenTcp(host: string, port: number): Promise<() => Promise<void>> {
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serveTcp(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of connections) socket.destroy();
    });
}

/** Messages framed by a two-byte length (RFC 1035 §4.2.2), answered in order on one connection. */
function serveTcp(socket: Socket): void {
  socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  let pending = Buffer.alloc(0);
  let answered = Promise.resolve();
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2) {
      const length = pending.readUInt16BE(0);
      if (pending.length < 2 + length) break;
      const message = pending.subarray(2, 2 + length);
      pending = pending.subarray(2 + length);
      answered = answered.then(async () => {
        const reply = await respond(message, TCP_LIMIT);
        if (socket.destroyed) return;
        if (!reply) {
          socket.destroy();
          return;
        }
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([frame, reply]));
      });
    }
  });
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { getLogger } from '../../platform/logger';
import { MANIFEST_ACCEPT, REPOSITORY_NAME } from './client';
import { grantedActions, type RegistryTokenClaims } from './jwt';
import type { RegistryEvent, RegistryHooks, RepositoryAccess } from './types';

export interface FrontDoorOptions {
  host: string;
  /** 0 takes any free port (tests). */
  port: number;
  /** The registry's loopback base URL; null while it is stopped on purpose (garbage collection). */
  upstream: () => string | null;
  hooks: RegistryHooks;
  /** What the registry sends as `Authorization: Bearer …` with its notifications. */
  eventsSecret: string;
  /** The `sub` of the platform's own tokens: its requests are not customer traffic. */
  platformSubject: string;
  /** A token for the platform subject, for the front door's own look-ups. */
  platformToken: (access: RepositoryAccess[]) => Promise<string>;
  /** Checks a customer's token as the registry would; null when the registry would refuse it. */
  verifyToken: (token: string) => RegistryTokenClaims | null;
  /** The registry's garbage collection, which only the process running it can do; others ask through this door. */
  collectGarbage: () => Promise<void>;
}

export interface FrontDoor {
  /** False when another process of this app holds the port: that process serves customers, this one nobody. */
  readonly serving: boolean;
  /** The port customers reach (the actual one when 0 was asked for). */
  readonly port: number;
  /** The front door's address as seen from this machine, for the platform and the registry's notifications. */
  readonly url: string;
  close(): Promise<void>;
}

export const EVENTS_PATH = '/_registry/events';
/** Where another process of the app, holding a platform token, asks this one to collect garbage. */
export const GARBAGE_COLLECTION_PATH = '/_registry/collect-garbage';
/** Distribution's own limit for a manifest body. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Distribution sends one event per delivery in practice; this bounds a hostile or broken sender. */
const MAX_EVENTS_BYTES = 8 * 1024 * 1024;

/** Hop-by-hop headers, and those that describe the client to the registry, which only this door may set. */
const DROPPED_REQUEST_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'transfer-encoding',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'trailer', 'upgrade']);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const MANIFEST_PATH = /^\/v2\/(.+)\/manifests\/([^/]+)$/;

/**
 * The registry endpoint customers reach. Distribution itself listens on loopback only: this door
 * streams `/v2/` traffic to it, sets the client address the registry records, refuses a manifest
 * that would move an immutable tag, and receives the registry's notifications.
 *
 * When another process of this app already holds the port, this one does not serve; the caller
 * then reaches the registry through that process's door, at the same address.
 */
export async function startFrontDoor(options: FrontDoorOptions): Promise<FrontDoor> {
  const locks = new KeyedLock();
  const server = createServer((req, res) => {
    handle(req, res, options, locks).catch((err: unknown) => {
      getLogger().error({ err, method: req.method }, 'registry front door: request failed');
      if (!res.headersSent) sendError(res, 500, 'UNKNOWN', 'unknown error');
      else res.destroy();
    });
  });
  const listening = await new Promise<AddressInfo | null>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen(options.port, options.host, () => resolve(server.address() as AddressInfo));
  });
  const port = listening?.port ?? options.port;
  const url = `http://${loopbackHost(options.host)}:${port}`;
  if (!listening) {
    getLogger().warn({ port }, 'registry front door: the port is taken, presumably by another process of this app; this one serves no customers');
    return { serving: false, port, url, close: async () => {} };
  }
  getLogger().info({ host: options.host, port }, 'registry front door listening');
  return {
    serving: true,
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: FrontDoorOptions, locks: KeyedLock): Promise<void> {
  const rawUrl = req.url ?? '/';
  const rawPath = rawUrl.split('?')[0] ?? '/';
  if (rawPath === EVENTS_PATH && req.method === 'POST') return receiveEvents(req, res, options);
  if (rawPath === GARBAGE_COLLECTION_PATH && req.method === 'POST') return collectGarbageFor(req, res, options);
  if (rawPath !== '/v2' && !rawPath.startsWith('/v2/')) return sendError(res, 404, 'NOT_FOUND', 'not found');
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return sendError(res, 400, 'NAME_INVALID', 'invalid repository name');
  }
  // The registry's router cleans paths the way Go does; refusing unclean ones here means the tag
  // check below sees the same repository and tag as the registry would.
  if (/\/\/|\/\.\.?(\/|$)/.test(path)) return sendError(res, 404, 'NOT_FOUND', 'not found');
  const manifest = req.method === 'PUT' ? MANIFEST_PATH.exec(path) : null;
  // Anything else (a digest reference, an invalid name or tag) is the registry's to judge.
  if (manifest && manifest[1]!.length <= 255 && REPOSITORY_NAME.test(manifest[1]!) && TAG.test(manifest[2]!))
    return pushManifestByTag(req, res, options, locks, manifest[1]!, manifest[2]!);
  await forward(req, res, options, req);
}

/**
 * A manifest pushed under a tag: when the repository's tags are immutable and the tag already
 * names another manifest, refused. Only a push the registry would accept is checked (a valid
 * token with pull and push), so strangers learn nothing about which tags exist.
 */
async function pushManifestByTag(
  req: IncomingMessage,
  res: ServerResponse,
  options: FrontDoorOptions,
  locks: KeyedLock,
  name: string,
  tag: string,
): Promise<void> {
  const token = bearerToken(req.headers);
  const claims = token === null ? null : options.verifyToken(token);
  const granted = claims ? grantedActions(claims, name) : new Set();
  if (!granted.has('push') || !granted.has('pull')) return forward(req, res, options, req);

  let mutability: 'MUTABLE' | 'IMMUTABLE';
  try {
    mutability = await options.hooks.tagMutability(name);
  } catch (err) {
    getLogger().error({ err, repository: name }, 'registry front door: tag rules could not be read');
    return sendError(res, 503, 'UNAVAILABLE', 'service unavailable', { 'retry-after': '5', connection: 'close' });
  }
  if (mutability === 'MUTABLE') return forward(req, res, options, req);

  if (Number(req.headers['content-length'] ?? 0) > MAX_MANIFEST_BYTES) return tooLarge(res);
  const body = await readBody(req, MAX_MANIFEST_BYTES);
  if (body === null) return tooLarge(res);
  const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
  await locks.run(`${name}:${tag}`, async () => {
    const current = await currentDigest(options, name, tag);
    if (current === undefined) return sendError(res, 503, 'UNAVAILABLE', 'service unavailable', { 'retry-after': '5' });
    if (current !== null && current !== digest) {
      getLogger().info({ repository: name, tag }, 'registry front door: push to an immutable tag refused');
      return sendError(res, 403, 'DENIED', `tag ${JSON.stringify(tag)} is immutable in repository ${JSON.stringify(name)}; push a new tag`);
    }
    // Forwarded inside the lock: a second push of the tag checks only once this one is stored.
    await forward(req, res, options, body);
  });
}

function tooLarge(res: ServerResponse): void {
  sendError(res, 413, 'MANIFEST_INVALID', `manifest invalid: larger than ${MAX_MANIFEST_BYTES} bytes`, { connection: 'close' });
}

/** The digest the tag points at: null when the tag does not exist, undefined when the registry could not say. */
async function currentDigest(options: FrontDoorOptions, name: string, tag: string): Promise<string | null | undefined> {
  const base = options.upstream();
  if (!base) return undefined;
  try {
    const token = await options.platformToken([{ repository: name, actions: ['pull'] }]);
    const res = await fetch(`${base}/v2/${name}/manifests/${tag}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}`, accept: MANIFEST_ACCEPT },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status === 404) return null;
    const digest = res.headers.get('docker-content-digest');
    if (res.status === 200 && digest) return digest;
    getLogger().error({ status: res.status, repository: name }, 'registry front door: tag look-up answered unexpectedly');
    return undefined;
  } catch (err) {
    getLogger().error({ err, repository: name }, 'registry front door: tag look-up failed');
    return undefined;
  }
}

/**
 * Streams the request to the registry and its answer back; `body` is the client's own stream, or
 * a manifest already read. The registry records the first X-Forwarded-For address as the client's,
 * so that header is always this door's view of the socket, never what the client sent.
 */
async function forward(req: IncomingMessage, res: ServerResponse, options: FrontDoorOptions, body: IncomingMessage | Buffer): Promise<void> {
  const base = options.upstream();
  if (!base)
    return sendError(res, 503, 'UNAVAILABLE', 'service unavailable: the registry is briefly down for maintenance', { 'retry-after': '5', connection: 'close' });
  const target = new URL(base);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(name)) headers[name] = value;
  }
  headers['x-forwarded-for'] = clientAddress(req);
  headers['x-forwarded-proto'] = 'http';
  if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);

  const outgoing = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers });
  // A client that goes away mid-transfer leaves nothing to finish upstream.
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  const upstreamResponse = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
  });
  if (Buffer.isBuffer(body)) outgoing.end(body);
  else {
    // pipe, not pipeline: a registry that answers early (a 401 before a blob's bytes) and closes
    // must not take the client's socket down with it before that answer is relayed.
    body.on('error', (err) => outgoing.destroy(err));
    body.pipe(outgoing);
  }

  let response: IncomingMessage;
  try {
    response = await upstreamResponse;
  } catch (err) {
    if (res.headersSent || res.destroyed) return;
    getLogger().warn({ err, method: req.method }, 'registry front door: the registry did not answer');
    return sendError(res, 503, 'UNAVAILABLE', 'service unavailable', { 'retry-after': '5', connection: 'close' });
  }
  const responseHeaders: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) responseHeaders[name] = value;
  }
  res.writeHead(response.statusCode ?? 502, responseHeaders);
  await pipeline(response, res).catch(() => {
    // Either side went away mid-stream: the other is torn down by pipeline, nothing is left to answer.
  });
}

function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function bearerToken(headers: IncomingHttpHeaders): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  return match ? match[1]! : null;
}

/** The body, or null once it grows past `limit`. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const eventSchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  action: z.string(),
  target: z.object({
    mediaType: z.string().optional(),
    size: z.number().optional(),
    length: z.number().optional(),
    digest: z.string().optional(),
    repository: z.string(),
    tag: z.string().optional(),
  }),
  actor: z.object({ name: z.string().optional() }).optional(),
});
const envelopeSchema = z.object({ events: z.array(z.unknown()) });
const ACTIONS = new Set<string>(['push', 'pull', 'delete']);

/**
 * The registry's notifications, handed to the domain once per delivery. A failed hook answers 500,
 * which makes the registry deliver the same events again later.
 */
/** Only a token of the platform's own subject, signed by the key the registry trusts, may ask. */
async function collectGarbageFor(req: IncomingMessage, res: ServerResponse, options: FrontDoorOptions): Promise<void> {
  const token = bearerToken(req.headers);
  const claims = token === null ? null : options.verifyToken(token);
  if (claims?.sub !== options.platformSubject) return sendError(res, 401, 'UNAUTHORIZED', 'authentication required', { connection: 'close' });
  try {
    await options.collectGarbage();
  } catch (err) {
    getLogger().error({ err }, 'registry front door: garbage collection failed');
    return sendError(res, 500, 'UNKNOWN', 'garbage collection failed');
  }
  res.writeHead(204);
  res.end();
}

async function receiveEvents(req: IncomingMessage, res: ServerResponse, options: FrontDoorOptions): Promise<void> {
  if (!sameSecret(bearerToken(req.headers) ?? '', options.eventsSecret)) {
    return sendError(res, 401, 'UNAUTHORIZED', 'authentication required', { connection: 'close' });
  }
  const body = await readBody(req, MAX_EVENTS_BYTES);
  if (body === null) return sendError(res, 413, 'SIZE_INVALID', 'notification too large', { connection: 'close' });
  let envelope: z.infer<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(body.toString('utf8')));
  } catch {
    return sendError(res, 400, 'UNKNOWN', 'not a notification envelope');
  }
  const events = parseEvents(envelope.events, options.platformSubject);
  if (events.length > 0) {
    try {
      await options.hooks.onEvents(events);
    } catch (err) {
      getLogger().error({ err, events: events.length }, 'registry front door: event hook failed; the registry will deliver again');
      return sendError(res, 500, 'UNKNOWN', 'events not processed');
    }
  }
  res.writeHead(200, { 'content-length': 0 });
  res.end();
}

/**
 * Distribution's events as the domain sees them. Dropped: the platform's own requests (its HEADs
 * and GETs are pulls to the registry), blob mounts (a blob linked from another repository moves no
 * bytes), and deletions of tags or repositories, which carry no digest and which the registry API
 * cannot trigger anyway.
 */
export function parseEvents(raw: unknown[], platformSubject: string): RegistryEvent[] {
  const events: RegistryEvent[] = [];
  for (const item of raw) {
    const parsed = eventSchema.safeParse(item);
    if (!parsed.success) {
      getLogger().warn({ issues: parsed.error.issues.length }, 'registry front door: malformed event skipped');
      continue;
    }
    const { id, timestamp, action, target, actor } = parsed.data;
    const actorName = actor?.name || null;
    if (actorName === platformSubject || !ACTIONS.has(action) || !target.digest) continue;
    events.push({
      id,
      timestamp,
      action: action as RegistryEvent['action'],
      repository: target.repository,
      digest: target.digest,
      tag: target.tag || null,
      mediaType: target.mediaType ?? '',
      size: target.size ?? target.length ?? 0,
      actor: actorName,
    });
  }
  return events;
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives both sides one length, so the comparison time says nothing about the secret.
  const hash = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(given), hash(expected));
}

/** An answer in the registry's error envelope, so registry clients show the message. */
function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ errors: [{ code, message, detail: null }] });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'docker-distribution-api-version': 'registry/2.0',
    ...headers,
  });
  res.end(body);
}

/** The host part of a URL that reaches a server listening on `host` from this machine. */
export function loopbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Runs tasks of one key one after another; tasks of different keys run freely. */
class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

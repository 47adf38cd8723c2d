import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { open } from '../../../platform/encryption/envelope';
import { getLogger } from '../../../platform/logger';
import type { CredentialAccess } from '../types';
import { AwsChunkedDecoder, PayloadHashCheck } from './chunked';
import { corsHeaders, matchCorsRule } from './cors';
import type { TrafficMeter } from './metering';
import { loadBucket, loadBuckets, loadCredential, type BucketRecord, type CredentialRecord } from './records';
import { S3Error, accessDenied, errorXml, xmlElement } from './s3Error';
import {
  EMPTY_SHA256,
  PRESIGN_PARAMS,
  STREAMING_SIGNED,
  STREAMING_UNSIGNED_TRAILER,
  UNSIGNED_PAYLOAD,
  parseAuthentication,
  parseQuery,
  sameHex,
  verifySignature,
  type SignedAuthentication,
} from './sigv4';

export interface GatewayOptions {
  /** s3rver's loopback address. */
  upstream: { host: string; port: number };
  meter: TrafficMeter;
  /** Where a body whose hash or chunk signatures must be checked waits until they are. */
  spoolDir: string;
}

/**
 * The S3 endpoint customers reach: path-style requests, checked here (SigV4, the key's scope, public
 * access, suspension, CORS preflights) and forwarded to s3rver, which stores objects but checks
 * nothing; s3rver only ever sees requests signed as its built-in account.
 */
export function createGateway(options: GatewayOptions): Server {
  return createServer((req, res) => {
    void handle(req, res, options);
  });
}

const ACCESS_RANK: Record<CredentialAccess, number> = { read: 0, write: 1, full: 2 };
/** Bucket configuration a `full` key may read and change. */
const FULL_SUBRESOURCES = new Set(['cors', 'versioning']);
/** Bucket configuration the platform owns (public access is a policy, ACLs follow it). */
const PLATFORM_SUBRESOURCES = new Set([
  'acl',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'lifecycle',
  'website',
  'logging',
  'notification',
  'replication',
  'encryption',
  'ownershipControls',
  'object-lock',
  'accelerate',
  'requestPayment',
  'analytics',
  'inventory',
  'metrics',
  'intelligent-tiering',
  'tagging',
]);
/** Query parameters an anonymous object read may carry. */
const ANONYMOUS_READ_PARAMS = /^(response-[a-z-]+|versionId|partNumber)$/;
/** Request headers that describe our hop, the customer's signature or the aws-chunked framing. */
const DROPPED_REQUEST_HEADERS = new Set([
  'authorization',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'expect',
  'origin',
  'x-amz-content-sha256',
  'x-amz-date',
  'x-amz-decoded-content-length',
  'x-amz-trailer',
  'x-amz-security-token',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding']);

type Need = CredentialAccess | 'platform';

interface Operation {
  need: Need;
  /** An object read a public bucket answers without a signature. */
  anonymousRead: boolean;
}

async function handle(req: IncomingMessage, res: ServerResponse, options: GatewayOptions): Promise<void> {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const rawQuery = mark < 0 ? '' : url.slice(mark + 1);
  const method = req.method ?? 'GET';
  let meteredBucket: string | null = null;
  let sent = 0;
  res.on('close', () => {
    if (meteredBucket) options.meter.count(meteredBucket, sent);
  });
  const reply = (status: number, headers: OutgoingHttpHeaders, body: string) => {
    const bytes = method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(body, 'utf8');
    sent += bytes.length;
    res.writeHead(status, { 'x-amz-request-id': requestId, 'content-length': Buffer.byteLength(body), ...headers });
    res.end(bytes);
  };

  try {
    const { bucket, key } = parsePath(rawPath);
    if (method === 'OPTIONS') {
      const record = bucket ? await loadBucket(bucket) : null;
      preflight(req, record, reply);
      // Only what the bucket's rules or keys allowed is counted: strangers' refused requests cost the owner nothing.
      meteredBucket = record?.name ?? null;
      return;
    }
    const request = { method, rawPath, rawQuery, headers: req.headers };
    const auth = parseAuthentication(request);
    let credential: CredentialRecord | null = null;
    let signingKey: Buffer | null = null;
    if (auth.kind === 'signed') {
      credential = await loadCredential(auth.accessKeyId);
      if (!credential) throw new S3Error('InvalidAccessKeyId', 403, 'The AWS Access Key Id you provided does not exist in our records.');
      signingKey = verifySignature(auth, request, open(credential.sealedSecret, credential.accessKeyId), Date.now());
    }
    if (!bucket) {
      if (!credential || method !== 'GET') throw accessDenied();
      return reply(200, { 'content-type': 'application/xml' }, listBucketsXml(await loadBuckets(credential.buckets), credential.accessKeyId));
    }
    const record = await loadBucket(bucket);
    authorize(classify(method, key, parseQuery(rawQuery)), bucket, record, credential);
    meteredBucket = record?.name ?? null;
    await forward(req, res, {
      rawPath,
      rawQuery,
      auth: auth.kind === 'signed' ? auth : null,
      signingKey,
      record,
      options,
      requestId,
      onBytes: (n) => (sent += n),
    });
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const error = err instanceof S3Error ? err : new S3Error('InternalError', 500, 'We encountered an internal error. Please try again.');
    if (!(err instanceof S3Error)) getLogger().error({ err, requestId }, 'object storage gateway: request failed');
    // The body is not read on a refusal; closing the connection keeps a client from sending it all.
    if (!req.complete) res.setHeader('connection', 'close');
    reply(error.status, { 'content-type': 'application/xml' }, errorXml(error, rawPath, requestId));
  }
}

function parsePath(rawPath: string): { bucket: string | null; key: string | null } {
  const slash = rawPath.indexOf('/', 1);
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new S3Error('InvalidURI', 400, 'Could not parse the specified URI.');
    }
  };
  const bucket = decode(slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash));
  const key = slash < 0 ? '' : decode(rawPath.slice(slash + 1));
  return { bucket: bucket || null, key: key || null };
}

function classify(method: string, key: string | null, query: [string, string][]): Operation {
  const names = query.map(([name]) => name);
  if (key !== null) {
    if (method === 'GET' || method === 'HEAD') return { need: 'read', anonymousRead: names.every((n) => ANONYMOUS_READ_PARAMS.test(n)) };
    if (method === 'PUT' || method === 'POST' || method === 'DELETE') return { need: 'write', anonymousRead: false };
    throw new S3Error('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.');
  }
  if (names.some((n) => FULL_SUBRESOURCES.has(n))) return { need: 'full', anonymousRead: false };
  if (method === 'GET' || method === 'HEAD') return { need: 'read', anonymousRead: false };
  if (names.some((n) => PLATFORM_SUBRESOURCES.has(n))) return { need: 'platform', anonymousRead: false };
  if (method === 'POST' && names.includes('delete')) return { need: 'write', anonymousRead: false };
  return { need: 'platform', anonymousRead: false };
}

function authorize(operation: Operation, bucket: string, record: BucketRecord | null, credential: CredentialRecord | null): void {
  if (!credential) {
    if (record && !record.suspended && record.publicAccess && operation.anonymousRead) return;
    throw accessDenied();
  }
  if (!credential.buckets.includes(bucket)) throw accessDenied();
  if (record?.suspended) throw accessDenied('This bucket is suspended.');
  if (operation.need === 'platform') throw accessDenied('Buckets are created, deleted and configured by the platform, not through this endpoint.');
  if (ACCESS_RANK[credential.access] < ACCESS_RANK[operation.need]) throw accessDenied();
  if (!record) throw new S3Error('NoSuchBucket', 404, 'The specified bucket does not exist');
}

type Reply = (status: number, headers: OutgoingHttpHeaders, body: string) => void;

function preflight(req: IncomingMessage, record: BucketRecord | null, reply: Reply): void {
  if (!record || record.suspended) throw accessDenied();
  const origin = req.headers.origin;
  const method = req.headers['access-control-request-method'];
  if (!origin) throw new S3Error('BadRequest', 400, 'Insufficient information. Origin request header needed.');
  if (!method) throw new S3Error('BadRequest', 400, 'Invalid Access-Control-Request-Method: null');
  if (record.corsRules.length === 0) throw new S3Error('CORSResponse', 403, 'CORS is not enabled for this bucket.');
  const requestHeaders = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const rule = matchCorsRule(record.corsRules, origin, method, requestHeaders);
  if (!rule) {
    throw new S3Error(
      'CORSResponse',
      403,
      "This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
    );
  }
  reply(200, corsHeaders(rule, origin, { requestHeaders }), '');
}

interface ForwardContext {
  rawPath: string;
  rawQuery: string;
  auth: SignedAuthentication | null;
  signingKey: Buffer | null;
  record: BucketRecord | null;
  options: GatewayOptions;
  requestId: string;
  onBytes: (n: number) => void;
}

async function forward(req: IncomingMessage, res: ServerResponse, ctx: ForwardContext): Promise<void> {
  const body = await prepareBody(req, ctx);
  try {
    const headers = upstreamHeaders(req.headers);
    if (body.length !== null) headers['content-length'] = String(body.length);
    const query = ctx.rawQuery
      .split('&')
      .filter((pair) => pair && !PRESIGN_PARAMS.has(safeDecode(pair.split('=')[0] ?? '')))
      .join('&');
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: ctx.options.upstream.host,
          port: ctx.options.upstream.port,
          method: req.method,
          path: query ? `${ctx.rawPath}?${query}` : ctx.rawPath,
          headers,
        },
        resolve,
      );
      outgoing.on('error', reject);
      if (body.stream) body.stream.on('error', (err) => outgoing.destroy(err)).pipe(outgoing);
      else outgoing.end();
    }).catch((err: unknown) => {
      getLogger().error({ err, requestId: ctx.requestId }, 'object storage gateway: the storage server did not answer');
      throw new S3Error('ServiceUnavailable', 503, 'The storage server is not available. Please try again.');
    });
    const responseHeaders: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name) && !name.startsWith('access-control-')) responseHeaders[name] = value;
    }
    const origin = req.headers.origin;
    const rule = origin && ctx.record ? matchCorsRule(ctx.record.corsRules, origin, req.method ?? 'GET') : null;
    if (rule && origin) Object.assign(responseHeaders, corsHeaders(rule, origin, null));
    responseHeaders['x-amz-request-id'] = ctx.requestId;
    res.writeHead(upstream.statusCode ?? 502, responseHeaders);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        ctx.onBytes(chunk.length);
        callback(null, chunk);
      },
    });
    await pipeline(upstream, counter, res).catch(() => {
      // The client went away mid-download: nothing to answer, and the bytes sent are counted.
    });
  } finally {
    await body.cleanup();
  }
}

interface PreparedBody {
  stream: Readable | null;
  /** Null: passed on with the client's own framing. */
  length: number | null;
  cleanup: () => Promise<void>;
}

/**
 * The plain body s3rver is to store. A body whose hash or chunk signatures must be checked is
 * written to a spool file first and forwarded only once it checked out, since s3rver writes objects
 * in place and a half-checked upload would otherwise replace an object.
 */
async function prepareBody(req: IncomingMessage, ctx: ForwardContext): Promise<PreparedBody> {
  const none: PreparedBody = { stream: null, length: 0, cleanup: async () => {} };
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const payloadHash = ctx.auth?.payloadHash ?? UNSIGNED_PAYLOAD;
  const chunked = payloadHash === STREAMING_SIGNED || payloadHash === STREAMING_UNSIGNED_TRAILER;
  if (payloadHash === UNSIGNED_PAYLOAD) {
    if (!hasBody) return none;
    const length = req.headers['content-length'];
    return { stream: req, length: length === undefined ? null : Number(length), cleanup: async () => {} };
  }
  if (!chunked && !/^[0-9a-fA-F]{64}$/.test(payloadHash)) {
    throw new S3Error(
      'InvalidArgument',
      400,
      `x-amz-content-sha256 ${payloadHash} is not supported; use a hex SHA-256, UNSIGNED-PAYLOAD, ${STREAMING_SIGNED} or ${STREAMING_UNSIGNED_TRAILER}`,
    );
  }
  if (!hasBody) {
    if (chunked || !sameHex(EMPTY_SHA256, payloadHash))
      throw new S3Error('XAmzContentSHA256Mismatch', 400, 'The provided x-amz-content-sha256 header does not match what was computed.');
    return none;
  }
  let transform: Transform;
  if (chunked) {
    const declared = req.headers['x-amz-decoded-content-length'];
    const decodedLength = declared === undefined ? null : Number(declared);
    if (decodedLength !== null && !Number.isSafeInteger(decodedLength))
      throw new S3Error('InvalidArgument', 400, 'x-amz-decoded-content-length is not a number');
    const auth = ctx.auth;
    transform = new AwsChunkedDecoder({
      signing:
        payloadHash === STREAMING_SIGNED && auth && ctx.signingKey
          ? { key: ctx.signingKey, amzDate: auth.amzDate, scope: auth.scope, seedSignature: auth.signature }
          : null,
      decodedLength,
    });
  } else {
    transform = new PayloadHashCheck(payloadHash);
  }
  const file = path.join(ctx.options.spoolDir, `${ctx.requestId}-${randomBytes(4).toString('hex')}`);
  const cleanup = () => rm(file, { force: true });
  let length = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      length += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(req, transform, counter, createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { stream: createReadStream(file), length, cleanup };
}

function upstreamHeaders(incoming: IncomingHttpHeaders): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
    if (name === 'content-encoding') {
      const rest = String(value)
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e && e !== 'aws-chunked');
      if (rest.length) headers[name] = rest.join(',');
      continue;
    }
    headers[name] = value;
  }
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  // s3rver checks no V4 signature, but refuses response-header overrides (response-content-type…)
  // to unsigned requests; its built-in key id passes.
  headers.authorization = `AWS4-HMAC-SHA256 Credential=S3RVER/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`;
  headers['x-amz-date'] = amzDate;
  headers['x-amz-content-sha256'] = UNSIGNED_PAYLOAD;
  return headers;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function listBucketsXml(buckets: BucketRecord[], ownerId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Owner>${xmlElement('ID', ownerId)}${xmlElement('DisplayName', ownerId)}</Owner><Buckets>` +
    buckets.map((b) => `<Bucket>${xmlElement('Name', b.name)}${xmlElement('CreationDate', b.createdAt.toISOString())}</Bucket>`).join('') +
    '</Buckets></ListAllMyBucketsResult>'
  );
}

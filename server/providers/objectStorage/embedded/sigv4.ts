import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { S3Error, accessDenied } from './s3Error';

/**
 * AWS Signature Version 4 as S3 checks it: the Authorization header form and the presigned query
 * form. S3's canonical URI is the path as sent, each segment URI-encoded once (no normalisation, no
 * double encoding), unlike the other AWS services.
 */

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');
/** S3's tolerance between a request's time and the server's. */
export const MAX_SKEW_MS = 15 * 60 * 1000;
/** A presigned URL lives at most seven days. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

/** The query parameters of the presigned form, which the signature covers but never forwards. */
export const PRESIGN_PARAMS = new Set([
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
  'X-Amz-Content-Sha256',
]);

export interface RequestToVerify {
  method: string;
  /** The path exactly as received, still percent-encoded. */
  rawPath: string;
  /** The query string as received, without `?`. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
}

export interface CredentialScope {
  date: string;
  region: string;
  service: string;
}

export interface SignedAuthentication {
  kind: 'signed';
  presigned: boolean;
  accessKeyId: string;
  scope: CredentialScope;
  /** `YYYYMMDDTHHMMSSZ`. */
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  /** The `x-amz-content-sha256` value: a hex hash or one of the markers above. */
  payloadHash: string;
  expiresSeconds: number | null;
}

export type Authentication = { kind: 'anonymous' } | SignedAuthentication;

const malformed = (message: string) => new S3Error('AuthorizationHeaderMalformed', 400, message);

/** Which form of authentication a request carries, parsed but not yet checked. */
export function parseAuthentication(request: RequestToVerify): Authentication {
  const header = request.headers.authorization;
  const query = parseQuery(request.rawQuery);
  const presigned = query.some(([name]) => name === 'X-Amz-Algorithm');
  if (header !== undefined && presigned) {
    throw new S3Error('InvalidArgument', 400, 'Only one auth mechanism allowed; use either the Authorization header or the X-Amz-Algorithm query parameter');
  }
  if (header !== undefined) return parseHeader(header, request.headers);
  if (presigned) return parsePresigned(new Map(query));
  if (query.some(([name]) => name === 'Signature' || name === 'AWSAccessKeyId')) {
    throw new S3Error('InvalidRequest', 400, 'Signature Version 2 is not supported; sign requests with AWS4-HMAC-SHA256');
  }
  return { kind: 'anonymous' };
}

function parseHeader(header: string, headers: IncomingHttpHeaders): SignedAuthentication {
  const space = header.indexOf(' ');
  const algorithm = space < 0 ? header : header.slice(0, space);
  if (algorithm !== ALGORITHM) {
    throw new S3Error('InvalidRequest', 400, `Unsupported Authorization type ${algorithm}; sign requests with AWS4-HMAC-SHA256`);
  }
  const fields = new Map(
    header
      .slice(space + 1)
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const eq = part.indexOf('=');
        return [eq < 0 ? part : part.slice(0, eq), eq < 0 ? '' : part.slice(eq + 1)] as const;
      }),
  );
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw malformed('The authorization header is malformed; it requires Credential, SignedHeaders and Signature');
  }
  const amzDate = single(headers['x-amz-date']);
  if (!amzDate) throw accessDenied('AWS authentication requires a valid x-amz-date header');
  const payloadHash = single(headers['x-amz-content-sha256']);
  if (!payloadHash) throw new S3Error('InvalidRequest', 400, 'Missing required header for this request: x-amz-content-sha256');
  return {
    kind: 'signed',
    presigned: false,
    ...parseCredential(credential),
    amzDate,
    signedHeaders: signedHeaders.split(';'),
    signature,
    payloadHash,
    expiresSeconds: null,
  };
}

function parsePresigned(query: Map<string, string>): SignedAuthentication {
  const algorithm = query.get('X-Amz-Algorithm');
  if (algorithm !== ALGORITHM) throw new S3Error('InvalidRequest', 400, `Unsupported X-Amz-Algorithm ${algorithm}; use AWS4-HMAC-SHA256`);
  const credential = query.get('X-Amz-Credential');
  const amzDate = query.get('X-Amz-Date');
  const signedHeaders = query.get('X-Amz-SignedHeaders');
  const signature = query.get('X-Amz-Signature');
  const expires = Number(query.get('X-Amz-Expires'));
  if (!credential || !amzDate || !signedHeaders || !signature || !query.has('X-Amz-Expires')) {
    throw accessDenied(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters',
    );
  }
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    throw accessDenied('X-Amz-Expires must be between 1 and 604800 seconds');
  }
  return {
    kind: 'signed',
    presigned: true,
    ...parseCredential(credential),
    amzDate,
    signedHeaders: signedHeaders.split(';'),
    signature,
    payloadHash: query.get('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD,
    expiresSeconds: expires,
  };
}

function parseCredential(credential: string): { accessKeyId: string; scope: CredentialScope } {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split('/');
  if (!accessKeyId || !date || !region || service !== 's3' || terminator !== 'aws4_request' || rest.length > 0 || !/^\d{8}$/.test(date)) {
    throw malformed('The Credential is malformed; expected <access key id>/<YYYYMMDD>/<region>/s3/aws4_request');
  }
  return { accessKeyId, scope: { date, region, service } };
}

/** `20130524T000000Z` as a time, or NaN. */
export function parseAmzDate(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/**
 * Checks the request's time and signature against the key's secret; throws the S3 error a client
 * expects (RequestTimeTooSkewed, an expired presigned URL, SignatureDoesNotMatch). Returns the
 * signing key, which chunk signatures of a streamed body are checked with.
 */
export function verifySignature(auth: SignedAuthentication, request: RequestToVerify, secret: string, now: number): Buffer {
  const requestTime = parseAmzDate(auth.amzDate);
  if (Number.isNaN(requestTime)) throw accessDenied('X-Amz-Date must be in the ISO 8601 basic format YYYYMMDDTHHMMSSZ');
  if (!auth.amzDate.startsWith(auth.scope.date)) throw malformed('The Credential date does not match the request date');
  if (auth.presigned) {
    if (requestTime - now > MAX_SKEW_MS) throw accessDenied('Request is not valid yet');
    if (now > requestTime + (auth.expiresSeconds ?? 0) * 1000) throw accessDenied('Request has expired');
  } else if (Math.abs(now - requestTime) > MAX_SKEW_MS) {
    throw new S3Error('RequestTimeTooSkewed', 403, 'The difference between the request time and the current time is too large.');
  }
  if (!auth.signedHeaders.includes('host')) throw malformed('The host header must be signed');
  const key = signingKey(secret, auth.scope);
  const expected = sign(key, stringToSign(auth, canonicalRequest(auth, request)));
  if (!sameHex(expected, auth.signature)) {
    throw new S3Error(
      'SignatureDoesNotMatch',
      403,
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return key;
}

export function signingKey(secret: string, scope: CredentialScope): Buffer {
  const date = hmac(`AWS4${secret}`, scope.date);
  return hmac(hmac(hmac(date, scope.region), scope.service), 'aws4_request');
}

export function scopeString(scope: CredentialScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
}

export function canonicalRequest(auth: SignedAuthentication, request: RequestToVerify): string {
  const query = parseQuery(request.rawQuery)
    .filter(([name]) => !(auth.presigned && name === 'X-Amz-Signature'))
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = auth.signedHeaders.map((name) => `${name}:${headerValue(request.headers[name])}\n`).join('');
  return [request.method, canonicalUri(request.rawPath), query, headers, auth.signedHeaders.join(';'), auth.payloadHash].join('\n');
}

export function stringToSign(auth: Pick<SignedAuthentication, 'amzDate' | 'scope'>, canonical: string): string {
  return [ALGORITHM, auth.amzDate, scopeString(auth.scope), sha256Hex(canonical)].join('\n');
}

export function sign(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b.toLowerCase(), 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Name and value pairs in order, percent-decoded; a bare name has an empty value. */
export function parseQuery(rawQuery: string): [string, string][] {
  if (!rawQuery) return [];
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return [decode(eq < 0 ? pair : pair.slice(0, eq)), eq < 0 ? '' : decode(pair.slice(eq + 1))];
    });
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3Error('InvalidArgument', 400, 'The request contains an invalid percent-encoding');
  }
}

/** RFC 3986 encoding: everything but the unreserved characters. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalUri(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => uriEncode(decode(segment)))
    .join('/');
}

/** Node joins repeated headers with `, `; SigV4 trims each value and folds runs of spaces. */
function headerValue(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.trim().replace(/ +/g, ' ');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

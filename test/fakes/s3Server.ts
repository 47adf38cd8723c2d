import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { createHttpFake, FakeHttpError, type FakeRequest, type FakeResponse, type Fault, type RecordedRequest, type RouteKey } from './httpFake';

/**
 * A loopback stand-in for an S3-compatible endpoint with an IAM API on the same origin, as Ceph RGW
 * serves them: the S3 REST API (path-style, XML bodies) and the IAM Query API (form POST to `/`, XML
 * answers), each request's SigV4 signature verified with AWS's algorithm against the administrator's
 * key or a key it issued. It evaluates policies the way S3 does (an explicit Deny in the bucket policy
 * wins, then an Allow from the caller's user policies or the bucket policy; the administrator owns
 * every bucket) and answers CORS preflights from the bucket's rules, so an adapter is tested against
 * the endpoint's behaviour rather than canned replies. Object keys are single path segments.
 */

export type FakeS3Route =
  | 'POST /'
  | 'GET /:bucket'
  | 'HEAD /:bucket'
  | 'PUT /:bucket'
  | 'POST /:bucket'
  | 'DELETE /:bucket'
  | 'GET /:bucket/:key'
  | 'HEAD /:bucket/:key'
  | 'PUT /:bucket/:key'
  | 'DELETE /:bucket/:key';

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: string[];
  NotPrincipal?: string[];
  Action: string[];
  Resource: string[];
}

export interface FakeCorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

export interface FakeObjectVersion {
  key: string;
  versionId: string;
  deleteMarker: boolean;
  body: Buffer;
  lastModified: string;
}

export interface FakeBucketState {
  name: string;
  versioning: 'Enabled' | 'Suspended' | undefined;
  /** The policy document as the endpoint read it, principals and actions as lists. */
  policy: PolicyStatement[] | undefined;
  cors: FakeCorsRule[] | undefined;
  /** Every version and delete marker, newest first within a key. */
  versions: FakeObjectVersion[];
}

export interface FakeIamUser {
  name: string;
  path: string;
  arn: string;
  accessKeys: string[];
  policies: Record<string, PolicyStatement[]>;
}

export interface FakeS3 {
  /** The S3 API and the IAM API both, as Ceph RGW serves them on one origin. */
  url: string;
  region: string;
  admin: { accessKeyId: string; secretAccessKey: string; arn: string };
  requests: RecordedRequest<Buffer>[];
  bucket(name: string): FakeBucketState | undefined;
  users(): FakeIamUser[];
  /** Stores an object as a client's PutObject would, versioning included, without a request. */
  putObject(bucket: string, key: string, body: string | Buffer): void;
  /** A bucket someone else owns: creating it answers BucketAlreadyExists. */
  addForeignBucket(name: string): void;
  fail(route: FakeS3Route, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

export interface FakeS3Options {
  region?: string;
  /** How far a request's x-amz-date may be from the fake's clock (S3: 15 minutes). */
  maxSkewMs?: number;
}

const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const IAM_NS = 'https://iam.amazonaws.com/doc/2010-05-08/';
const ACCOUNT = '000000000000';
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');
const USER_NAME = /^[\w+=,.@-]{1,64}$/;
const CORS_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'HEAD']);

type Caller = { kind: 'anonymous' } | { kind: 'admin'; arn: string } | { kind: 'user'; arn: string; user: UserRecord };

interface UserRecord {
  name: string;
  path: string;
  id: string;
  arn: string;
  created: string;
  policies: Map<string, PolicyStatement[]>;
}

interface KeyRecord {
  secret: string;
  /** Undefined for the administrator's key. */
  userName: string | undefined;
  created: string;
}

interface BucketRecord extends FakeBucketState {
  created: string;
}

export async function startFakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const region = options.region ?? 'fra1';
  const maxSkewMs = options.maxSkewMs ?? 15 * 60_000;
  const admin = { accessKeyId: accessKeyId(), secretAccessKey: secret(), arn: `arn:aws:iam::${ACCOUNT}:user/admin` };
  const keys = new Map<string, KeyRecord>([[admin.accessKeyId, { secret: admin.secretAccessKey, userName: undefined, created: now() }]]);
  const users = new Map<string, UserRecord>();
  const buckets = new Map<string, BucketRecord>();
  const foreign = new Set<string>();

  const http = createHttpFake({
    name: 'S3',
    parseBody: 'raw',
    errorBody: ({ status, method, path, reason, message }) => {
      const code = reason === 'method_not_allowed' ? 'MethodNotAllowed' : (STATUS_CODES[status] ?? 'InternalError');
      return method === 'POST' && path === '/' ? iamErrorXml(code, message) : s3ErrorXml(code, message, path);
    },
    responseHeaders: () => ({ 'x-amz-request-id': requestId() }),
  });

  // --- Authentication: SigV4 as AWS documents it ---------------------------------------------

  function authenticate(request: FakeRequest<Buffer>, service: 's3' | 'iam'): Caller {
    const refuse = (status: number, code: string, message: string) =>
      service === 's3' ? s3Error(status, code, message, request.path) : new FakeHttpError(status, iamErrorXml(code, message), XML);
    const header = request.headers.authorization;
    if (header === undefined) {
      if (service === 'iam') throw refuse(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
      return { kind: 'anonymous' };
    }
    const parsed = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(header);
    if (!parsed) throw refuse(400, service === 's3' ? 'AuthorizationHeaderMalformed' : 'IncompleteSignature', 'The authorization header is malformed');
    const [, credential = '', signedHeaderList = '', signature = ''] = parsed;
    const [keyId, date, scopeRegion, scopeService, terminator, ...extra] = credential.split('/');
    if (!keyId || !date || !scopeRegion || !scopeService || terminator !== 'aws4_request' || extra.length > 0) {
      throw refuse(400, service === 's3' ? 'AuthorizationHeaderMalformed' : 'IncompleteSignature', 'The credential is malformed');
    }
    const key = keys.get(keyId);
    if (!key) {
      throw service === 's3'
        ? refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.')
        : refuse(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    }
    if (scopeRegion !== region) {
      throw refuse(
        400,
        service === 's3' ? 'AuthorizationHeaderMalformed' : 'SignatureDoesNotMatch',
        `the region '${scopeRegion}' is wrong; expecting '${region}'`,
      );
    }
    if (scopeService !== service)
      throw refuse(400, service === 's3' ? 'AuthorizationHeaderMalformed' : 'SignatureDoesNotMatch', `the service '${scopeService}' is wrong`);
    const amzDate = single(request.headers['x-amz-date']);
    const signedHeaders = signedHeaderList.split(';');
    if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(date) || !signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) {
      throw refuse(403, 'AccessDenied', 'The request must carry a signed host and x-amz-date whose day is the credential scope’s');
    }
    const stamp = Date.UTC(
      +amzDate.slice(0, 4),
      +amzDate.slice(4, 6) - 1,
      +amzDate.slice(6, 8),
      +amzDate.slice(9, 11),
      +amzDate.slice(11, 13),
      +amzDate.slice(13, 15),
    );
    if (Math.abs(Date.now() - stamp) > maxSkewMs) {
      throw refuse(
        403,
        service === 's3' ? 'RequestTimeTooSkewed' : 'SignatureDoesNotMatch',
        'The difference between the request time and the current time is too large.',
      );
    }
    const bodyHash = createHash('sha256').update(request.rawBody).digest('hex');
    let payloadHash = bodyHash;
    if (service === 's3') {
      const declared = single(request.headers['x-amz-content-sha256']);
      if (declared === undefined) throw refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
      if (declared.startsWith('STREAMING-')) throw refuse(501, 'NotImplemented', 'aws-chunked uploads are not implemented by this fake');
      if (declared !== 'UNSIGNED-PAYLOAD' && declared !== bodyHash) {
        throw refuse(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
      }
      payloadHash = declared;
    }
    const canonicalHeaders = signedHeaders.map((name) => {
      const value = request.headers[name];
      if (value === undefined) throw refuse(403, 'SignatureDoesNotMatch', `The signed header ${name} is missing`);
      return `${name}:${(Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ')}\n`;
    });
    const canonicalRequest = [
      request.method,
      // S3 signs the path as sent; every other service signs it encoded once more.
      service === 's3' ? request.url.pathname : request.url.pathname.split('/').map(uriEncode).join('/'),
      canonicalQuery(request.url.search),
      canonicalHeaders.join(''),
      signedHeaderList,
      payloadHash,
    ].join('\n');
    const scope = `${date}/${scopeRegion}/${scopeService}/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
    let signingKey = hmac(`AWS4${key.secret}`, date);
    for (const part of [scopeRegion, scopeService, 'aws4_request']) signingKey = hmac(signingKey, part);
    const expected = Buffer.from(hmac(signingKey, stringToSign).toString('hex'));
    if (!timingSafeEqual(expected, Buffer.from(signature))) {
      throw refuse(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    }
    if (key.userName === undefined) return { kind: 'admin', arn: admin.arn };
    const user = users.get(key.userName)!;
    return { kind: 'user', arn: user.arn, user };
  }

  // --- Authorization: S3's evaluation of user and bucket policies ------------------------------

  function authorize(request: FakeRequest<Buffer>, caller: Caller, action: string, resource: string, bucket: BucketRecord | undefined): void {
    if (!allowed(caller, action, resource, bucket)) throw s3Error(403, 'AccessDenied', 'Access Denied', request.path);
  }

  function allowed(caller: Caller, action: string, resource: string, bucket: BucketRecord | undefined): boolean {
    const applies = (statement: PolicyStatement) =>
      statement.Action.some((pattern) => glob(pattern, action, true)) && statement.Resource.some((pattern) => glob(pattern, resource, false));
    const bucketStatements = (bucket?.policy ?? []).filter((statement) => applies(statement) && principalMatches(statement, caller));
    if (bucketStatements.some((statement) => statement.Effect === 'Deny')) return false;
    const userStatements = caller.kind === 'user' ? [...caller.user.policies.values()].flat().filter(applies) : [];
    if (userStatements.some((statement) => statement.Effect === 'Deny')) return false;
    return caller.kind === 'admin' || userStatements.length > 0 || bucketStatements.length > 0;
  }

  function principalMatches(statement: PolicyStatement, caller: Caller): boolean {
    const named = (list: string[]) => list.includes('*') || (caller.kind !== 'anonymous' && list.includes(caller.arn));
    if (statement.Principal) return named(statement.Principal);
    return !named(statement.NotPrincipal ?? []);
  }

  // --- S3 ----------------------------------------------------------------------------------

  function bucketOf(request: FakeRequest<Buffer, object>, name: string): BucketRecord {
    const bucket = buckets.get(name);
    if (!bucket) throw s3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', request.path);
    return bucket;
  }

  function s3Request(request: FakeRequest<Buffer>, name: string, action: string, key?: string): { caller: Caller; bucket: BucketRecord } {
    const caller = authenticate(request, 's3');
    checkIntegrity(request);
    const bucket = bucketOf(request, name);
    authorize(request, caller, action, key === undefined ? `arn:aws:s3:::${name}` : `arn:aws:s3:::${name}/${key}`, bucket);
    return { caller, bucket };
  }

  /** The SDK addresses a bucket as `/bucket/`, other clients as `/bucket`: S3 takes both. */
  function bucketRoute(method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE', handler: (request: FakeRequest<Buffer, { bucket: string }>) => FakeResponse): void {
    http.route(`${method} /:bucket`, handler);
    http.route(`${method} /:bucket/`, handler);
  }

  const has = (request: FakeRequest<Buffer>, name: string) => request.url.searchParams.has(name);

  bucketRoute('PUT', (request) => {
    const name = request.params.bucket;
    if (has(request, 'versioning')) {
      const { bucket } = s3Request(request, name, 's3:PutBucketVersioning');
      const status = text(child(xmlBody(request, 'VersioningConfiguration'), 'Status'));
      if (status !== 'Enabled' && status !== 'Suspended')
        throw s3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema', request.path);
      bucket.versioning = status;
      return { status: 200 };
    }
    if (has(request, 'policy')) {
      const { bucket } = s3Request(request, name, 's3:PutBucketPolicy');
      bucket.policy = readPolicy(request, name);
      return { status: 204 };
    }
    if (has(request, 'cors')) {
      const { bucket } = s3Request(request, name, 's3:PutBucketCORS');
      requireIntegrityHeader(request, 'PutBucketCors');
      bucket.cors = readCors(request);
      return { status: 200 };
    }
    if ([...request.url.searchParams.keys()].some((param) => param !== 'x-id'))
      throw s3Error(501, 'NotImplemented', 'This subresource is not implemented by the fake', request.path);
    const caller = authenticate(request, 's3');
    checkIntegrity(request);
    if (foreign.has(name)) throw s3Error(409, 'BucketAlreadyExists', 'The requested bucket name is not available.', request.path);
    const existing = buckets.get(name);
    authorize(request, caller, 's3:CreateBucket', `arn:aws:s3:::${name}`, existing);
    if (existing)
      throw s3Error(409, 'BucketAlreadyOwnedByYou', 'Your previous request to create the named bucket succeeded and you already own it.', request.path);
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) throw s3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.', request.path);
    if (request.rawBody.length > 0) {
      const constraint = text(child(xmlBody(request, 'CreateBucketConfiguration'), 'LocationConstraint'));
      if (constraint !== region) {
        throw s3Error(400, 'InvalidLocationConstraint', `The specified location-constraint ${constraint ?? ''} is not valid for ${region}.`, request.path);
      }
    }
    buckets.set(name, { name, versioning: undefined, policy: undefined, cors: undefined, versions: [], created: now() });
    return { status: 200, headers: { location: `/${name}` } };
  });

  bucketRoute('GET', (request) => {
    const name = request.params.bucket;
    const params = request.url.searchParams;
    if (params.has('versioning')) {
      const { bucket } = s3Request(request, name, 's3:GetBucketVersioning');
      return xml(`<VersioningConfiguration xmlns="${S3_NS}">${bucket.versioning ? `<Status>${bucket.versioning}</Status>` : ''}</VersioningConfiguration>`);
    }
    if (params.has('versions')) {
      const { bucket } = s3Request(request, name, 's3:ListBucketVersions');
      return listVersions(request, bucket);
    }
    if (params.get('list-type') === '2') {
      const { bucket } = s3Request(request, name, 's3:ListBucket');
      return listObjects(request, bucket);
    }
    throw s3Error(501, 'NotImplemented', 'This listing or subresource is not implemented by the fake', request.path);
  });

  bucketRoute('HEAD', (request) => {
    s3Request(request, request.params.bucket, 's3:ListBucket');
    return { status: 200 };
  });

  bucketRoute('POST', (request) => {
    if (!has(request, 'delete')) throw s3Error(501, 'NotImplemented', 'This operation is not implemented by the fake', request.path);
    const caller = authenticate(request, 's3');
    checkIntegrity(request);
    const bucket = bucketOf(request, request.params.bucket);
    requireIntegrityHeader(request, 'DeleteObjects');
    const document = xmlBody(request, 'Delete');
    const objects = children(document, 'Object');
    if (objects.length === 0 || objects.length > 1000)
      throw s3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema', request.path);
    const quiet = text(child(document, 'Quiet')) === 'true';
    const results = objects.map((object) => {
      const key = text(child(object, 'Key')) ?? '';
      const versionId = text(child(object, 'VersionId'));
      const action = versionId === undefined ? 's3:DeleteObject' : 's3:DeleteObjectVersion';
      if (!allowed(caller, action, `arn:aws:s3:::${bucket.name}/${key}`, bucket)) {
        return `<Error><Key>${escapeXml(key)}</Key>${versionId ? `<VersionId>${escapeXml(versionId)}</VersionId>` : ''}<Code>AccessDenied</Code><Message>Access Denied</Message></Error>`;
      }
      deleteObject(bucket, key, versionId);
      return quiet ? '' : `<Deleted><Key>${escapeXml(key)}</Key>${versionId ? `<VersionId>${escapeXml(versionId)}</VersionId>` : ''}</Deleted>`;
    });
    return xml(`<DeleteResult xmlns="${S3_NS}">${results.join('')}</DeleteResult>`);
  });

  bucketRoute('DELETE', (request) => {
    const name = request.params.bucket;
    if (has(request, 'policy')) {
      const { bucket } = s3Request(request, name, 's3:DeleteBucketPolicy');
      bucket.policy = undefined;
      return { status: 204 };
    }
    if (has(request, 'cors')) {
      // S3 authorizes removing CORS as s3:PutBucketCORS.
      const { bucket } = s3Request(request, name, 's3:PutBucketCORS');
      bucket.cors = undefined;
      return { status: 204 };
    }
    if ([...request.url.searchParams.keys()].some((param) => param !== 'x-id'))
      throw s3Error(501, 'NotImplemented', 'This subresource is not implemented by the fake', request.path);
    const { bucket } = s3Request(request, name, 's3:DeleteBucket');
    if (bucket.versions.length > 0) throw s3Error(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty', request.path);
    buckets.delete(name);
    return { status: 204 };
  });

  http.route('PUT /:bucket/:key', (request) => {
    const { bucket } = s3Request(request, request.params.bucket, 's3:PutObject', request.params.key);
    const version = storeObject(bucket, request.params.key, request.rawBody);
    return { status: 200, headers: { etag: etagOf(version.body), ...(bucket.versioning && { 'x-amz-version-id': version.versionId }) } };
  });

  function readObject(request: FakeRequest<Buffer, { bucket: string; key: string }>): FakeObjectVersion {
    const { bucket } = s3Request(request, request.params.bucket, 's3:GetObject', request.params.key);
    const latest = bucket.versions.find((version) => version.key === request.params.key);
    if (!latest || latest.deleteMarker) throw s3Error(404, 'NoSuchKey', 'The specified key does not exist.', request.path);
    return latest;
  }

  const objectHeaders = (version: FakeObjectVersion) => ({
    etag: etagOf(version.body),
    'last-modified': new Date(version.lastModified).toUTCString(),
    'content-type': 'application/octet-stream',
    'content-length': String(version.body.length),
  });

  http.route('GET /:bucket/:key', (request) => {
    const version = readObject(request);
    return { status: 200, body: version.body, headers: objectHeaders(version) };
  });

  http.route('HEAD /:bucket/:key', (request) => {
    const version = readObject(request);
    return { status: 200, headers: objectHeaders(version) };
  });

  http.route('DELETE /:bucket/:key', (request) => {
    const versionId = request.url.searchParams.get('versionId') ?? undefined;
    const { bucket } = s3Request(request, request.params.bucket, versionId === undefined ? 's3:DeleteObject' : 's3:DeleteObjectVersion', request.params.key);
    deleteObject(bucket, request.params.key, versionId);
    return { status: 204 };
  });

  // httpFake's method list stops at the methods its other fakes needed; the scaffold routes OPTIONS all the same.
  const preflight = (request: FakeRequest<Buffer, object>): FakeResponse =>
    corsPreflight(request, bucketOf(request, decodeURIComponent(request.path.split('/')[1] ?? '')));
  http.route('OPTIONS /:bucket' as RouteKey, preflight);
  http.route('OPTIONS /:bucket/' as RouteKey, preflight);
  http.route('OPTIONS /:bucket/:key' as RouteKey, preflight);

  function corsPreflight(request: FakeRequest<Buffer, object>, bucket: BucketRecord): FakeResponse {
    const origin = single(request.headers.origin);
    const method = single(request.headers['access-control-request-method']);
    if (!origin || !method) throw s3Error(400, 'BadRequest', 'Insufficient information. Origin request header needed.', request.path);
    if (!bucket.cors) throw s3Error(403, 'CORSResponse', 'CORS is not enabled for this bucket.', request.path);
    const wanted = (single(request.headers['access-control-request-headers']) ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const rule = bucket.cors.find(
      (candidate) =>
        candidate.allowedOrigins.some((pattern) => glob(pattern, origin, false)) &&
        candidate.allowedMethods.includes(method) &&
        wanted.every((name) => candidate.allowedHeaders.some((pattern) => glob(pattern, name, true))),
    );
    if (!rule)
      throw s3Error(
        403,
        'CORSResponse',
        "This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
        request.path,
      );
    const anyOrigin = rule.allowedOrigins.includes('*');
    return {
      status: 200,
      headers: {
        'access-control-allow-origin': anyOrigin ? '*' : origin,
        'access-control-allow-methods': rule.allowedMethods.join(', '),
        ...(wanted.length > 0 && { 'access-control-allow-headers': wanted.join(', ') }),
        ...(rule.exposeHeaders.length > 0 && { 'access-control-expose-headers': rule.exposeHeaders.join(', ') }),
        ...(rule.maxAgeSeconds !== undefined && { 'access-control-max-age': String(rule.maxAgeSeconds) }),
        ...(!anyOrigin && { 'access-control-allow-credentials': 'true' }),
        vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      },
    };
  }

  function storeObject(bucket: BucketRecord, key: string, body: Buffer): FakeObjectVersion {
    const version: FakeObjectVersion = {
      key,
      versionId: bucket.versioning === 'Enabled' ? versionIdOf() : 'null',
      deleteMarker: false,
      body,
      lastModified: now(),
    };
    if (version.versionId === 'null') bucket.versions = bucket.versions.filter((other) => !(other.key === key && other.versionId === 'null'));
    bucket.versions.unshift(version);
    return version;
  }

  function deleteObject(bucket: BucketRecord, key: string, versionId: string | undefined): void {
    if (versionId !== undefined) {
      bucket.versions = bucket.versions.filter((version) => !(version.key === key && version.versionId === versionId));
      return;
    }
    if (bucket.versioning === undefined) {
      bucket.versions = bucket.versions.filter((version) => version.key !== key);
      return;
    }
    const marker: FakeObjectVersion = {
      key,
      versionId: bucket.versioning === 'Enabled' ? versionIdOf() : 'null',
      deleteMarker: true,
      body: Buffer.alloc(0),
      lastModified: now(),
    };
    if (marker.versionId === 'null') bucket.versions = bucket.versions.filter((version) => !(version.key === key && version.versionId === 'null'));
    bucket.versions.unshift(marker);
  }

  /** Keys in order, each key's versions newest first, as S3 lists them. */
  function ordered(bucket: BucketRecord): FakeObjectVersion[] {
    return [...bucket.versions].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  function maxKeys(request: FakeRequest<Buffer>): number {
    const raw = request.url.searchParams.get('max-keys');
    return raw === null ? 1000 : Math.min(1000, Math.max(0, Number.parseInt(raw, 10) || 0));
  }

  function listObjects(request: FakeRequest<Buffer>, bucket: BucketRecord): FakeResponse {
    const limit = maxKeys(request);
    const token = request.url.searchParams.get('continuation-token');
    const after = token === null ? undefined : Buffer.from(token, 'base64url').toString('utf8');
    const seen = new Set<string>();
    const current = ordered(bucket).filter((version) => {
      if (seen.has(version.key)) return false;
      seen.add(version.key);
      return !version.deleteMarker && (after === undefined || version.key > after);
    });
    const page = current.slice(0, limit);
    const truncated = current.length > page.length;
    const contents = page
      .map(
        (version) =>
          `<Contents><Key>${escapeXml(version.key)}</Key><LastModified>${version.lastModified}</LastModified><ETag>${escapeXml(etagOf(version.body))}</ETag><Size>${version.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      )
      .join('');
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!.key).toString('base64url')}</NextContinuationToken>` : '';
    return xml(
      `<ListBucketResult xmlns="${S3_NS}"><Name>${bucket.name}</Name><Prefix></Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${limit}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${token === null ? '' : `<ContinuationToken>${escapeXml(token)}</ContinuationToken>`}${next}${contents}</ListBucketResult>`,
    );
  }

  function listVersions(request: FakeRequest<Buffer>, bucket: BucketRecord): FakeResponse {
    const limit = maxKeys(request);
    const keyMarker = request.url.searchParams.get('key-marker') ?? '';
    const versionMarker = request.url.searchParams.get('version-id-marker') ?? '';
    const all = ordered(bucket);
    let start = 0;
    if (keyMarker !== '') {
      const markerAt = versionMarker === '' ? -1 : all.findIndex((version) => version.key === keyMarker && version.versionId === versionMarker);
      start = markerAt >= 0 ? markerAt + 1 : all.findIndex((version) => version.key > keyMarker);
      if (start < 0) start = all.length;
    }
    const page = all.slice(start, start + limit);
    const truncated = start + page.length < all.length;
    const newest = new Map<string, FakeObjectVersion>();
    for (const version of all) if (!newest.has(version.key)) newest.set(version.key, version);
    const entries = page
      .map((version) => {
        const common = `<Key>${escapeXml(version.key)}</Key><VersionId>${version.versionId}</VersionId><IsLatest>${newest.get(version.key) === version}</IsLatest><LastModified>${version.lastModified}</LastModified>`;
        return version.deleteMarker
          ? `<DeleteMarker>${common}</DeleteMarker>`
          : `<Version>${common}<ETag>${escapeXml(etagOf(version.body))}</ETag><Size>${version.body.length}</Size><StorageClass>STANDARD</StorageClass></Version>`;
      })
      .join('');
    const last = page.at(-1);
    const next = truncated && last ? `<NextKeyMarker>${escapeXml(last.key)}</NextKeyMarker><NextVersionIdMarker>${last.versionId}</NextVersionIdMarker>` : '';
    return xml(
      `<ListVersionsResult xmlns="${S3_NS}"><Name>${bucket.name}</Name><Prefix></Prefix><KeyMarker>${escapeXml(keyMarker)}</KeyMarker><VersionIdMarker>${escapeXml(versionMarker)}</VersionIdMarker><MaxKeys>${limit}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${entries}</ListVersionsResult>`,
    );
  }

  function readPolicy(request: FakeRequest<Buffer>, bucket: string): PolicyStatement[] {
    const statements = parsePolicy(request.rawBody.toString('utf8'), 'bucket');
    if (typeof statements === 'string') throw s3Error(400, 'MalformedPolicy', statements, request.path);
    for (const statement of statements) {
      if (statement.Resource.some((resource) => resource !== `arn:aws:s3:::${bucket}` && !resource.startsWith(`arn:aws:s3:::${bucket}/`))) {
        throw s3Error(400, 'MalformedPolicy', 'Policy has invalid resource', request.path);
      }
      if (statement.Action.some((action) => action !== '*' && !action.toLowerCase().startsWith('s3:')))
        throw s3Error(400, 'MalformedPolicy', 'Policy has invalid action', request.path);
      const principals = [...(statement.Principal ?? []), ...(statement.NotPrincipal ?? [])];
      if (principals.some((arn) => arn !== '*' && arn !== admin.arn && ![...users.values()].some((user) => user.arn === arn))) {
        throw s3Error(400, 'MalformedPolicy', 'Invalid principal in policy', request.path);
      }
    }
    return statements;
  }

  function readCors(request: FakeRequest<Buffer>): FakeCorsRule[] {
    const rules = children(xmlBody(request, 'CORSConfiguration'), 'CORSRule');
    const malformed = (message: string) => s3Error(400, 'MalformedXML', message, request.path);
    if (rules.length === 0 || rules.length > 100) throw malformed('A CORS configuration holds between 1 and 100 rules');
    return rules.map((rule) => {
      const all = (name: string) => children(rule, name).map((node) => text(node) ?? '');
      const allowedOrigins = all('AllowedOrigin');
      const allowedMethods = all('AllowedMethod');
      if (allowedOrigins.length === 0 || allowedMethods.length === 0) throw malformed('A CORS rule needs an AllowedOrigin and an AllowedMethod');
      const unsupported = allowedMethods.find((method) => !CORS_METHODS.has(method));
      if (unsupported) throw s3Error(400, 'InvalidRequest', `Found unsupported HTTP method in CORS config. Unsupported method is ${unsupported}`, request.path);
      const wildcarded = allowedOrigins.find((origin) => origin.split('*').length > 2);
      if (wildcarded) throw s3Error(400, 'InvalidRequest', `AllowedOrigin "${wildcarded}" can not have more than one wildcard.`, request.path);
      const maxAge = text(child(rule, 'MaxAgeSeconds'));
      if (maxAge !== undefined && !/^\d+$/.test(maxAge)) throw malformed('MaxAgeSeconds is an integer');
      return {
        allowedOrigins,
        allowedMethods,
        allowedHeaders: all('AllowedHeader'),
        exposeHeaders: all('ExposeHeader'),
        ...(maxAge !== undefined && { maxAgeSeconds: Number(maxAge) }),
      };
    });
  }

  function xmlBody(request: FakeRequest<Buffer>, root: string): XmlNode {
    let document: XmlNode;
    try {
      document = parseXml(request.rawBody.toString('utf8'));
    } catch {
      throw s3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema', request.path);
    }
    if (document.name !== root) throw s3Error(400, 'MalformedXML', `Expected ${root}, got ${document.name}`, request.path);
    return document;
  }

  /** Content-MD5 and a flexible checksum, when sent, must match the body (S3 answers BadDigest). */
  function checkIntegrity(request: FakeRequest<Buffer>): void {
    const md5 = single(request.headers['content-md5']);
    if (md5 !== undefined && md5 !== createHash('md5').update(request.rawBody).digest('base64')) {
      throw s3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.', request.path);
    }
    const crc = single(request.headers['x-amz-checksum-crc32']);
    if (crc !== undefined) {
      const computed = Buffer.alloc(4);
      computed.writeUInt32BE(crc32(request.rawBody));
      if (crc !== computed.toString('base64')) throw s3Error(400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.', request.path);
    }
  }

  /** The operations S3 refuses without an integrity header; older MinIO and Ceph accept only Content-MD5 there. */
  function requireIntegrityHeader(request: FakeRequest<Buffer>, operation: string): void {
    if (request.headers['content-md5'] === undefined) throw s3Error(400, 'InvalidRequest', `${operation} requires one valid Content-MD5 header`, request.path);
  }

  // --- IAM ---------------------------------------------------------------------------------

  http.route('POST /', (request) => {
    const caller = authenticate(request, 'iam');
    const form = new URLSearchParams(request.rawBody.toString('utf8'));
    const action = form.get('Action') ?? '';
    const iamError = (status: number, code: string, message: string) => new FakeHttpError(status, iamErrorXml(code, message), XML);
    if (form.get('Version') !== '2010-05-08') throw iamError(400, 'InvalidParameterValue', 'The Version parameter must be 2010-05-08');
    // Only the account's administrator manages IAM here, as on Ceph where the account root user holds the IAM API.
    if (caller.kind !== 'admin')
      throw iamError(403, 'AccessDenied', `User: ${caller.kind === 'user' ? caller.arn : 'anonymous'} is not authorized to perform: iam:${action}`);
    const answer = (result: string | undefined) =>
      xml(
        `<${action}Response xmlns="${IAM_NS}">${result === undefined ? '' : `<${action}Result>${result}</${action}Result>`}<ResponseMetadata><RequestId>${requestId()}</RequestId></ResponseMetadata></${action}Response>`,
      );
    const required = (name: string) => {
      const value = form.get(name);
      if (!value)
        throw iamError(400, 'ValidationError', `1 validation error detected: Value null at '${name}' failed to satisfy constraint: Member must not be null`);
      return value;
    };
    const userOf = (name: string) => {
      const user = users.get(name);
      if (!user) throw iamError(404, 'NoSuchEntity', `The user with name ${name} cannot be found.`);
      return user;
    };
    const userXml = (user: UserRecord) =>
      `<Path>${escapeXml(user.path)}</Path><UserName>${escapeXml(user.name)}</UserName><UserId>${user.id}</UserId><Arn>${escapeXml(user.arn)}</Arn><CreateDate>${user.created}</CreateDate>`;
    const keysOf = (userName: string | undefined) => [...keys.entries()].filter(([, key]) => key.userName === userName);

    switch (action) {
      case 'CreateUser': {
        const name = required('UserName');
        const path = form.get('Path') ?? '/';
        if (!USER_NAME.test(name)) throw iamError(400, 'ValidationError', `The specified value for userName is invalid`);
        if (!/^\/([\x21-\x7e]*\/)?$/.test(path)) throw iamError(400, 'ValidationError', 'The specified value for path is invalid');
        if ([...users.keys()].some((other) => other.toLowerCase() === name.toLowerCase()))
          throw iamError(409, 'EntityAlreadyExists', `User with name ${name} already exists.`);
        const user: UserRecord = {
          name,
          path,
          id: `AIDA${randomBytes(8).toString('hex').toUpperCase()}`,
          arn: `arn:aws:iam::${ACCOUNT}:user${path}${name}`,
          created: now(),
          policies: new Map(),
        };
        users.set(name, user);
        return answer(`<User>${userXml(user)}</User>`);
      }
      case 'GetUser': {
        const name = form.get('UserName');
        if (name === null) {
          return answer(
            `<User><Path>/</Path><UserName>admin</UserName><UserId>AIDAADMIN</UserId><Arn>${admin.arn}</Arn><CreateDate>2024-01-01T00:00:00Z</CreateDate></User>`,
          );
        }
        return answer(`<User>${userXml(userOf(name))}</User>`);
      }
      case 'ListUsers': {
        const prefix = form.get('PathPrefix') ?? '/';
        const limit = Math.min(1000, Number(form.get('MaxItems') ?? 100) || 100);
        const matching = [...users.values()].filter((user) => user.path.startsWith(prefix)).sort((a, b) => (a.name < b.name ? -1 : 1));
        const marker = form.get('Marker');
        const start = marker === null ? 0 : Number(Buffer.from(marker, 'base64url').toString('utf8'));
        const page = matching.slice(start, start + limit);
        const truncated = start + page.length < matching.length;
        return answer(
          `<Users>${page.map((user) => `<member>${userXml(user)}</member>`).join('')}</Users><IsTruncated>${truncated}</IsTruncated>${truncated ? `<Marker>${Buffer.from(String(start + page.length)).toString('base64url')}</Marker>` : ''}`,
        );
      }
      case 'DeleteUser': {
        const user = userOf(required('UserName'));
        if (keysOf(user.name).length > 0 || user.policies.size > 0)
          throw iamError(409, 'DeleteConflict', 'Cannot delete entity, must delete access keys and policies first.');
        users.delete(user.name);
        return answer(undefined);
      }
      case 'CreateAccessKey': {
        const user = userOf(required('UserName'));
        if (keysOf(user.name).length >= 2) throw iamError(409, 'LimitExceeded', 'Cannot exceed quota for AccessKeysPerUser: 2');
        const id = accessKeyId();
        const key: KeyRecord = { secret: secret(), userName: user.name, created: now() };
        keys.set(id, key);
        return answer(
          `<AccessKey><UserName>${escapeXml(user.name)}</UserName><AccessKeyId>${id}</AccessKeyId><Status>Active</Status><SecretAccessKey>${key.secret}</SecretAccessKey><CreateDate>${key.created}</CreateDate></AccessKey>`,
        );
      }
      case 'ListAccessKeys': {
        const name = form.get('UserName');
        if (name !== null) userOf(name);
        const members = keysOf(name ?? undefined).map(
          ([id, key]) =>
            `<member><UserName>${escapeXml(name ?? 'admin')}</UserName><AccessKeyId>${id}</AccessKeyId><Status>Active</Status><CreateDate>${key.created}</CreateDate></member>`,
        );
        return answer(`<AccessKeyMetadata>${members.join('')}</AccessKeyMetadata><IsTruncated>false</IsTruncated>`);
      }
      case 'DeleteAccessKey': {
        const user = userOf(required('UserName'));
        const id = required('AccessKeyId');
        if (keys.get(id)?.userName !== user.name) throw iamError(404, 'NoSuchEntity', `The Access Key with id ${id} cannot be found.`);
        keys.delete(id);
        return answer(undefined);
      }
      case 'PutUserPolicy': {
        const user = userOf(required('UserName'));
        const statements = parsePolicy(required('PolicyDocument'), 'identity');
        if (typeof statements === 'string') throw iamError(400, 'MalformedPolicyDocument', statements);
        user.policies.set(required('PolicyName'), statements);
        return answer(undefined);
      }
      case 'DeleteUserPolicy': {
        const user = userOf(required('UserName'));
        const name = required('PolicyName');
        if (!user.policies.delete(name)) throw iamError(404, 'NoSuchEntity', `The user policy with name ${name} cannot be found.`);
        return answer(undefined);
      }
      default:
        throw iamError(400, 'InvalidAction', `Could not find operation ${action} for version 2010-05-08`);
    }
  });

  const { url } = await http.listen();
  return {
    url,
    region,
    admin,
    requests: http.requests,
    bucket: (name) => buckets.get(name),
    users: () =>
      [...users.values()].map((user) => ({
        name: user.name,
        path: user.path,
        arn: user.arn,
        accessKeys: [...keys.entries()].filter(([, key]) => key.userName === user.name).map(([id]) => id),
        policies: Object.fromEntries(user.policies),
      })),
    putObject(name, key, body) {
      const bucket = buckets.get(name);
      if (!bucket) throw new Error(`The S3 fake has no bucket ${name}`);
      storeObject(bucket, key, Buffer.from(body));
    },
    addForeignBucket: (name) => void foreign.add(name),
    fail(route, fault) {
      // By method and path rather than route key, so a bucket route fails with or without its trailing slash.
      const space = route.indexOf(' ');
      const method = route.slice(0, space);
      const pattern = new RegExp(`^${route.slice(space + 1).replace(/:\w+/g, '[^/]+')}${route.endsWith('/') ? '' : '/?'}$`);
      http.fail({ ...fault, when: (request) => request.method === method && pattern.test(request.path) && (fault.when?.(request) ?? true) });
    },
    close: () => http.close(),
  };
}

// --- Policies ----------------------------------------------------------------------------------

const listOf = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((value) => (Array.isArray(value) ? value : [value]));
const principalSchema = z.union([z.literal('*').transform(() => ['*']), z.strictObject({ AWS: listOf }).transform((value) => value.AWS)]);
const statementSchema = z.strictObject({
  Sid: z.string().optional(),
  Effect: z.enum(['Allow', 'Deny']),
  Principal: principalSchema.optional(),
  NotPrincipal: principalSchema.optional(),
  Action: listOf,
  Resource: listOf,
});
const policySchema = z.strictObject({
  Version: z.enum(['2012-10-17', '2008-10-17']).optional(),
  Id: z.string().optional(),
  Statement: z.union([statementSchema.transform((statement) => [statement]), z.array(statementSchema).min(1)]),
});

/** The statements, or what is wrong with the document in the words S3 and IAM use. */
function parsePolicy(source: string, kind: 'bucket' | 'identity'): PolicyStatement[] | string {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch {
    return 'This policy contains invalid Json';
  }
  const parsed = policySchema.safeParse(json);
  if (!parsed.success) return `Policy has an invalid element: ${parsed.error.issues[0]?.path.join('.') ?? ''}`;
  for (const statement of parsed.data.Statement) {
    const principals = (statement.Principal ? 1 : 0) + (statement.NotPrincipal ? 1 : 0);
    if (kind === 'identity' && principals > 0) return 'Policy document should not specify a principal.';
    if (kind === 'bucket' && principals !== 1) return 'Missing required field Principal';
  }
  return parsed.data.Statement.map((statement) => ({ ...statement }));
}

/** IAM's matching: `*` any run of characters, `?` one; actions compare without case. */
function glob(pattern: string, value: string, ignoreCase: boolean): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

// --- Wire helpers ------------------------------------------------------------------------------

const XML = { 'content-type': 'application/xml' };

const STATUS_CODES: Record<number, string> = {
  400: 'InvalidRequest',
  401: 'AccessDenied',
  403: 'AccessDenied',
  404: 'NotFound',
  409: 'OperationAborted',
  500: 'InternalError',
  501: 'NotImplemented',
  503: 'ServiceUnavailable',
};

function xml(body: string): FakeResponse {
  return { status: 200, body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`, headers: XML };
}

function s3ErrorXml(code: string, message: string, resource: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource><RequestId>${requestId()}</RequestId></Error>`;
}

function s3Error(status: number, code: string, message: string, resource: string): FakeHttpError {
  return new FakeHttpError(status, s3ErrorXml(code, message, resource), XML);
}

function iamErrorXml(code: string, message: string): string {
  const type = ['InternalFailure', 'ServiceUnavailable', 'InternalError'].includes(code) ? 'Receiver' : 'Sender';
  return `<ErrorResponse xmlns="${IAM_NS}"><Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId()}</RequestId></ErrorResponse>`;
}

function canonicalQuery(search: string): string {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
      return [uriEncode(name), uriEncode(value)] as const;
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** RFC 3986 encoding, as SigV4 wants it: everything but unreserved characters. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256Hex(data: string): string {
  return data === '' ? EMPTY_SHA256 : createHash('sha256').update(data, 'utf8').digest('hex');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function etagOf(body: Buffer): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

const now = () => new Date().toISOString();
const requestId = () => randomBytes(8).toString('hex').toUpperCase();
const accessKeyId = () => `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
const secret = () => randomBytes(30).toString('base64');
const versionIdOf = () => randomBytes(16).toString('base64url');

function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[char]};`);
}

// --- A small XML reader for S3's request documents --------------------------------------------

interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

/** Elements and text only (S3's request bodies have no mixed content); throws on anything ill-formed. */
function parseXml(source: string): XmlNode {
  const root: XmlNode = { name: '', children: [], text: '' };
  const stack = [root];
  const token = /<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < source.length && (match = token.exec(source)) !== null) {
    at = token.lastIndex;
    const [whole, closing, rawName, , selfClosing, content] = match;
    if (whole.startsWith('<?') || whole.startsWith('<!--')) continue;
    const top = stack.at(-1)!;
    if (content !== undefined) {
      if (content.trim() !== '' && top === root) throw new Error('Text outside the root element');
      top.text += decodeEntities(content);
      continue;
    }
    const name = rawName!.includes(':') ? rawName!.slice(rawName!.indexOf(':') + 1) : rawName!;
    if (closing) {
      if (top.name !== name || stack.length === 1) throw new Error(`Unexpected </${name}>`);
      stack.pop();
      continue;
    }
    const node: XmlNode = { name, children: [], text: '' };
    if (top === root && root.children.length > 0) throw new Error('More than one root element');
    top.children.push(node);
    if (!selfClosing) stack.push(node);
  }
  if (at !== source.length || stack.length !== 1 || root.children.length !== 1) throw new Error('Ill-formed XML');
  return root.children[0]!;
}

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[entity.toLowerCase()] ?? '';
  });
}

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.children.filter((candidate) => candidate.name === name) ?? [];
}

function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return children(node, name)[0];
}

function text(node: XmlNode | undefined): string | undefined {
  return node?.text.trim();
}

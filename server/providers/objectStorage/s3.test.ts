import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, PutBucketPolicyCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeS3, type FakeS3 } from '../../../test/fakes/s3Server';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { createS3ObjectStorageProvider, CREDENTIAL_POLICY_NAME, CREDENTIAL_USER_PATH, type S3ObjectStorageOptions } from './s3';
import type { BucketSettings, IssuedCredential, ObjectStorageProvider } from './types';

const started: FakeS3[] = [];
const clients: S3Client[] = [];

afterEach(async () => {
  clients.splice(0).forEach((client) => client.destroy());
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function setup(overrides: (fake: FakeS3) => Partial<S3ObjectStorageOptions> = () => ({})): Promise<{ fake: FakeS3; storage: ObjectStorageProvider }> {
  const fake = await startFakeS3();
  started.push(fake);
  const storage = createS3ObjectStorageProvider({
    endpoint: fake.url,
    region: fake.region,
    pathStyle: true,
    accessKeyId: fake.admin.accessKeyId,
    secretAccessKey: fake.admin.secretAccessKey,
    iamEndpoint: fake.url,
    ...overrides(fake),
  });
  return { fake, storage };
}

/** A customer's own S3 client, configured as the endpoint tells them to. */
function customer(fake: FakeS3, credentials: IssuedCredential): S3Client {
  const client = new S3Client({
    endpoint: fake.url,
    region: fake.region,
    forcePathStyle: true,
    credentials,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  clients.push(client);
  return client;
}

const settings = (overrides: Partial<BucketSettings> = {}): BucketSettings => ({
  publicAccess: false,
  versioning: false,
  corsRules: [],
  suspended: false,
  ...overrides,
});

async function read(client: S3Client, bucket: string, key: string): Promise<string> {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return answer.Body!.transformToString();
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(S3ServiceException);
  return (err as S3ServiceException).name;
}

async function caught(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/** Every message down the cause chain, where a secret would leak into a log. */
function messages(err: unknown): string {
  const all: string[] = [];
  for (let current: unknown = err; current; current = (current as { cause?: unknown }).cause) {
    all.push(String((current as Error).message), String((current as Error).stack));
  }
  return all.join('\n');
}

const received = (fake: FakeS3, method: string, path: string, subresource?: string) =>
  fake.requests.filter((r) => r.method === method && r.path.replace(/(.)\/$/, '$1') === path && (subresource === undefined || subresource in r.query));

const md5 = (body: Buffer | undefined) =>
  createHash('md5')
    .update(body ?? Buffer.alloc(0))
    .digest('base64');

describe('S3 adapter: buckets', () => {
  it('creates the bucket in the endpoint’s region and succeeds again for a bucket it owns', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('photos', 'fra1', settings());
    await storage.createBucket('photos', 'fra1', settings());

    const [create] = received(fake, 'PUT', '/photos').filter((r) => Object.keys(r.query).length === 0);
    expect(create?.body?.toString()).toContain(`<LocationConstraint>${fake.region}</LocationConstraint>`);
    expect(fake.bucket('photos')).toMatchObject({ versioning: undefined, policy: undefined, cors: undefined });
    // A bucket never versioned is left unversioned rather than suspended.
    expect(received(fake, 'PUT', '/photos', 'versioning')).toHaveLength(0);
    expect(storage.endpoint('fra1')).toEqual({ url: fake.url, region: fake.region, pathStyle: true, development: false });
  });

  it('answers CONFLICT for a name someone else holds', async () => {
    const { fake, storage } = await setup();
    fake.addForeignBucket('taken');
    expect((await caught(storage.createBucket('taken', 'fra1', settings()))).code).toBe('CONFLICT');
  });

  it('turns versioning on and suspends it later, with the request MinIO and Ceph accept', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('docs', 'fra1', settings({ versioning: true }));
    expect(fake.bucket('docs')?.versioning).toBe('Enabled');
    await storage.applySettings('docs', settings({ versioning: false }));
    expect(fake.bucket('docs')?.versioning).toBe('Suspended');

    const puts = received(fake, 'PUT', '/docs', 'versioning');
    expect(puts.map((r) => r.body?.toString())).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?><VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>',
      '<?xml version="1.0" encoding="UTF-8"?><VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Suspended</Status></VersioningConfiguration>',
    ]);
    for (const put of puts) expect(put.headers['content-md5']).toBe(md5(put.body));
  });

  it('public access is a bucket policy letting anonymous GETs through; turning it off deletes the policy', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('site', 'fra1', settings({ publicAccess: true }));
    fake.putObject('site', 'index.html', '<h1>hi</h1>');

    const [put] = received(fake, 'PUT', '/site', 'policy');
    expect(JSON.parse(put!.body!.toString())).toEqual({
      Version: '2012-10-17',
      Statement: [{ Sid: 'PublicRead', Effect: 'Allow', Principal: { AWS: ['*'] }, Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::site/*'] }],
    });
    expect(put!.headers['content-md5']).toBe(md5(put!.body));
    const anonymous = await fetch(`${fake.url}/site/index.html`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toBe('<h1>hi</h1>');
    // Reading objects is all the policy gives: listing stays private.
    expect((await fetch(`${fake.url}/site?list-type=2`)).status).toBe(403);

    const deletes = received(fake, 'DELETE', '/site', 'policy').length;
    await storage.applySettings('site', settings({ publicAccess: false }));
    expect(received(fake, 'DELETE', '/site', 'policy')).toHaveLength(deletes + 1);
    expect(fake.bucket('site')?.policy).toBeUndefined();
    expect((await fetch(`${fake.url}/site/index.html`)).status).toBe(403);
  });

  it('puts the CORS rules with the request MinIO and Ceph accept, and the endpoint answers preflights from them', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('assets', 'fra1', settings());
    await storage.applySettings(
      'assets',
      settings({
        corsRules: [
          {
            allowedOrigins: ['https://app.example.com'],
            allowedMethods: ['GET', 'PUT'],
            allowedHeaders: ['content-type'],
            exposeHeaders: ['etag'],
            maxAgeSeconds: 600,
          },
          { allowedOrigins: ['*'], allowedMethods: ['HEAD'] },
        ],
      }),
    );

    const [put] = received(fake, 'PUT', '/assets', 'cors');
    expect(put!.body!.toString()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<CORSRule><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedOrigin>https://app.example.com</AllowedOrigin><AllowedHeader>content-type</AllowedHeader><ExposeHeader>etag</ExposeHeader><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>' +
        '<CORSRule><AllowedMethod>HEAD</AllowedMethod><AllowedOrigin>*</AllowedOrigin></CORSRule>' +
        '</CORSConfiguration>',
    );
    expect(put!.headers['content-md5']).toBe(md5(put!.body));

    const preflight = (origin: string, method: string, headers?: string) =>
      fetch(`${fake.url}/assets/photo.jpg`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, ...(headers && { 'access-control-request-headers': headers }) },
      });
    const allowed = await preflight('https://app.example.com', 'PUT', 'Content-Type');
    expect(allowed.status).toBe(200);
    expect(Object.fromEntries(allowed.headers)).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET, PUT',
      'access-control-allow-headers': 'content-type',
      'access-control-expose-headers': 'etag',
      'access-control-max-age': '600',
    });
    expect((await preflight('https://evil.example.com', 'PUT')).status).toBe(403);
    expect((await preflight('https://app.example.com', 'DELETE')).status).toBe(403);
    expect((await preflight('https://app.example.com', 'PUT', 'x-secret')).status).toBe(403);
    expect((await preflight('https://anyone.example.org', 'HEAD')).headers.get('access-control-allow-origin')).toBe('*');

    const deletes = received(fake, 'DELETE', '/assets', 'cors').length;
    await storage.applySettings('assets', settings({ corsRules: [] }));
    expect(received(fake, 'DELETE', '/assets', 'cors')).toHaveLength(deletes + 1);
    expect(fake.bucket('assets')?.cors).toBeUndefined();
    expect((await preflight('https://app.example.com', 'GET')).status).toBe(403);
  });

  it('a suspended bucket refuses its credentials and anonymous readers, yet the platform can lift it', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('media', 'fra1', settings({ publicAccess: true }));
    fake.putObject('media', 'a.txt', 'A');
    const key = await storage.issueCredential('app', { buckets: ['media'], projectBuckets: ['media'], access: 'write' });
    const client = customer(fake, key);
    expect(await read(client, 'media', 'a.txt')).toBe('A');

    await storage.applySettings('media', settings({ publicAccess: true, suspended: true }));
    const statements = fake.bucket('media')?.policy;
    expect(statements?.find((s) => s.Sid === 'Suspended')).toEqual({
      Sid: 'Suspended',
      Effect: 'Deny',
      NotPrincipal: [fake.admin.arn],
      Action: ['s3:*'],
      Resource: ['arn:aws:s3:::media', 'arn:aws:s3:::media/*'],
    });
    expect(await refusal(read(client, 'media', 'a.txt'))).toBe('AccessDenied');
    expect(await refusal(client.send(new PutObjectCommand({ Bucket: 'media', Key: 'b.txt', Body: 'B' })))).toBe('AccessDenied');
    expect((await fetch(`${fake.url}/media/a.txt`)).status).toBe(403);

    await storage.applySettings('media', settings({ publicAccess: true }));
    expect(await read(client, 'media', 'a.txt')).toBe('A');
    expect((await fetch(`${fake.url}/media/a.txt`)).status).toBe(200);
  });

  it('names a configured administrator in the suspension without asking IAM', async () => {
    const { fake, storage } = await setup((endpoint) => ({ adminArn: endpoint.admin.arn }));
    await storage.createBucket('quiet', 'fra1', settings({ suspended: true }));
    expect(fake.bucket('quiet')?.policy?.[0]?.NotPrincipal).toEqual([fake.admin.arn]);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path === '/')).toEqual([]);
  });

  it('deleteBucket removes every version and delete marker in batches of 1000, then the bucket; a bucket already gone is fine', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('archive', 'fra1', settings({ versioning: true }));
    for (let i = 0; i < 700; i += 1) {
      fake.putObject('archive', `file-${i}`, `v1-${i}`);
      fake.putObject('archive', `file-${i}`, `v2-${i}`);
    }
    const client = customer(fake, { accessKeyId: fake.admin.accessKeyId, secretAccessKey: fake.admin.secretAccessKey });
    await client.send(new PutObjectCommand({ Bucket: 'archive', Key: 'file-0', Body: 'v3' }));
    await client.send(new DeleteObjectCommand({ Bucket: 'archive', Key: 'file-1' }));
    expect(fake.bucket('archive')?.versions).toHaveLength(1402);

    await storage.deleteBucket('archive');

    expect(fake.bucket('archive')).toBeUndefined();
    const batches = received(fake, 'POST', '/archive', 'delete');
    expect(batches.length).toBeGreaterThanOrEqual(2);
    for (const batch of batches) {
      expect(batch.body!.toString().match(/<Object>/g)!.length).toBeLessThanOrEqual(1000);
      expect(batch.headers['content-md5']).toBe(md5(batch.body));
    }
    expect(batches.map((batch) => batch.body!.toString().match(/<Object>/g)!.length).reduce((a, b) => a + b)).toBe(1402);
    await storage.deleteBucket('archive');
  });

  it('usage sums the sizes of the current objects across pages and reports no traffic', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('logs', 'fra1', settings());
    for (let i = 0; i < 1005; i += 1) fake.putObject('logs', `log-${i}`, 'x'.repeat(i % 10));
    const since = new Date('2026-11-01T00:00:00Z');

    const usage = await storage.usage('logs', since);

    const expectedBytes = Array.from({ length: 1005 }, (_, i) => i % 10).reduce((a, b) => a + b);
    expect(usage).toMatchObject({ storageBytes: expectedBytes, objects: 1005, egressBytes: 0, requests: 0, since: since.toISOString() });
    expect(Date.parse(usage.measuredAt)).not.toBeNaN();
    expect(received(fake, 'GET', '/logs', 'list-type')).toHaveLength(2);
  });

  it('answers NOT_FOUND for settings or usage of a bucket the endpoint does not have', async () => {
    const { storage } = await setup();
    expect((await caught(storage.applySettings('ghost', settings()))).code).toBe('NOT_FOUND');
    expect((await caught(storage.usage('ghost', new Date()))).code).toBe('NOT_FOUND');
  });
});

describe('S3 adapter: credentials', () => {
  it('issues a key that signs requests on its bucket and is refused on another', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    await storage.createBucket('beta', 'fra1', settings());
    fake.putObject('beta', 'secret.txt', 'no');

    const key = await storage.issueCredential('Deploy bot!', { buckets: ['alpha'], projectBuckets: ['alpha', 'beta'], access: 'write' });
    const client = customer(fake, key);
    await client.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'hello.txt', Body: 'hello' }));
    expect(await read(client, 'alpha', 'hello.txt')).toBe('hello');
    expect(await refusal(read(client, 'beta', 'secret.txt'))).toBe('AccessDenied');
    expect(await refusal(client.send(new PutObjectCommand({ Bucket: 'beta', Key: 'x', Body: 'x' })))).toBe('AccessDenied');

    const [user] = fake.users();
    expect(user?.name).toMatch(/^os-deploy-bot-[0-9a-f]{12}$/);
    expect(user?.path).toBe(CREDENTIAL_USER_PATH);
    expect(user?.accessKeys).toEqual([key.accessKeyId]);
    expect(user?.policies[CREDENTIAL_POLICY_NAME]).toEqual([
      { Sid: 'Buckets', Effect: 'Allow', Action: ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'], Resource: ['arn:aws:s3:::alpha'] },
      {
        Sid: 'Objects',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        Resource: ['arn:aws:s3:::alpha/*'],
      },
    ]);
  });

  it('a read key reads but cannot write, and cannot touch the bucket’s settings', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    fake.putObject('alpha', 'a.txt', 'A');
    const client = customer(fake, await storage.issueCredential('reader', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'read' }));

    expect(await read(client, 'alpha', 'a.txt')).toBe('A');
    expect(await refusal(client.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'b.txt', Body: 'B' })))).toBe('AccessDenied');
    const lift = new PutBucketPolicyCommand({
      Bucket: 'alpha',
      Policy: JSON.stringify({ Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: 'arn:aws:s3:::alpha/*' }] }),
    });
    expect(await refusal(client.send(lift))).toBe('AccessDenied');
  });

  it('a full key also reaches versions, yet never the platform’s settings', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    await storage.issueCredential('admin-ish', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'full' });
    const actions = Object.values(fake.users()[0]!.policies).flatMap((statements) => statements.flatMap((s) => s.Action));
    expect(actions).toEqual(expect.arrayContaining(['s3:GetObjectVersion', 's3:DeleteObjectVersion', 's3:ListBucketVersions', 's3:PutObject']));
    expect(actions.filter((action) => /^s3:(Put|Delete)Bucket(Policy|CORS|Versioning)$/.test(action))).toEqual([]);
  });

  it('a project-wide key reaches the project’s buckets; a project without buckets gets a key that reaches nothing', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('one', 'fra1', settings());
    await storage.createBucket('two', 'fra1', settings());
    fake.putObject('two', 'x', 'X');
    const wide = customer(fake, await storage.issueCredential('wide', { buckets: null, projectBuckets: ['one', 'two'], access: 'read' }));
    expect(await read(wide, 'two', 'x')).toBe('X');

    const empty = await storage.issueCredential('empty', { buckets: null, projectBuckets: [], access: 'read' });
    expect(fake.users().find((user) => user.accessKeys.includes(empty.accessKeyId))?.policies).toEqual({});
    expect(await refusal(read(customer(fake, empty), 'two', 'x'))).toBe('AccessDenied');
  });

  it('a rescoped key reaches the new bucket only', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    await storage.createBucket('beta', 'fra1', settings());
    fake.putObject('alpha', 'a', 'A');
    fake.putObject('beta', 'b', 'B');
    await storage.issueCredential('other', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'read' });
    const key = await storage.issueCredential('mover', { buckets: ['alpha'], projectBuckets: ['alpha', 'beta'], access: 'read' });
    const client = customer(fake, key);
    expect(await read(client, 'alpha', 'a')).toBe('A');

    await storage.rescopeCredential(key.accessKeyId, { buckets: ['beta'], projectBuckets: ['alpha', 'beta'], access: 'read' });

    expect(await read(client, 'beta', 'b')).toBe('B');
    expect(await refusal(read(client, 'alpha', 'a'))).toBe('AccessDenied');

    await storage.rescopeCredential(key.accessKeyId, { buckets: [], projectBuckets: ['alpha', 'beta'], access: 'read' });
    expect(await refusal(read(client, 'beta', 'b'))).toBe('AccessDenied');
  });

  it('rescoping a key no one holds is NOT_FOUND', async () => {
    const { storage } = await setup();
    await storage.issueCredential('someone', { buckets: [], projectBuckets: [], access: 'read' });
    const err = await caught(storage.rescopeCredential('AKIANOSUCHKEY', { buckets: [], projectBuckets: [], access: 'read' }));
    expect(err.code).toBe('NOT_FOUND');
  });

  it('a revoked key is refused and its user is gone; revoking again succeeds', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    fake.putObject('alpha', 'a', 'A');
    const keep = await storage.issueCredential('keep', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'read' });
    const key = await storage.issueCredential('drop', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'read' });
    const client = customer(fake, key);
    expect(await read(client, 'alpha', 'a')).toBe('A');

    await storage.revokeCredential(key.accessKeyId);

    expect(await refusal(read(client, 'alpha', 'a'))).toBe('InvalidAccessKeyId');
    expect(fake.users().map((user) => user.accessKeys)).toEqual([[keep.accessKeyId]]);
    await storage.revokeCredential(key.accessKeyId);
    expect(await read(customer(fake, keep), 'alpha', 'a')).toBe('A');
  });

  it('a wrong secret is refused with SignatureDoesNotMatch', async () => {
    const { fake, storage } = await setup();
    await storage.createBucket('alpha', 'fra1', settings());
    fake.putObject('alpha', 'a', 'A');
    const key = await storage.issueCredential('typo', { buckets: ['alpha'], projectBuckets: ['alpha'], access: 'read' });
    const last = key.secretAccessKey.at(-1) === 'x' ? 'y' : 'x';
    const wrong = customer(fake, { accessKeyId: key.accessKeyId, secretAccessKey: `${key.secretAccessKey.slice(0, -1)}${last}` });
    expect(await refusal(read(wrong, 'alpha', 'a'))).toBe('SignatureDoesNotMatch');
  });

  it('a key whose creation fails leaves no user behind', async () => {
    const { fake, storage } = await setup();
    fake.fail('POST /', { when: (r) => r.rawBody.toString().includes('Action=CreateAccessKey'), status: 500, times: 3 });
    const err = await caught(storage.issueCredential('doomed', { buckets: [], projectBuckets: [], access: 'read' }));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(fake.users()).toEqual([]);
  });

  it('refuses a bucket name that would widen the policy', async () => {
    const { fake, storage } = await setup();
    const err = await caught(storage.issueCredential('sneaky', { buckets: ['alpha*'], projectBuckets: [], access: 'read' }));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(fake.requests).toEqual([]);
  });
});

describe('S3 adapter: failures', () => {
  it('a 5xx answer is UPSTREAM_ERROR, after the SDK’s retries', async () => {
    const { fake, storage } = await setup();
    fake.fail('PUT /:bucket', { status: 503, times: 3 });
    const err = await caught(storage.createBucket('alpha', 'fra1', settings()));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('HTTP 503');
    expect(received(fake, 'PUT', '/alpha')).toHaveLength(3);
  });

  it('a timeout is UPSTREAM_ERROR', async () => {
    const { fake, storage } = await setup(() => ({ timeoutMs: 100 }));
    fake.fail('GET /:bucket', { delayMs: 1000, times: 3 });
    await storage.createBucket('alpha', 'fra1', settings({ versioning: true }));
    const err = await caught(storage.usage('alpha', new Date()));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('TimeoutError');
  });

  it('an unreachable endpoint is UPSTREAM_ERROR, and no message or log carries the secret', async () => {
    const { fake, storage } = await setup();
    const logger = getLogger();
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) => vi.spyOn(logger, level));
    await fake.close();
    try {
      const errors = await Promise.all([
        caught(storage.createBucket('alpha', 'fra1', settings())),
        caught(storage.issueCredential('x', { buckets: [], projectBuckets: [], access: 'read' })),
        caught(storage.revokeCredential('AKIAX')),
        caught(storage.deleteBucket('alpha')),
      ]);
      for (const err of errors) {
        expect(err.code).toBe('UPSTREAM_ERROR');
        expect(messages(err)).not.toContain(fake.admin.secretAccessKey);
      }
      expect(JSON.stringify(spies.map((spy) => spy.mock.calls))).not.toContain(fake.admin.secretAccessKey);
      expect(JSON.stringify(storage)).not.toContain(fake.admin.secretAccessKey);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
  });
});

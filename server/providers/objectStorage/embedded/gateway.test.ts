import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../../platform/config';
import { AppError } from '../../../platform/errors';
import { getObjectStorageProvider, resetObjectStorageProviderForTests, stopEmbeddedObjectStorage } from '../index';
import type { BucketSettings, CredentialAccess, IssuedCredential } from '../types';
import { EMPTY_SHA256, canonicalRequest, parseAuthentication, scopeString, sha256Hex, sign, signingKey, stringToSign } from './sigv4';

const REGION = 'eu-central-1';
const settings = (overrides: Partial<BucketSettings> = {}): BucketSettings => ({
  publicAccess: false,
  versioning: false,
  corsRules: [],
  suspended: false,
  ...overrides,
});

let counter = 0;
const bucketName = () => `t${process.pid}-${Date.now().toString(36)}-${counter++}`;

beforeAll(() => {
  process.env.OBJECT_STORAGE_ENDPOINT_PORT = '0';
  resetConfigForTests();
  resetObjectStorageProviderForTests();
});

afterAll(async () => {
  await stopEmbeddedObjectStorage();
});

const provider = () => getObjectStorageProvider();

function client(credential: IssuedCredential, onRequest?: (headers: Record<string, string>) => void): S3Client {
  const s3 = new S3Client({
    endpoint: provider().endpoint(REGION).url,
    region: REGION,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: credential,
  });
  if (onRequest) {
    s3.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers: Record<string, string> };
        onRequest(request.headers);
        return next(args);
      },
      { step: 'deserialize', name: 'recordSentHeaders' },
    );
  }
  return s3;
}

async function bucketWithKey(access: CredentialAccess = 'write', overrides: Partial<BucketSettings> = {}) {
  const name = bucketName();
  await provider().createBucket(name, REGION, settings(overrides));
  const credential = await provider().issueCredential('test key', { buckets: [name], projectBuckets: [], access });
  return { name, credential, s3: client(credential) };
}

async function s3Failure(promise: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3ServiceException) return { name: err.name, status: err.$metadata.httpStatusCode };
    throw err;
  }
  throw new Error('expected the endpoint to refuse');
}

async function body(s3: S3Client, bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

describe('embedded object storage: keys and scopes', () => {
  it('describes itself as a path-style development endpoint on loopback', async () => {
    const { name } = await bucketWithKey();
    expect(provider().kind).toBe('embedded');
    expect(provider().description).toMatch(/development/);
    expect(provider().description).toMatch(/no versioning/);
    const endpoint = provider().endpoint(REGION);
    expect(endpoint).toMatchObject({ region: REGION, pathStyle: true, development: true });
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(name).toBeTruthy();
  });

  it('lets a key put and get objects on its bucket and refuses it another bucket', async () => {
    const mine = await bucketWithKey();
    const other = await bucketWithKey();
    await mine.s3.send(new PutObjectCommand({ Bucket: mine.name, Key: 'dir/hello world.txt', Body: 'hello', ContentType: 'text/plain' }));
    expect(await body(mine.s3, mine.name, 'dir/hello world.txt')).toBe('hello');
    const listed = await mine.s3.send(new ListObjectsV2Command({ Bucket: mine.name }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['dir/hello world.txt']);

    expect(await s3Failure(mine.s3.send(new PutObjectCommand({ Bucket: other.name, Key: 'x', Body: 'intrusion' })))).toEqual({
      name: 'AccessDenied',
      status: 403,
    });
    expect(await s3Failure(mine.s3.send(new ListObjectsV2Command({ Bucket: other.name })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect((await other.s3.send(new ListObjectsV2Command({ Bucket: other.name }))).KeyCount).toBe(0);
  });

  it('answers SignatureDoesNotMatch to a wrong secret and InvalidAccessKeyId to an unknown key', async () => {
    const { name, credential } = await bucketWithKey();
    // The last character replaced by another one: a secret that already ended in x would otherwise stay right.
    const last = credential.secretAccessKey.at(-1) === 'x' ? 'y' : 'x';
    const wrongSecret = client({ accessKeyId: credential.accessKeyId, secretAccessKey: `${credential.secretAccessKey.slice(0, -1)}${last}` });
    expect(await s3Failure(wrongSecret.send(new ListObjectsV2Command({ Bucket: name })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    const unknown = client({ accessKeyId: 'AKIAUNKNOWNUNKNOWN00', secretAccessKey: credential.secretAccessKey });
    expect(await s3Failure(unknown.send(new ListObjectsV2Command({ Bucket: name })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('issues AWS-shaped keys and keeps only a sealed secret', async () => {
    const { credential } = await bucketWithKey();
    expect(credential.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(credential.secretAccessKey).toHaveLength(40);
    const { queryRows } = await import('../../../../test/db');
    const { sql } = await import('drizzle-orm');
    const [row] = await queryRows<{ sealed_secret: string }>(
      sql`select sealed_secret from s3_gateway_credentials where access_key_id = ${credential.accessKeyId}`,
    );
    expect(row?.sealed_secret).toMatch(/^v1\./);
    expect(row?.sealed_secret).not.toContain(credential.secretAccessKey);
  });

  it('lets a read key get and list but not put or delete; a full key changes CORS that a write key may not', async () => {
    const { name, credential: writer } = await bucketWithKey('write');
    await client(writer).send(new PutObjectCommand({ Bucket: name, Key: 'a.txt', Body: 'a' }));
    const reader = client(await provider().issueCredential('reader', { buckets: [name], projectBuckets: [], access: 'read' }));
    expect(await body(reader, name, 'a.txt')).toBe('a');
    expect(await s3Failure(reader.send(new PutObjectCommand({ Bucket: name, Key: 'b.txt', Body: 'b' })))).toEqual({ name: 'AccessDenied', status: 403 });
    const { DeleteObjectCommand, GetBucketCorsCommand, PutBucketCorsCommand, DeleteBucketCommand, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    expect(await s3Failure(reader.send(new DeleteObjectCommand({ Bucket: name, Key: 'a.txt' })))).toEqual({ name: 'AccessDenied', status: 403 });
    const cors = { Bucket: name, CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['https://app.example'], AllowedMethods: ['GET'] }] } };
    expect(await s3Failure(client(writer).send(new PutBucketCorsCommand(cors)))).toEqual({ name: 'AccessDenied', status: 403 });
    const full = client(await provider().issueCredential('admin', { buckets: [name], projectBuckets: [], access: 'full' }));
    await full.send(new PutBucketCorsCommand(cors));
    expect((await full.send(new GetBucketCorsCommand({ Bucket: name }))).CORSRules?.[0]?.AllowedOrigins).toEqual(['https://app.example']);
    // Buckets are the platform's to make and remove, whatever the key.
    expect(await s3Failure(full.send(new DeleteBucketCommand({ Bucket: name })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(full.send(new CreateBucketCommand({ Bucket: bucketName() })))).toEqual({ name: 'AccessDenied', status: 403 });
  });

  it('reaches every project bucket with a project-wide key, and follows a rescope', async () => {
    const first = await bucketWithKey();
    const second = await bucketWithKey();
    const projectKey = await provider().issueCredential('project', { buckets: null, projectBuckets: [first.name, second.name], access: 'read' });
    const s3 = client(projectKey);
    await s3.send(new ListObjectsV2Command({ Bucket: first.name }));
    await s3.send(new ListObjectsV2Command({ Bucket: second.name }));
    await provider().rescopeCredential(projectKey.accessKeyId, { buckets: [second.name], projectBuckets: [first.name, second.name], access: 'read' });
    expect(await s3Failure(s3.send(new ListObjectsV2Command({ Bucket: first.name })))).toEqual({ name: 'AccessDenied', status: 403 });
    await s3.send(new ListObjectsV2Command({ Bucket: second.name }));
    const { ListBucketsCommand } = await import('@aws-sdk/client-s3');
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual([second.name]);
    await expect(provider().rescopeCredential('AKIAUNKNOWNUNKNOWN00', { buckets: [], projectBuckets: [], access: 'read' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('makes a revoked key fail at once', async () => {
    const { name, credential, s3 } = await bucketWithKey();
    await s3.send(new ListObjectsV2Command({ Bucket: name }));
    await provider().revokeCredential(credential.accessKeyId);
    expect(await s3Failure(s3.send(new ListObjectsV2Command({ Bucket: name })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    await provider().revokeCredential(credential.accessKeyId);
  });
});

describe('embedded object storage: presigned URLs, public access and suspension', () => {
  it('serves a presigned GET, and refuses it once tampered with or expired', async () => {
    const { name, s3 } = await bucketWithKey();
    await s3.send(new PutObjectCommand({ Bucket: name, Key: 'report.csv', Body: 'a,b\n1,2\n' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: name, Key: 'report.csv', ResponseContentDisposition: 'attachment' }), { expiresIn: 60 });
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('a,b\n1,2\n');
    expect(ok.headers.get('content-disposition')).toBe('attachment');
    const tampered = await fetch(url.replace('report.csv', 'other.csv'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const expired = await getSignedUrl(s3, new GetObjectCommand({ Bucket: name, Key: 'report.csv' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    const old = await fetch(expired);
    expect(old.status).toBe(403);
    expect(await old.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('answers anonymous object reads only on a public bucket, and never anonymous listing or writes', async () => {
    const open = await bucketWithKey('write', { publicAccess: true });
    const closed = await bucketWithKey('write');
    await open.s3.send(new PutObjectCommand({ Bucket: open.name, Key: 'logo.svg', Body: '<svg/>' }));
    await closed.s3.send(new PutObjectCommand({ Bucket: closed.name, Key: 'logo.svg', Body: '<svg/>' }));
    const base = provider().endpoint(REGION).url;

    const publicRead = await fetch(`${base}/${open.name}/logo.svg`);
    expect([publicRead.status, await publicRead.text()]).toEqual([200, '<svg/>']);
    expect((await fetch(`${base}/${open.name}/logo.svg`, { method: 'HEAD' })).status).toBe(200);
    const privateRead = await fetch(`${base}/${closed.name}/logo.svg`);
    expect(privateRead.status).toBe(403);
    expect(await privateRead.text()).toMatch(/^<\?xml[^>]*>\s*<Error><Code>AccessDenied<\/Code>/);
    expect((await fetch(`${base}/${open.name}`)).status).toBe(403);
    expect((await fetch(`${base}/${open.name}/new.txt`, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect((await fetch(`${base}/${open.name}/logo.svg`, { method: 'DELETE' })).status).toBe(403);
    expect(await body(open.s3, open.name, 'logo.svg')).toBe('<svg/>');

    await provider().applySettings(open.name, settings({ publicAccess: false }));
    expect((await fetch(`${base}/${open.name}/logo.svg`)).status).toBe(403);
  });

  it('refuses every request on a suspended bucket, its own keys and anonymous reads alike', async () => {
    const { name, s3 } = await bucketWithKey('full', { publicAccess: true });
    await s3.send(new PutObjectCommand({ Bucket: name, Key: 'k', Body: 'v' }));
    await provider().applySettings(name, settings({ publicAccess: true, suspended: true }));
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: name, Key: 'k' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: name, Key: 'k2', Body: 'v' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect((await fetch(`${provider().endpoint(REGION).url}/${name}/k`)).status).toBe(403);
    await provider().applySettings(name, settings({ publicAccess: true, suspended: false }));
    expect(await body(s3, name, 'k')).toBe('v');
  });

  it('refuses applySettings for a bucket it does not know', async () => {
    await expect(provider().applySettings(bucketName(), settings())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('embedded object storage: CORS', () => {
  it('answers a preflight as the stored rules say', async () => {
    const { name } = await bucketWithKey('write', {
      corsRules: [
        {
          allowedOrigins: ['https://app.example'],
          allowedMethods: ['GET', 'PUT'],
          allowedHeaders: ['content-type', 'x-amz-*'],
          exposeHeaders: ['ETag'],
          maxAgeSeconds: 600,
        },
        { allowedOrigins: ['*'], allowedMethods: ['GET'] },
      ],
    });
    const url = `${provider().endpoint(REGION).url}/${name}/upload.bin`;
    const preflight = (origin: string, method: string, headers?: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) },
      });

    const allowed = await preflight('https://app.example', 'PUT', 'Content-Type, x-amz-meta-owner');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, PUT');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type, x-amz-meta-owner');
    expect(allowed.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(allowed.headers.get('access-control-max-age')).toBe('600');

    const anyOrigin = await preflight('https://elsewhere.example', 'GET');
    expect([anyOrigin.status, anyOrigin.headers.get('access-control-allow-origin')]).toEqual([200, '*']);

    const otherOrigin = await preflight('https://elsewhere.example', 'PUT');
    expect(otherOrigin.status).toBe(403);
    expect(otherOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(await otherOrigin.text()).toContain('<Code>CORSResponse</Code>');
    expect((await preflight('https://app.example', 'PUT', 'x-secret')).status).toBe(403);

    await provider().applySettings(name, settings({ corsRules: [] }));
    const disabled = await preflight('https://app.example', 'GET');
    expect(disabled.status).toBe(403);
    expect(await disabled.text()).toContain('CORS is not enabled for this bucket');
  });

  it('adds the matching rule’s headers to an actual cross-origin request', async () => {
    const { name, s3 } = await bucketWithKey('write', { publicAccess: true, corsRules: [{ allowedOrigins: ['https://*.example'], allowedMethods: ['GET'] }] });
    await s3.send(new PutObjectCommand({ Bucket: name, Key: 'a', Body: 'a' }));
    const url = `${provider().endpoint(REGION).url}/${name}/a`;
    const matched = await fetch(url, { headers: { origin: 'https://shop.example' } });
    expect(matched.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const unmatched = await fetch(url, { headers: { origin: 'https://shop.test' } });
    expect(unmatched.status).toBe(200);
    expect(unmatched.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('embedded object storage: uploads', () => {
  it('stores a streamed upload of a few MB sent as the SDK sends it by default (aws-chunked with a checksum trailer)', async () => {
    const { name, credential } = await bucketWithKey();
    const sent: Record<string, string>[] = [];
    const s3 = client(credential, (headers) => sent.push(headers));
    const data = randomBytes(3 * 1024 * 1024 + 17);
    await s3.send(
      new PutObjectCommand({
        Bucket: name,
        Key: 'big.bin',
        Body: Readable.from([data.subarray(0, 1_000_000), data.subarray(1_000_000)]),
        ContentLength: data.length,
      }),
    );
    expect(sent[0]?.['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    expect(sent[0]?.['content-encoding']).toContain('aws-chunked');
    const stored = await s3.send(new GetObjectCommand({ Bucket: name, Key: 'big.bin' }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(data)).toBe(true);
    expect(stored.ContentEncoding).toBeUndefined();
  });

  it('assembles a multipart upload whose parts are signed with their SHA-256', async () => {
    const { name, s3 } = await bucketWithKey();
    const { CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand } = await import('@aws-sdk/client-s3');
    const parts = [randomBytes(5 * 1024 * 1024), randomBytes(1234)];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: name, Key: 'multi.bin' }));
    const etags = [];
    for (const [index, part] of parts.entries()) {
      const { ETag } = await s3.send(new UploadPartCommand({ Bucket: name, Key: 'multi.bin', UploadId, PartNumber: index + 1, Body: part }));
      etags.push({ ETag, PartNumber: index + 1 });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: name, Key: 'multi.bin', UploadId, MultipartUpload: { Parts: etags } }));
    const stored = await s3.send(new GetObjectCommand({ Bucket: name, Key: 'multi.bin' }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(Buffer.concat(parts))).toBe(true);
  });

  it('refuses a body that does not match the SHA-256 it was signed with, and stores nothing', async () => {
    const { name, credential, s3 } = await bucketWithKey();
    const base = provider().endpoint(REGION).url;
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
    const scope = { date: amzDate.slice(0, 8), region: REGION, service: 's3' };
    const headers: Record<string, string> = { host: new URL(base).host, 'x-amz-date': amzDate, 'x-amz-content-sha256': sha256Hex('the signed body') };
    const signedHeaders = Object.keys(headers).sort().join(';');
    const request = {
      method: 'PUT',
      rawPath: `/${name}/swapped.txt`,
      rawQuery: '',
      headers: {
        ...headers,
        authorization: `AWS4-HMAC-SHA256 Credential=${credential.accessKeyId}/${scopeString(scope)}, SignedHeaders=${signedHeaders}, Signature=0`,
      },
    };
    const auth = parseAuthentication(request);
    if (auth.kind !== 'signed') throw new Error('unsigned');
    const signature = sign(signingKey(credential.secretAccessKey, scope), stringToSign(auth, canonicalRequest(auth, request)));
    const authorization = `AWS4-HMAC-SHA256 Credential=${credential.accessKeyId}/${scopeString(scope)}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    const put = (content: string) => fetch(`${base}/${name}/swapped.txt`, { method: 'PUT', headers: { ...headers, authorization }, body: content });
    const swapped = await put('another body');
    expect(swapped.status).toBe(400);
    expect(await swapped.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: name, Key: 'swapped.txt' })))).toMatchObject({ status: 404 });
    expect((await put('the signed body')).status).toBe(200);
    expect(await body(s3, name, 'swapped.txt')).toBe('the signed body');
  });

  it('stores a body sent as STREAMING-AWS4-HMAC-SHA256-PAYLOAD and refuses one with a forged chunk', async () => {
    const { name, credential, s3 } = await bucketWithKey();
    const base = provider().endpoint(REGION).url;
    const upload = async (key: string, forge: boolean) => {
      const amzDate = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
      const chunks = [Buffer.alloc(70_000, 'x'), Buffer.from('tail')];
      const host = new URL(base).host;
      const decodedLength = chunks.reduce((n, c) => n + c.length, 0);
      const headers: Record<string, string> = {
        host,
        'x-amz-date': amzDate,
        'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(decodedLength),
      };
      const scope = { date: amzDate.slice(0, 8), region: REGION, service: 's3' };
      const signedHeaders = Object.keys(headers).sort();
      const authorization = (signature: string) =>
        `AWS4-HMAC-SHA256 Credential=${credential.accessKeyId}/${scopeString(scope)}, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`;
      const request = { method: 'PUT', rawPath: `/${name}/${key}`, rawQuery: '', headers: { ...headers, authorization: authorization('0') } };
      const auth = parseAuthentication(request);
      if (auth.kind !== 'signed') throw new Error('unsigned');
      const key4 = signingKey(credential.secretAccessKey, scope);
      let previous = sign(key4, stringToSign(auth, canonicalRequest(auth, request)));
      const seed = previous;
      const parts: Buffer[] = [];
      for (const chunk of [...chunks, Buffer.alloc(0)]) {
        const signature = sign(key4, ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scopeString(scope), previous, EMPTY_SHA256, sha256Hex(chunk)].join('\n'));
        parts.push(
          Buffer.from(`${chunk.length.toString(16)};chunk-signature=${forge && chunk.length === 4 ? 'f'.repeat(64) : signature}\r\n`),
          chunk,
          Buffer.from('\r\n'),
        );
        previous = signature;
      }
      return fetch(`${base}/${name}/${key}`, { method: 'PUT', headers: { ...headers, authorization: authorization(seed) }, body: Buffer.concat(parts) });
    };
    expect((await upload('signed.bin', false)).status).toBe(200);
    expect(await body(s3, name, 'signed.bin')).toBe(`${'x'.repeat(70_000)}tail`);
    const forged = await upload('forged.bin', true);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: name, Key: 'forged.bin' })))).toMatchObject({ status: 404 });
  });
});

describe('embedded object storage: usage and deletion', () => {
  it('counts storage from the objects, and requests and bytes sent from the gateway', async () => {
    const { name, s3 } = await bucketWithKey('write', { publicAccess: true });
    const since = new Date(Date.now() - 3600_000);
    await s3.send(new PutObjectCommand({ Bucket: name, Key: 'one', Body: 'x'.repeat(1000) }));
    await s3.send(new PutObjectCommand({ Bucket: name, Key: 'two', Body: 'y'.repeat(500) }));
    expect(await body(s3, name, 'one')).toHaveLength(1000);
    expect(await (await fetch(`${provider().endpoint(REGION).url}/${name}/two`)).text()).toHaveLength(500);
    const usage = await provider().usage(name, since);
    expect(usage).toMatchObject({ storageBytes: 1500, objects: 2, requests: 4, since: since.toISOString() });
    expect(usage.egressBytes).toBeGreaterThanOrEqual(1500);
    expect(usage.egressBytes).toBeLessThan(1500 + 4 * 1024);
    const later = await provider().usage(name, new Date(Date.now() + 3600_000));
    expect(later).toMatchObject({ storageBytes: 1500, requests: 0, egressBytes: 0 });
    await expect(provider().usage(bucketName(), since)).rejects.toBeInstanceOf(AppError);
  });

  it('deletes the objects and the bucket, forgets it for every key, and succeeds again for a bucket already gone', async () => {
    const { name, s3 } = await bucketWithKey('full');
    for (const key of ['a', 'b/c', 'd e']) await s3.send(new PutObjectCommand({ Bucket: name, Key: key, Body: key }));
    await provider().deleteBucket(name);
    await expect(provider().usage(name, new Date())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await s3Failure(s3.send(new ListObjectsV2Command({ Bucket: name })))).toEqual({ name: 'AccessDenied', status: 403 });
    // A new bucket of the same name starts empty and out of the old key's reach.
    await provider().createBucket(name, REGION, settings());
    expect(await s3Failure(s3.send(new ListObjectsV2Command({ Bucket: name })))).toEqual({ name: 'AccessDenied', status: 403 });
    const fresh = client(await provider().issueCredential('fresh', { buckets: [name], projectBuckets: [], access: 'read' }));
    expect((await fresh.send(new ListObjectsV2Command({ Bucket: name }))).KeyCount).toBe(0);
    expect((await provider().usage(name, new Date(0))).requests).toBe(1);
    await provider().deleteBucket(name);
    await provider().deleteBucket(name);
  });

  it('refuses a bucket name S3 would refuse', async () => {
    for (const bad of ['ab', 'Upper', 'a..b', '192.168.0.1', '-start', `${'a'.repeat(64)}`]) {
      await expect(provider().createBucket(bad, REGION, settings())).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });
});

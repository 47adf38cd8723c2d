import { CreateAccessKeyCommand, CreateUserCommand, IAMClient, IAMServiceException, ListUsersCommand } from '@aws-sdk/client-iam';
import { CreateBucketCommand, PutBucketPolicyCommand, PutObjectCommand, S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeS3, type FakeS3 } from './s3Server';

const started: FakeS3[] = [];
const clients: { destroy(): void }[] = [];

afterEach(async () => {
  clients.splice(0).forEach((client) => client.destroy());
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function start(): Promise<FakeS3> {
  const fake = await startFakeS3();
  started.push(fake);
  return fake;
}

function s3(fake: FakeS3, config: Partial<S3ClientConfig> = {}): S3Client {
  const client = new S3Client({
    endpoint: fake.url,
    region: fake.region,
    forcePathStyle: true,
    credentials: { accessKeyId: fake.admin.accessKeyId, secretAccessKey: fake.admin.secretAccessKey },
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    ...config,
  });
  clients.push(client);
  return client;
}

function iam(fake: FakeS3, credentials = { accessKeyId: fake.admin.accessKeyId, secretAccessKey: fake.admin.secretAccessKey }): IAMClient {
  const client = new IAMClient({ endpoint: fake.url, region: fake.region, credentials, maxAttempts: 1 });
  clients.push(client);
  return client;
}

/** Changes the request after the SDK signed it, as a man in the middle would. */
function tamperAfterSigning(client: S3Client, change: (request: { headers: Record<string, string>; body: unknown }) => void): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      change(args.request as { headers: Record<string, string>; body: unknown });
      return next(args);
    },
    // Last in the step that signs, so the signature is already made.
    { step: 'finalizeRequest', priority: 'low', name: 'tamper' },
  );
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect(err instanceof S3ServiceException || err instanceof IAMServiceException).toBe(true);
  return (err as Error).name;
}

describe('S3 fake: SigV4', () => {
  it('accepts a correctly signed request', async () => {
    const fake = await start();
    await s3(fake).send(new CreateBucketCommand({ Bucket: 'first-bucket' }));
    expect(fake.bucket('first-bucket')).toBeDefined();
  });

  it('refuses a signature made for another region', async () => {
    const fake = await start();
    expect(await refusal(s3(fake, { region: 'us-east-1' }).send(new CreateBucketCommand({ Bucket: 'bucket-b' })))).toBe('AuthorizationHeaderMalformed');
  });

  it('refuses a request whose clock is more than 15 minutes off', async () => {
    const fake = await start();
    expect(await refusal(s3(fake, { systemClockOffset: -20 * 60_000 }).send(new CreateBucketCommand({ Bucket: 'bucket-b' })))).toBe('RequestTimeTooSkewed');
  });

  it('refuses a signed header changed after signing', async () => {
    const fake = await start();
    await s3(fake).send(new CreateBucketCommand({ Bucket: 'bucket-b' }));
    const client = s3(fake);
    tamperAfterSigning(client, (request) => (request.headers['x-amz-meta-owner'] = 'mallory'));
    expect(await refusal(client.send(new PutObjectCommand({ Bucket: 'bucket-b', Key: 'k', Body: 'data', Metadata: { owner: 'alice' } })))).toBe(
      'SignatureDoesNotMatch',
    );
  });

  it('refuses a body that is not the one whose hash was signed', async () => {
    const fake = await start();
    await s3(fake).send(new CreateBucketCommand({ Bucket: 'bucket-b' }));
    const client = s3(fake);
    tamperAfterSigning(client, (request) => (request.body = 'evil'));
    expect(await refusal(client.send(new PutObjectCommand({ Bucket: 'bucket-b', Key: 'k', Body: 'good' })))).toBe('XAmzContentSHA256Mismatch');
  });

  it('refuses an unknown key and a Content-MD5 that does not match the body', async () => {
    const fake = await start();
    expect(
      await refusal(s3(fake, { credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' } }).send(new CreateBucketCommand({ Bucket: 'bucket-b' }))),
    ).toBe('InvalidAccessKeyId');
    await s3(fake).send(new CreateBucketCommand({ Bucket: 'bucket-b' }));
    const wrongMd5 = 'rL0Y20zC+Fzt72VPzMSk2A==';
    expect(await refusal(s3(fake).send(new PutObjectCommand({ Bucket: 'bucket-b', Key: 'k', Body: 'data', ContentMD5: wrongMd5 })))).toBe('BadDigest');
  });
});

describe('S3 fake: IAM and policies', () => {
  it('lets only the administrator call IAM', async () => {
    const fake = await start();
    await iam(fake).send(new CreateUserCommand({ UserName: 'u1' }));
    const { AccessKey } = await iam(fake).send(new CreateAccessKeyCommand({ UserName: 'u1' }));
    const user = iam(fake, { accessKeyId: AccessKey!.AccessKeyId!, secretAccessKey: AccessKey!.SecretAccessKey! });
    expect(await refusal(user.send(new ListUsersCommand({})))).toBe('AccessDenied');
    const anonymous = await fetch(fake.url, {
      method: 'POST',
      body: 'Action=ListUsers&Version=2010-05-08',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>MissingAuthenticationToken</Code>');
  });

  it('refuses a bucket policy naming another bucket or an unknown principal', async () => {
    const fake = await start();
    const client = s3(fake);
    await client.send(new CreateBucketCommand({ Bucket: 'bucket-b' }));
    const put = (statement: Record<string, unknown>) =>
      client.send(
        new PutBucketPolicyCommand({
          Bucket: 'bucket-b',
          Policy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:GetObject', ...statement }] }),
        }),
      );
    expect(await refusal(put({ Principal: '*', Resource: 'arn:aws:s3:::other/*' }))).toBe('MalformedPolicy');
    expect(await refusal(put({ Principal: { AWS: 'arn:aws:iam::000000000000:user/nobody' }, Resource: 'arn:aws:s3:::bucket-b/*' }))).toBe('MalformedPolicy');
    expect(await refusal(put({ Resource: 'arn:aws:s3:::bucket-b/*' }))).toBe('MalformedPolicy');
    await put({ Principal: '*', Resource: 'arn:aws:s3:::bucket-b/*' });
    expect(fake.bucket('bucket-b')?.policy).toEqual([{ Effect: 'Allow', Principal: ['*'], Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::bucket-b/*'] }]);
  });
});

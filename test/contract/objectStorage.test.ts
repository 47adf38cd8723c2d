import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import {
  getObjectStorageProvider,
  resetObjectStorageProviderForTests,
  stopEmbeddedObjectStorage,
  type BucketUsage,
} from '../../server/providers/objectStorage';
import { CDN_PROVISION_MS, enforceUsageLimits } from '../../server/domains/objectStorage/buckets';
import { objectStorageSuspension } from '../../server/domains/objectStorage/suspension';
import type { Bucket, BucketUsageView, StorageCredential } from '../../server/domains/objectStorage/schema';
import type { Preview, TierChangePreview } from '../../server/billing/preview';
import { ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { paidProject } from './serverFixtures';

const base = (projectId: string) => `/v1/projects/${projectId}/storage/object-storage`;

beforeAll(() => {
  process.env.OBJECT_STORAGE_ENDPOINT_PORT = '0';
  resetConfigForTests();
  resetObjectStorageProviderForTests();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await stopEmbeddedObjectStorage();
});

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

function createCall(user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  return api<{ deployed: true }>('POST', base(projectId), {
    cookie: user.cookie,
    body: { name: uniqueName('b'), provider: 'S3_PROVIDER', region: 'fra1', tier: 'STARTER', publicAccess: false, versioning: false, ...body },
  });
}

async function createBucket(user: TestUser, projectId: string, body: Record<string, unknown> = {}): Promise<Bucket> {
  const name = (body.name as string | undefined) ?? uniqueName('b');
  const res = await createCall(user, projectId, { ...body, name });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const list = await api<Bucket[]>('GET', base(projectId), { cookie: user.cookie });
  return list.data.find((b) => b.name === name)!;
}

async function issue(user: TestUser, projectId: string, body: Record<string, unknown>) {
  const res = await api<StorageCredential & { secretAccessKey: string }>('POST', `/v1/projects/${projectId}/iam`, {
    cookie: user.cookie,
    body: { name: uniqueName('key'), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.data;
}

function s3For(bucket: Bucket, credential: { accessKeyId: string; secretAccessKey: string }): S3Client {
  return new S3Client({
    endpoint: bucket.endpoint.url,
    region: bucket.endpoint.region,
    forcePathStyle: bucket.endpoint.pathStyle,
    maxAttempts: 1,
    credentials: credential,
  });
}

async function s3Refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3ServiceException) return err.name;
    throw err;
  }
  throw new Error('expected the endpoint to refuse');
}

async function put(s3: S3Client, bucket: string, key: string, body: string) {
  return s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

async function get(s3: S3Client, bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

/** The endpoint's usage of one bucket, made to read `figures` from now on. */
function fakeUsage(bucketName: string, figures: Partial<BucketUsage>) {
  const provider = getObjectStorageProvider();
  const real = provider.usage.bind(provider);
  return vi
    .spyOn(provider, 'usage')
    .mockImplementation(async (name, since) => (name === bucketName ? { ...(await real(name, since)), ...figures } : real(name, since)));
}

describe('buckets: buying', () => {
  it('previews each tier and charges exactly the preview, with a billing item at the tier price', async () => {
    const { owner, projectId } = await paidProject();
    const starter = await api<Preview>('GET', `${base(projectId)}/preview?provider=S3_PROVIDER`, { cookie: owner.cookie });
    const scale = await api<Preview>('GET', `${base(projectId)}/preview?tier=SCALE`, { cookie: owner.cookie });
    expect([starter.data.monthly, scale.data.monthly]).toEqual([500, 7500]);
    const bucket = await createBucket(owner, projectId, { tier: 'STARTER' });
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBe(starter.data.dueToday);
    const [item] = await queryRows<{ monthly: number; category: string; ended_at: string | null }>(
      sql`select monthly, category, ended_at from billing_items where resource_type = 'bucket' and resource_id = ${bucket.id}`,
    );
    expect(item).toEqual({ monthly: 500, category: 'objectStorage', ended_at: null });
    expect(bucket).toMatchObject({
      provider: 'S3_PROVIDER',
      region: 'fra1',
      tier: 'STARTER',
      status: 'active',
      cdnEnabled: false,
      cdnDomain: null,
      corsRules: [],
    });
    expect(bucket.endpoint).toMatchObject({ pathStyle: true, development: true, region: 'fra1', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  });

  it('refuses bad input with 422, a CDN without public access with 400, a taken name with 409 and no card with 402', async () => {
    const { owner, projectId } = await paidProject();
    for (const body of [
      { name: 'ab' },
      { name: 'Upper-Case' },
      { name: '-dash' },
      { name: 'xn--idn' },
      { provider: 'OTHER' },
      { region: 'mars1' },
      { tier: 'HUGE' },
      { corsRules: [{ allowedOrigins: [], allowedMethods: ['GET'] }] },
      { corsRules: [{ allowedOrigins: ['*'], allowedMethods: ['PATCH'] }] },
    ]) {
      expectError(await createCall(owner, projectId, body), 422, 'VALIDATION_ERROR');
    }
    expectError(await createCall(owner, projectId, { cdnEnabled: true, publicAccess: false }), 400, 'BAD_REQUEST');
    const taken = await createBucket(owner, projectId);
    const other = await paidProject();
    expectError(await createCall(other.owner, other.projectId, { name: taken.name }), 409, 'CONFLICT');
    const cardless = await createUser();
    const project = await createProject(cardless);
    expectError(await createCall(cardless, project.projectId), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    expect(await ledgerIntents(other.owner.id)).toEqual([]);
  });

  it('accepts both scope names for buckets and refuses keys of other resources', async () => {
    const { owner, projectId } = await paidProject();
    await createBucket(owner, projectId);
    for (const scope of ['object-storage:read', 'storage:read'] as const) {
      const key = await createApiKey(owner, projectId, [scope]);
      expect((await api<Bucket[]>('GET', base(projectId), { key: key.key })).data).toHaveLength(1);
    }
    const servers = await createApiKey(owner, projectId, ['servers:read']);
    expectError(await api('GET', base(projectId), { key: servers.key }), 403, 'FORBIDDEN');
    const readOnly = await createApiKey(owner, projectId, ['storage:read']);
    const body = { name: uniqueName('b'), provider: 'S3_PROVIDER', region: 'fra1', tier: 'STARTER', publicAccess: false, versioning: false };
    expectError(await api('POST', base(projectId), { key: readOnly.key, body }), 403, 'FORBIDDEN');
  });
});

describe('buckets on the endpoint', () => {
  it('lets an issued credential put and get on its bucket and nowhere else', async () => {
    const { owner, projectId } = await paidProject();
    const mine = await createBucket(owner, projectId);
    const other = await createBucket(owner, projectId);
    const credential = await issue(owner, projectId, { bucketIds: [mine.id], access: 'write' });
    expect(credential.buckets).toEqual([{ id: mine.id, name: mine.name }]);
    const s3 = s3For(mine, credential);
    await put(s3, mine.name, 'hello.txt', 'hello world');
    expect(await get(s3, mine.name, 'hello.txt')).toBe('hello world');
    expect(await s3Refusal(put(s3, other.name, 'hello.txt', 'nope'))).toBe('AccessDenied');
    const listed = await api<StorageCredential[]>('GET', `/v1/projects/${projectId}/iam`, { cookie: owner.cookie });
    expect(JSON.stringify(listed.body)).not.toContain(credential.secretAccessKey);
    const reaching = await api<StorageCredential[]>('GET', `${base(projectId)}/${other.id}/credentials`, { cookie: owner.cookie });
    expect(reaching.data.map((c) => c.id)).not.toContain(credential.id);
  });

  it('reaches buckets made after a project-wide credential, and follows a re-scope', async () => {
    const { owner, projectId } = await paidProject();
    const first = await createBucket(owner, projectId);
    const wide = await issue(owner, projectId, { bucketIds: null, access: 'write' });
    const later = await createBucket(owner, projectId);
    await put(s3For(later, wide), later.name, 'a.txt', 'a');
    const reaching = await api<StorageCredential[]>('GET', `${base(projectId)}/${later.id}/credentials`, { cookie: owner.cookie });
    expect(reaching.data.map((c) => c.id)).toContain(wide.id);
    const rescoped = await api<StorageCredential>('PATCH', `/v1/projects/${projectId}/iam/${wide.id}`, {
      cookie: owner.cookie,
      body: { bucketIds: [first.id], access: 'read' },
    });
    expect(rescoped.data).toMatchObject({ buckets: [{ id: first.id, name: first.name }], access: 'read' });
    expect(await s3Refusal(put(s3For(later, wide), later.name, 'b.txt', 'b'))).toBe('AccessDenied');
    expect(await s3Refusal(put(s3For(first, wide), first.name, 'b.txt', 'b'))).toBe('AccessDenied');
    expect((await api('DELETE', `/v1/projects/${projectId}/iam/${wide.id}`, { cookie: owner.cookie })).status).toBe(200);
    expect(await s3Refusal(get(s3For(first, wide), first.name, 'a.txt'))).toMatch(/InvalidAccessKeyId|AccessDenied/);
  });

  it('changes only what a re-scope names: leaving out the buckets never widens a credential to every bucket', async () => {
    const { owner, projectId } = await paidProject();
    const first = await createBucket(owner, projectId);
    const second = await createBucket(owner, projectId);
    const narrow = await issue(owner, projectId, { bucketIds: [first.id], access: 'write' });
    const patch = (body: unknown) => api<StorageCredential>('PATCH', `/v1/projects/${projectId}/iam/${narrow.id}`, { cookie: owner.cookie, body });

    const readOnly = await patch({ access: 'read' });
    expect(readOnly.data).toMatchObject({ buckets: [{ id: first.id }], access: 'read' });
    expect(await s3Refusal(get(s3For(second, narrow), second.name, 'x.txt'))).toBe('AccessDenied');
    expect(await s3Refusal(put(s3For(first, narrow), first.name, 'x.txt', 'x'))).toBe('AccessDenied');

    const moved = await patch({ bucketIds: [second.id] });
    expect(moved.data).toMatchObject({ buckets: [{ id: second.id }], access: 'read' });

    expectError(await patch({}), 422, 'VALIDATION_ERROR');
    const wide = await patch({ bucketIds: null });
    expect(wide.data).toMatchObject({ buckets: null, access: 'read' });

    const gone = await issue(owner, projectId, { bucketIds: [first.id], access: 'read' });
    expect((await api('DELETE', `${base(projectId)}/${first.id}`, { cookie: owner.cookie })).status).toBe(200);
    const orphan = await api<StorageCredential>('PATCH', `/v1/projects/${projectId}/iam/${gone.id}`, { cookie: owner.cookie, body: { access: 'write' } });
    expectError(orphan, 422, 'VALIDATION_ERROR');
    expect(orphan.body).toMatchObject({ error: { fields: { bucketIds: expect.stringContaining('deleted') } } });
  });

  it('serves the legacy iam-users family: bucket-bound keys that cannot be re-scoped', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const created = await api<{ iamUserName: string; accessKeyId: string; secretAccessKey: string }>('POST', `${base(projectId)}/${bucket.id}/iam-users`, {
      cookie: owner.cookie,
    });
    expect(created.status).toBe(200);
    await put(s3For(bucket, created.data), bucket.name, 'legacy.txt', 'x');
    const list = await api<Array<{ iamUserName: string }>>('GET', `${base(projectId)}/${bucket.id}/iam-users`, { cookie: owner.cookie });
    expect(list.data.map((u) => u.iamUserName)).toEqual([created.data.iamUserName]);
    const all = await api<StorageCredential[]>('GET', `/v1/projects/${projectId}/iam`, { cookie: owner.cookie });
    const legacy = all.data.find((c) => c.accessKeyId === created.data.accessKeyId)!;
    expectError(
      await api('PATCH', `/v1/projects/${projectId}/iam/${legacy.id}`, { cookie: owner.cookie, body: { bucketIds: null, access: 'read' } }),
      409,
      'CONFLICT',
    );
    expect((await api('DELETE', `${base(projectId)}/${bucket.id}/iam-users/${created.data.iamUserName}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await api<unknown[]>('GET', `${base(projectId)}/${bucket.id}/iam-users`, { cookie: owner.cookie })).data).toEqual([]);
  });

  it('applies CORS rules on the endpoint: preflights answered as configured, an empty list clears them', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const preflight = (origin: string) =>
      fetch(`${bucket.endpoint.url}/${bucket.name}/file.txt`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT' } });
    const rules = [{ allowedOrigins: ['https://app.example.com'], allowedMethods: ['GET', 'PUT'], allowedHeaders: ['*'], maxAgeSeconds: 600 }];
    const saved = await api<Bucket>('PATCH', `${base(projectId)}/${bucket.id}/cors`, { cookie: owner.cookie, body: { corsRules: rules } });
    expect(saved.data.corsRules).toEqual(rules);
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-max-age')).toBe('600');
    expect((await preflight('https://evil.example')).status).toBe(403);
    expectError(
      await api('PATCH', `${base(projectId)}/${bucket.id}/cors`, {
        cookie: owner.cookie,
        body: { corsRules: [{ allowedOrigins: ['*'], allowedMethods: [] }] },
      }),
      422,
      'VALIDATION_ERROR',
    );
    await api('PATCH', `${base(projectId)}/${bucket.id}/cors`, { cookie: owner.cookie, body: { corsRules: [] } });
    expect((await preflight('https://app.example.com')).status).toBe(403);
  });

  it('turns the CDN on only for a public bucket, with its domain once provisioned', async () => {
    const { owner, projectId } = await paidProject();
    const closed = await createBucket(owner, projectId);
    expectError(await api('PATCH', `${base(projectId)}/${closed.id}/cdn`, { cookie: owner.cookie, body: { cdnEnabled: true } }), 400, 'BAD_REQUEST');
    const open = await createBucket(owner, projectId, { publicAccess: true });
    const enabled = await api<{ cdnEnabled: boolean; cdnDomain: string | null }>('PATCH', `${base(projectId)}/${open.id}/cdn`, {
      cookie: owner.cookie,
      body: { cdnEnabled: true },
    });
    expect(enabled.data).toEqual({ cdnEnabled: true, cdnDomain: null });
    await queryRows(sql`update buckets set cdn_requested_at = now() - ${`${CDN_PROVISION_MS + 1000} milliseconds`}::interval where id = ${open.id}`);
    const listed = (await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data.find((b) => b.id === open.id)!;
    expect(listed.cdnDomain).toBe(`${open.name}.cdn.simulator.invalid`);
    const disabled = await api<{ cdnEnabled: boolean; cdnDomain: string | null }>('PATCH', `${base(projectId)}/${open.id}/cdn`, {
      cookie: owner.cookie,
      body: { cdnEnabled: false },
    });
    expect(disabled.data).toEqual({ cdnEnabled: false, cdnDomain: null });
  });

  it('counts an upload in the usage, against the tier allowances', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const credential = await issue(owner, projectId, { bucketIds: [bucket.id], access: 'write' });
    await put(s3For(bucket, credential), bucket.name, 'data.bin', 'x'.repeat(4096));
    const usage = await api<BucketUsageView>('GET', `${base(projectId)}/${bucket.id}/usage`, { cookie: owner.cookie });
    expect(usage.data).toMatchObject({
      storageBytes: 4096,
      objects: 1,
      allowances: { storageBytes: 250_000_000_000, egressBytes: 1_000_000_000_000, requests: 5_000_000 },
    });
    expect(usage.data.cdn).toMatchObject({ perGb: 12, perMillionRequests: 150 });
  });

  it('deletes the bucket with its objects and ends its billing', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const credential = await issue(owner, projectId, { bucketIds: [bucket.id], access: 'write' });
    await put(s3For(bucket, credential), bucket.name, 'gone.txt', 'x');
    expect((await api('DELETE', `${base(projectId)}/${bucket.id}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data).toEqual([]);
    const [item] = await queryRows<{ ended_at: string | null }>(sql`select ended_at from billing_items where resource_id = ${bucket.id}`);
    expect(item!.ended_at).not.toBeNull();
    expect(await s3Refusal(get(s3For(bucket, credential), bucket.name, 'gone.txt'))).toMatch(/AccessDenied|NoSuchBucket/);
  });
});

describe('tiers, usage limits and suspension', () => {
  it('upgrades with the previewed charge; a declined card leaves the tier unchanged with 402', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const preview = await api<TierChangePreview>('GET', `${base(projectId)}/${bucket.id}/plan-preview?tier=GROWTH`, { cookie: owner.cookie });
    expect(preview.data).toMatchObject({ direction: 'upgrade', currentMonthly: 500, monthly: 2000, creditBack: 0 });
    expect(preview.data.dueToday).toBeGreaterThan(0);
    await queryRows(
      sql`update ledger_payment_methods set behaviour = 'attach_then_decline' where customer_id = (select payment_customer_id from users where id = ${owner.id})`,
    );
    expectError(await api('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'GROWTH' } }), 402, 'CARD_DECLINED');
    expect((await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data[0]!.tier).toBe('STARTER');
    await queryRows(
      sql`update ledger_payment_methods set behaviour = 'succeed' where customer_id = (select payment_customer_id from users where id = ${owner.id})`,
    );
    const upgraded = await api<Bucket>('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'GROWTH' } });
    expect(upgraded.data.tier).toBe('GROWTH');
    const intents = await ledgerIntents(owner.id);
    expect(intents.at(-1)).toMatchObject({ amount: preview.data.dueToday, status: 'succeeded' });
  });

  it('downgrades only when the usage fits the target tier, crediting the difference back', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId, { tier: 'GROWTH' });
    const usage = fakeUsage(bucket.name, { storageBytes: 300_000_000_000 });
    expectError(await api('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'STARTER' } }), 409, 'CONFLICT');
    usage.mockRestore();
    const preview = await api<TierChangePreview>('GET', `${base(projectId)}/${bucket.id}/plan-preview?tier=STARTER`, { cookie: owner.cookie });
    expect(preview.data).toMatchObject({ direction: 'downgrade', dueToday: 0, monthly: 500, currentMonthly: 2000 });
    const down = await api<Bucket>('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'STARTER' } });
    expect(down.data.tier).toBe('STARTER');
    const credits = await queryRows<{ amount: number }>(sql`select amount from credit_entries where project_id = ${projectId} and amount > 0`);
    expect(credits.map((c) => c.amount)).toEqual([preview.data.creditBack]);
    expectError(await api('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'STARTER' } }), 409, 'CONFLICT');
  });

  it('suspends a bucket more than 10% over an allowance, and an upgrade reopens it', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const credential = await issue(owner, projectId, { bucketIds: [bucket.id], access: 'write' });
    const s3 = s3For(bucket, credential);
    await put(s3, bucket.name, 'kept.txt', 'kept');
    const usage = fakeUsage(bucket.name, { storageBytes: 270_000_000_000 });
    await enforceUsageLimits();
    expect((await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data[0]!.status).toBe('active');
    usage.mockImplementation(async () => ({
      storageBytes: 276_000_000_000,
      objects: 1,
      egressBytes: 0,
      requests: 0,
      since: new Date().toISOString(),
      measuredAt: new Date().toISOString(),
    }));
    expect(await enforceUsageLimits()).toBeGreaterThanOrEqual(1);
    expect((await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data[0]!.status).toBe('suspended');
    expect(await s3Refusal(get(s3, bucket.name, 'kept.txt'))).toBe('AccessDenied');
    const upgraded = await api<Bucket>('PATCH', `${base(projectId)}/${bucket.id}/tier`, { cookie: owner.cookie, body: { tier: 'GROWTH' } });
    expect(upgraded.data.status).toBe('active');
    usage.mockRestore();
    expect(await get(s3, bucket.name, 'kept.txt')).toBe('kept');
  });

  it('closes the buckets of a project suspended for an unpaid invoice and opens them once paid', async () => {
    const { owner, projectId } = await paidProject();
    const bucket = await createBucket(owner, projectId);
    const credential = await issue(owner, projectId, { bucketIds: [bucket.id], access: 'write' });
    const s3 = s3For(bucket, credential);
    await put(s3, bucket.name, 'kept.txt', 'kept');
    await objectStorageSuspension.suspend(projectId);
    expect(await s3Refusal(get(s3, bucket.name, 'kept.txt'))).toBe('AccessDenied');
    expect((await api<Bucket[]>('GET', base(projectId), { cookie: owner.cookie })).data[0]!.status).toBe('suspended');
    expect(await objectStorageSuspension.projectsWithSuspendedResources()).toContain(projectId);
    await objectStorageSuspension.resume(projectId);
    expect(await get(s3, bucket.name, 'kept.txt')).toBe('kept');
  });

  it('keeps a project holding a bucket from being deleted', async () => {
    const { owner, projectId } = await paidProject();
    await createBucket(owner, projectId);
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 bucket');
  });
});

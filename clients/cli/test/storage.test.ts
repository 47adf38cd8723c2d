import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Schema } from '@cloudpanel/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWorld, type World } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor } from './cli.ts';

let world: World;
beforeAll(async () => {
  world = await newWorld('cli-storage');
});

const uniqueName = (label: string) => `${label}-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
const buckets = () => world.client.get('/projects/{projectId}/storage/object-storage', { params: { path: { projectId: world.projectId } } });

/** `export NAME=value` lines, as a shell's eval would read them; comments are skipped. */
function exportsIn(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('cloud storage', () => {
  it('buys a bucket, issues a credential an S3 client uploads and reads with, sets CORS, changes the tier and deletes it', async () => {
    const env = envFor(world);
    const name = uniqueName('cli');

    const preview = await cloud(['storage', 'preview', '--tier', 'growth', '--json'], { env });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.json()).toMatchObject({ monthly: 2000, dueToday: expect.any(Number), nextBillingDate: expect.any(String) });
    const badRegion = await cloud(['storage', 'create', name, '--region', 'mars1'], { env });
    expect(badRegion.code).toBe(EXIT.usage);
    expect(badRegion.stderr).toContain('The region is one of fra1, nyc1, sgp1');

    const created = await cloud(['storage', 'create', name, '--region', 'fra1', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const bucket = created.json<Schema<'Bucket'>>();
    expect(bucket).toMatchObject({ name, tier: 'STARTER', status: 'active', region: 'fra1', publicAccess: false, cdnEnabled: false, corsRules: [] });
    expect(bucket.endpoint.url).toMatch(/^https?:\/\//);
    expect((await buckets()).map((b) => b.id)).toEqual([bucket.id]);

    const list = await cloud(['storage', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+TIER\s+STATUS\s+REGION\s+PUBLIC\s+CDN\s+CREATED\n/);
    expect(list.stdout).toContain(name);
    const got = await cloud(['storage', 'get', name], { env });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^S3 endpoint: +${bucket.endpoint.url.replace(/[.]/g, '\\.')}`, 'm'));
    expect(got.stdout).toMatch(/^Signing region: +fra1$/m);

    // A credential whose secret goes to a file of the user's only, never to the terminal.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cloud-storage-'));
    const envFile = path.join(dir, 'deploy.env');
    const issued = await cloud(['storage', 'credentials', 'create', 'deploy', '--bucket', name, '--output', envFile], { env });
    expect(issued.code, issued.stderr).toBe(0);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const keys = exportsIn(readFileSync(envFile, 'utf8'));
    expect(keys.AWS_SECRET_ACCESS_KEY).toMatch(/^\S{20,}$/);
    expect(issued.stdout).toContain(keys.AWS_ACCESS_KEY_ID);
    expect(issued.stdout).not.toContain(keys.AWS_SECRET_ACCESS_KEY);
    expect(issued.stderr).toContain(`The secret access key is in ${envFile}; it is not shown again.`);
    // The file exists now: the command stops before issuing a key whose secret it could not keep.
    const clobber = await cloud(['storage', 'credentials', 'create', 'again', '--output', envFile], { env });
    expect(clobber.code).toBe(EXIT.failure);
    expect(exportsIn(readFileSync(envFile, 'utf8'))).toEqual(keys);

    const s3env = await cloud(['storage', 's3-env', name, '--credential', 'deploy'], { env });
    expect(s3env.code, s3env.stderr).toBe(0);
    expect(s3env.stdout).not.toContain(keys.AWS_SECRET_ACCESS_KEY);
    const exported = exportsIn(s3env.stdout);
    expect(exported).toEqual({
      AWS_ENDPOINT_URL: bucket.endpoint.url,
      AWS_REGION: bucket.endpoint.region,
      AWS_DEFAULT_REGION: bucket.endpoint.region,
      AWS_ACCESS_KEY_ID: keys.AWS_ACCESS_KEY_ID,
    });
    expect(s3env.stdout).toContain('# export AWS_SECRET_ACCESS_KEY=<the secret shown once when deploy was created>');

    const s3 = (secretAccessKey: string) =>
      new S3Client({
        endpoint: exported.AWS_ENDPOINT_URL,
        region: exported.AWS_REGION,
        forcePathStyle: bucket.endpoint.pathStyle,
        credentials: { accessKeyId: exported.AWS_ACCESS_KEY_ID!, secretAccessKey },
      });
    await s3(keys.AWS_SECRET_ACCESS_KEY!).send(new PutObjectCommand({ Bucket: name, Key: 'hello.txt', Body: 'uploaded with a key from cloud storage' }));
    const object = await s3(keys.AWS_SECRET_ACCESS_KEY!).send(new GetObjectCommand({ Bucket: name, Key: 'hello.txt' }));
    expect(await object.Body!.transformToString()).toBe('uploaded with a key from cloud storage');
    await expect(s3('x'.repeat(40)).send(new GetObjectCommand({ Bucket: name, Key: 'hello.txt' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });

    // Without --output the secret is printed this once, in JSON for scripts; lists never show it.
    const reader = await cloud(['storage', 'credentials', 'create', 'reader', '-b', bucket.id, '-a', 'read', '--json'], { env });
    expect(reader.code, reader.stderr).toBe(0);
    const readerKey = reader.json<Schema<'IssuedStorageCredential'>>();
    expect(readerKey).toMatchObject({
      name: 'reader',
      access: 'read',
      legacy: false,
      buckets: [{ id: bucket.id, name }],
      secretAccessKey: expect.stringMatching(/^\S{20,}$/),
    });
    const human = await cloud(['storage', 'credentials', 'create', 'viewer', '-b', name, '-a', 'read'], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('Save the secret access key now: it is not shown again.');
    expect(human.stdout).toMatch(/^Secret access key: +\S{20,}$/m);
    const listed = await cloud(['storage', 'credentials', 'list', '--bucket', name], { env });
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+ACCESS KEY ID\s+ACCESS\s+BUCKETS\s+LEGACY\s+CREATED\n/);
    for (const credential of ['deploy', 'reader', 'viewer']) expect(listed.stdout).toContain(credential);
    expect(listed.stdout).not.toContain(readerKey.secretAccessKey);
    expect(listed.stdout).not.toContain(keys.AWS_SECRET_ACCESS_KEY);

    // Re-scoping the access alone keeps the buckets (the API would otherwise widen it to every bucket).
    const rescoped = await cloud(['storage', 'credentials', 'rescope', 'reader', '--access', 'write', '--json'], { env });
    expect(rescoped.code, rescoped.stderr).toBe(0);
    const stored = (await world.client.get('/projects/{projectId}/iam', { params: { path: { projectId: world.projectId } } })).find((c) => c.name === 'reader');
    expect(stored).toMatchObject({ access: 'write', buckets: [{ id: bucket.id }] });
    expect((await cloud(['storage', 'credentials', 'delete', 'reader'], { env })).code).toBe(EXIT.usage);
    const revoked = await cloud(['storage', 'credentials', 'revoke', 'reader', '--yes'], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await world.client.get('/projects/{projectId}/iam', { params: { path: { projectId: world.projectId } } })).map((c) => c.name).sort()).toEqual([
      'deploy',
      'viewer',
    ]);

    const rules = [{ allowedOrigins: ['https://example.com'], allowedMethods: ['GET', 'PUT'], maxAgeSeconds: 600 }];
    const corsFile = path.join(dir, 'cors.json');
    writeFileSync(corsFile, JSON.stringify(rules));
    const setCors = await cloud(['storage', 'cors', 'set', name, corsFile], { env });
    expect(setCors.code, setCors.stderr).toBe(0);
    expect(setCors.stdout).toBe(`${name} has 1 CORS rule\n`);
    expect((await buckets())[0]!.corsRules).toEqual(rules);
    const corsJson = await cloud(['storage', 'cors', 'get', name, '--json'], { env });
    expect(corsJson.json()).toEqual(rules);
    const corsTable = await cloud(['storage', 'cors', 'get', name], { env });
    expect(corsTable.stdout).toMatch(/^ORIGINS\s+METHODS\s+HEADERS\s+EXPOSE\s+MAX AGE\nhttps:\/\/example\.com\s+GET,PUT\s+-\s+-\s+600 s\n$/);
    const noOrigin = await cloud(['storage', 'cors', 'set', name, '-'], { env, stdin: '[{"allowedOrigins":[],"allowedMethods":["GET"]}]' });
    expect(noOrigin.code).toBe(EXIT.rejected);
    expect(noOrigin.stderr).toMatch(/^Error: VALIDATION_ERROR: /);
    expect((await cloud(['storage', 'cors', 'set', name, '-'], { env, stdin: 'origins: *' })).code).toBe(EXIT.usage);
    const cleared = await cloud(['storage', 'cors', 'clear', name, '--json'], { env });
    expect(cleared.json()).toMatchObject({ corsRules: [] });

    const privateCdn = await cloud(['storage', 'cdn', 'enable', name], { env });
    expect(privateCdn.code).toBe(EXIT.rejected);
    expect(privateCdn.stderr).toMatch(/^Error: BAD_REQUEST: /);

    const usage = await cloud(['storage', 'usage', name, '--json'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.json()).toMatchObject({ allowances: { storageBytes: 250e9, egressBytes: 1e12, requests: 5e6 }, cdn: { enabled: false } });
    expect((await cloud(['storage', 'usage', name], { env })).stdout).toMatch(/^Storage: +.* of 250 GB$/m);

    const tierPreview = await cloud(['storage', 'change-tier', name, 'growth', '--preview', '--json'], { env });
    expect(tierPreview.code, tierPreview.stderr).toBe(0);
    expect(tierPreview.json()).toMatchObject({ direction: 'upgrade', currentMonthly: 500, monthly: 2000 });
    expect((await buckets())[0]!.tier).toBe('STARTER');
    const upgraded = await cloud(['storage', 'change-tier', name, 'GROWTH'], { env });
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.stderr).toMatch(/^Charged \$\d+\.\d\d today, then \$20\.00 a month$/m);
    expect(upgraded.stdout).toMatch(/^Tier: +GROWTH$/m);
    expect((await buckets())[0]!.tier).toBe('GROWTH');

    expect((await cloud(['storage', 'delete', name], { env })).code).toBe(EXIT.usage);
    const deleted = await cloud(['storage', 'delete', name, '--yes', '--json'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual({ id: bucket.id, deleted: true });
    const gone = await cloud(['storage', 'get', name], { env });
    expect(gone.code).toBe(EXIT.notFound);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
    expect(await buckets()).toEqual([]);
  });

  it('turns the CDN of a public bucket on and off, and refuses a key without storage scopes', async () => {
    const env = envFor(world);
    const name = uniqueName('cdn');
    const created = await cloud(['storage', 'create', name, '--region', 'nyc1', '--public-access', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ publicAccess: true, cdnEnabled: false });

    const enabled = await cloud(['storage', 'cdn', 'enable', name, '--json'], { env });
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.json()).toEqual({ cdnEnabled: true, cdnDomain: null });
    // The domain takes about 30 s to arrive, so a one-second wait ends as a timeout.
    const waited = await cloud(['storage', 'cdn', 'enable', name, '--wait', '--timeout', '1'], { env });
    expect(waited.code).toBe(EXIT.waitFailed);
    expect(waited.stderr).toContain(`Waiting for the CDN domain of ${name}…`);
    expect(waited.stderr).toMatch(/^Error: WAIT_TIMEOUT: /m);
    expect((await buckets()).find((b) => b.name === name)).toMatchObject({ cdnEnabled: true });

    const disabled = await cloud(['storage', 'cdn', 'disable', name], { env });
    expect(disabled.stdout).toBe(`CDN off for ${name}\n`);
    expect((await buckets()).find((b) => b.name === name)).toMatchObject({ cdnEnabled: false, cdnDomain: null });

    const serversOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['servers:read']) };
    const refused = await cloud(['storage', 'list'], { env: serversOnly });
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.stderr).toMatch(/^Error: FORBIDDEN: /);
    const readOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['object-storage:read']) };
    expect((await cloud(['storage', 'list', '--json'], { env: readOnly })).json()).toEqual([expect.objectContaining({ name })]);
    expect((await cloud(['storage', 'delete', name, '--yes'], { env: readOnly })).code).toBe(EXIT.auth);

    expect((await cloud(['storage', 'delete', name, '--yes'], { env })).code).toBe(0);
  });
});

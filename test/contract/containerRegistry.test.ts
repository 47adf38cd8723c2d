import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Preview } from '../../server/billing/preview';
import { collectGarbage, applyRetention } from '../../server/domains/containerRegistry/images';
import { liveRepository } from '../../server/domains/containerRegistry/repositories';
import type { Image, Registry, Repository, RepositoryCredentials } from '../../server/domains/containerRegistry/schema';
import { simulatedScanner } from '../../server/domains/containerRegistry/scanner';
import { containerRegistrySuspension } from '../../server/domains/containerRegistry/suspension';
import { startedRegistry } from '../../server/domains/containerRegistry/registry';
import type { Scope } from '../../server/platform/auth/scopes';
import { AppError } from '../../server/platform/errors';
import { getRegistryProvider } from '../../server/providers/registry';
import { ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { pullImage, pushImage } from '../registryPush';
import { paidProject } from './serverFixtures';

const base = (projectId: string) => `/v1/projects/${projectId}/storage/container-registry`;
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
let registryUrl: string;

beforeAll(async () => {
  registryUrl = `http://${(await startedRegistry()).host()}`;
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await getRegistryProvider().stop();
});

function createCall(user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  return api<{ deployed: true; id: string }>('POST', base(projectId), { cookie: user.cookie, body: { name: uniqueName('reg'), region: 'fra1', ...body } });
}

async function createRegistry(user: TestUser, projectId: string, body: Record<string, unknown> = {}): Promise<Registry> {
  const res = await createCall(user, projectId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (await api<Registry>('GET', `${base(projectId)}/${res.data.id}`, { cookie: user.cookie })).data;
}

async function createRepository(user: TestUser, projectId: string, registryId: string, body: Record<string, unknown> = {}): Promise<Repository> {
  const res = await api<Repository>('POST', `${base(projectId)}/${registryId}/repositories`, {
    cookie: user.cookie,
    body: { name: uniqueName('app'), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.data;
}

/** A registry with one repository, and a key that may push to it. */
async function pushWorld(repositoryBody: Record<string, unknown> = {}, registryBody: Record<string, unknown> = {}) {
  const { owner, projectId } = await paidProject();
  const registry = await createRegistry(owner, projectId, registryBody);
  const repository = await createRepository(owner, projectId, registry.id, repositoryBody);
  const writer = await createApiKey(owner, projectId, ['registry:read', 'registry:write']);
  const name = `${registry.name}/${repository.name}`;
  return { owner, projectId, registry, repository, writer, name };
}

function basic(key: string): string {
  return `Basic ${Buffer.from(`ci:${key}`).toString('base64')}`;
}

/** A token from our realm, as `docker` gets one: Basic auth with the key as password, or none. */
async function token(scope: string, key: string | null, service = getRegistryProvider().service): Promise<string> {
  const res = await tokenCall(scope, key, service);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { token: string }).token;
}

async function tokenCall(scope: string, key: string | null, service = getRegistryProvider().service) {
  const query = new URLSearchParams({ service, scope });
  const res = await api('GET', `/v1/registry/token?${query.toString()}`, { headers: key ? { authorization: basic(key) } : {} });
  return { status: res.status, text: JSON.stringify(res.body), body: res.body as unknown as Record<string, unknown> };
}

function grantedActions(jwt: string): string[] {
  const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { access: { actions: string[] }[] };
  return claims.access.flatMap((grant) => grant.actions);
}

async function images(user: TestUser, projectId: string, registryId: string, repositoryId: string): Promise<Image[]> {
  const res = await api<Image[]>('GET', `${base(projectId)}/${registryId}/repositories/${repositoryId}/images`, { cookie: user.cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.data;
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readRepository(user: TestUser, projectId: string, registryId: string, repositoryId: string): Promise<Repository> {
  return (await api<Repository>('GET', `${base(projectId)}/${registryId}/repositories/${repositoryId}`, { cookie: user.cookie })).data;
}

describe('registries: buying and settings', () => {
  it('previews the USD 1 fee and charges exactly the preview, with a billing item; regions are listed', async () => {
    const { owner, projectId } = await paidProject();
    const preview = await api<Preview>('GET', `${base(projectId)}/preview`, { cookie: owner.cookie });
    expect(preview.data.monthly).toBe(100);
    const regions = await api<{ value: string; label: string }[]>('GET', `${base(projectId)}/regions`, { cookie: owner.cookie });
    expect(regions.data).toContainEqual({ value: 'fra1', label: 'Frankfurt' });
    const registry = await createRegistry(owner, projectId);
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBe(preview.data.dueToday);
    const [item] = await queryRows<{ monthly: number; category: string; ended_at: string | null }>(
      sql`select monthly, category, ended_at from billing_items where resource_type = 'container_registry' and resource_id = ${registry.id}`,
    );
    expect(item).toEqual({ monthly: 100, category: 'containerRegistry', ended_at: null });
    expect(registry).toMatchObject({
      region: 'fra1',
      status: 'active',
      imageTagMutability: 'MUTABLE',
      scanOnPush: true,
      encryptionType: 'AES256',
      kmsKeyArn: null,
      lifecycleEnabled: true,
      lifecycleKeepLastN: 10,
      lifecycleUntaggedAfterDays: 7,
      repositories: [],
      endpoint: getRegistryProvider().host(),
    });
    const listed = await api<Registry[]>('GET', base(projectId), { cookie: owner.cookie });
    expect(listed.data.map((r) => r.id)).toEqual([registry.id]);
    const counts = await api<{ _count: Record<string, number> }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expect(counts.data._count.containerRegistries).toBe(1);
  });

  it('refuses bad input with 422, KMS without a key, a taken name with 409 and no card with 402', async () => {
    const { owner, projectId } = await paidProject();
    for (const body of [
      { name: 'ab' },
      { name: 'Upper' },
      { name: 'trailing-' },
      { region: 'mars1' },
      { imageTagMutability: 'SOMETIMES' },
      { encryptionType: 'KMS' },
      { encryptionType: 'ROT13' },
      { lifecycleKeepLastN: 0 },
      { lifecycleKeepLastN: 1001 },
      { lifecycleUntaggedAfterDays: 0 },
      { lifecycleUntaggedAfterDays: 366 },
    ]) {
      expectError(await createCall(owner, projectId, body), 422, 'VALIDATION_ERROR');
    }
    const kms = await createRegistry(owner, projectId, { encryptionType: 'KMS', kmsKeyArn: 'arn:aws:kms:eu-central-1:123456789012:key/1234abcd-12ab' });
    expect(kms).toMatchObject({ encryptionType: 'KMS', kmsKeyArn: 'arn:aws:kms:eu-central-1:123456789012:key/1234abcd-12ab' });
    const other = await paidProject();
    expectError(await createCall(other.owner, other.projectId, { name: kms.name }), 409, 'CONFLICT');
    const cardless = await createUser();
    const project = await createProject(cardless);
    expectError(await createCall(cardless, project.projectId), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    expect(await ledgerIntents(other.owner.id)).toEqual([]);
  });

  it('re-applies tag mutability and scanning to every repository, encryption only to new ones; name and region are fixed', async () => {
    const { owner, projectId } = await paidProject();
    const registry = await createRegistry(owner, projectId);
    const before = await createRepository(owner, projectId, registry.id);
    const patch = (body: Record<string, unknown>) => api<Registry>('PATCH', `${base(projectId)}/${registry.id}`, { cookie: owner.cookie, body });
    expectError(await patch({}), 400, 'BAD_REQUEST');
    expectError(await patch({ region: 'nyc3' }), 422, 'VALIDATION_ERROR');
    expectError(await patch({ encryptionType: 'KMS' }), 422, 'VALIDATION_ERROR');
    const updated = await patch({
      imageTagMutability: 'IMMUTABLE',
      scanOnPush: false,
      encryptionType: 'KMS',
      kmsKeyArn: 'arn:aws:kms:eu-central-1:123456789012:key/abc',
      lifecycleKeepLastN: 3,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.data.repositories).toEqual([
      expect.objectContaining({ id: before.id, imageTagMutability: 'IMMUTABLE', scanOnPush: false, encryptionType: 'AES256' }),
    ]);
    const after = await createRepository(owner, projectId, registry.id);
    expect(after).toMatchObject({ imageTagMutability: 'IMMUTABLE', scanOnPush: false, encryptionType: 'KMS', gcKeepLastN: 3 });
    expect(updated.data.region).toBe('fra1');
  });

  it('keeps a project holding a registry from being deleted', async () => {
    const { owner, projectId } = await paidProject();
    await createRegistry(owner, projectId);
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 container registry');
  });
});

describe('repositories', () => {
  it('needs a cap for PUBLIC within its range, clears it for PRIVATE, and refuses a second name', async () => {
    const { owner, projectId } = await paidProject();
    const registry = await createRegistry(owner, projectId);
    const post = (body: Record<string, unknown>) => api<Repository>('POST', `${base(projectId)}/${registry.id}/repositories`, { cookie: owner.cookie, body });
    expectError(await post({ name: 'web', visibility: 'PUBLIC' }), 422, 'VALIDATION_ERROR');
    expectError(await post({ name: 'web', visibility: 'PUBLIC', publicEgressCapGb: 0 }), 422, 'VALIDATION_ERROR');
    expectError(await post({ name: 'web', visibility: 'PUBLIC', publicEgressCapGb: 10_001 }), 422, 'VALIDATION_ERROR');
    for (const name of ['Web', 'a..b', '-web', 'web-', 'a/b', '']) expectError(await post({ name }), 422, 'VALIDATION_ERROR');
    const web = await post({ name: 'web', visibility: 'PUBLIC', publicEgressCapGb: 50 });
    expect(web.data).toMatchObject({ name: 'web', visibility: 'PUBLIC', publicEgressCapGb: 50, publicEgressUsedGb: 0, publicEgressCapHitAt: null });
    expect(web.data.uri).toBe(`${getRegistryProvider().host()}/${registry.name}/web`);
    expectError(await post({ name: 'web' }), 409, 'CONFLICT');

    const patch = (body: Record<string, unknown>) =>
      api<Repository>('PATCH', `${base(projectId)}/${registry.id}/repositories/${web.data.id}`, { cookie: owner.cookie, body });
    expectError(await patch({}), 400, 'BAD_REQUEST');
    expectError(await patch({ gcKeepLastN: 0 }), 422, 'VALIDATION_ERROR');
    expectError(await patch({ gcUntaggedAfterDays: 366 }), 422, 'VALIDATION_ERROR');
    expect((await patch({ gcKeepLastN: 1000, gcUntaggedAfterDays: 365, gcDeleteUntagged: false })).data).toMatchObject({
      gcKeepLastN: 1000,
      gcUntaggedAfterDays: 365,
      gcDeleteUntagged: false,
    });
    expect((await patch({ visibility: 'PRIVATE' })).data).toMatchObject({ visibility: 'PRIVATE', publicEgressCapGb: null });
    expectError(await patch({ visibility: 'PUBLIC' }), 422, 'VALIDATION_ERROR');
    expect((await patch({ visibility: 'PUBLIC', publicEgressCapGb: 5 })).data).toMatchObject({ visibility: 'PUBLIC', publicEgressCapGb: 5 });
  });

  it('lists who can reach a repository, and says so when the registry cannot be reached', async () => {
    const { owner, projectId, registry, repository, writer } = await pushWorld({ visibility: 'PUBLIC', publicEgressCapGb: 1 });
    const reader = await createApiKey(owner, projectId, ['registry:read']);
    await createApiKey(owner, projectId, ['servers:read']);
    // A viewer's key pulls whatever its scopes say: pushing takes a member.
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    const viewersKey = await createApiKey(owner, projectId, ['registry:read', 'registry:write']);
    await queryRows(sql`update api_keys set created_by_user_id = ${viewer.id} where id = ${viewersKey.id}`);
    const url = `${base(projectId)}/${registry.id}/repositories/${repository.id}/credentials`;
    const listed = await api<RepositoryCredentials>('GET', url, { cookie: owner.cookie });
    expect(listed.data.error).toBeNull();
    expect(listed.data.users.map((u) => [u.id, u.actions])).toEqual([
      [writer.id, ['pull', 'push']],
      [reader.id, ['pull']],
      [viewersKey.id, ['pull']],
      [null, ['pull']],
    ]);
    expect(grantedActions(await token(`repository:${registry.name}/${repository.name}:pull,push`, viewersKey.key))).toEqual(['pull']);
    vi.spyOn(getRegistryProvider(), 'listTags').mockRejectedValue(new AppError('UPSTREAM_ERROR', 'The container registry could not be reached'));
    const down = await api<RepositoryCredentials>('GET', url, { cookie: owner.cookie });
    expect(down.data).toMatchObject({ users: [], error: expect.stringContaining('could not be reached') });
  });
});

describe('pushing and pulling through the real registry with tokens from our realm', () => {
  it('pushes with a registry:write key and lists the image with its tags, size, times and scan findings', async () => {
    const { owner, projectId, registry, repository, writer, name } = await pushWorld();
    const jwt = await token(`repository:${name}:pull,push`, writer.key);
    expect(grantedActions(jwt).sort()).toEqual(['pull', 'push']);
    const pushed = await pushImage(registryUrl, jwt, name, 'v1', { layerBytes: 2048 });
    expect(pushed.status, pushed.body).toBe(201);
    const listed = await eventually(
      () => images(owner, projectId, registry.id, repository.id),
      (list) => list.length === 1 && list[0]!.scanStatus === 'COMPLETE',
      'the push notification',
    );
    expect(listed[0]).toMatchObject({ digest: pushed.digest, tags: ['v1'], sizeBytes: pushed.sizeBytes, lastPulledAt: null, expiredAt: null });
    expect(Object.keys(listed[0]!.scanFindings!)).toEqual(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL']);
    expect(listed[0]!.scanFindings).toEqual(await simulatedScanner.scan(name, pushed.digest));

    expect((await pullImage(registryUrl, jwt, name, 'v1')).status).toBe(200);
    await eventually(
      () => images(owner, projectId, registry.id, repository.id),
      (list) => list[0]!.lastPulledAt !== null,
      'the pull notification',
    );
    expect((await readRepository(owner, projectId, registry.id, repository.id)).lastPushedAt).not.toBeNull();
  });

  it('makes a PRIVATE repository on a first push to a new name, without scan findings when scanning is off', async () => {
    const { owner, projectId } = await paidProject();
    const registry = await createRegistry(owner, projectId, { scanOnPush: false });
    const writer = await createApiKey(owner, projectId, ['registry:read', 'registry:write']);
    const name = `${registry.name}/fresh`;
    const pushed = await pushImage(registryUrl, await token(`repository:${name}:pull,push`, writer.key), name, 'latest');
    expect(pushed.status, pushed.body).toBe(201);
    const repos = await eventually(
      () => api<Repository[]>('GET', `${base(projectId)}/${registry.id}/repositories`, { cookie: owner.cookie }).then((r) => r.data),
      (list) => list.length === 1,
      'the repository made by the push',
    );
    expect(repos[0]).toMatchObject({ name: 'fresh', visibility: 'PRIVATE', publicEgressCapGb: null });
    const listed = await eventually(
      () => images(owner, projectId, registry.id, repos[0]!.id),
      (list) => list.length === 1,
      'the image',
    );
    expect(listed[0]).toMatchObject({ scanStatus: null, scanFindings: null });
  });

  it('lets anyone pull a PUBLIC repository, refuses anonymous pulls of a PRIVATE one, and lets a registry:read key pull it', async () => {
    const world = await pushWorld();
    const publicRepo = await createRepository(world.owner, world.projectId, world.registry.id, { visibility: 'PUBLIC', publicEgressCapGb: 10 });
    const publicName = `${world.registry.name}/${publicRepo.name}`;
    const push = await token(`repository:${world.name}:pull,push repository:${publicName}:pull,push`, world.writer.key);
    expect((await pushImage(registryUrl, push, world.name, 'v1')).status).toBe(201);
    expect((await pushImage(registryUrl, push, publicName, 'v1')).status).toBe(201);

    const anonymousPrivate = await token(`repository:${world.name}:pull`, null);
    expect(grantedActions(anonymousPrivate)).toEqual([]);
    expect((await pullImage(registryUrl, anonymousPrivate, world.name, 'v1')).status).toBe(401);
    expect((await pullImage(registryUrl, null, world.name, 'v1')).status).toBe(401);

    const anonymousPublic = await token(`repository:${publicName}:pull,push`, null);
    expect(grantedActions(anonymousPublic)).toEqual(['pull']);
    expect((await pullImage(registryUrl, anonymousPublic, publicName, 'v1')).status).toBe(200);
    expect((await pushImage(registryUrl, anonymousPublic, publicName, 'v2')).status).toBe(401);

    const reader = await createApiKey(world.owner, world.projectId, ['registry:read']);
    const readToken = await token(`repository:${world.name}:pull,push`, reader.key);
    expect(grantedActions(readToken)).toEqual(['pull']);
    expect((await pullImage(registryUrl, readToken, world.name, 'v1')).status).toBe(200);
    expect((await pushImage(registryUrl, readToken, world.name, 'v2')).status).toBe(401);

    const stranger = await paidProject();
    const strangerKey = await createApiKey(stranger.owner, stranger.projectId, ['registry:read', 'registry:write']);
    expect(grantedActions(await token(`repository:${world.name}:pull,push`, strangerKey.key))).toEqual([]);
    expect(grantedActions(await token(`repository:${publicName}:pull,push`, strangerKey.key))).toEqual(['pull']);
  });

  it('refuses an invalid key, a key without registry scopes, and another service', async () => {
    const world = await pushWorld();
    expect((await tokenCall(`repository:${world.name}:pull`, 'cpk_notakey')).status).toBe(401);
    const servers = await createApiKey(world.owner, world.projectId, ['servers:read', 'servers:write']);
    expect(grantedActions(await token(`repository:${world.name}:pull,push`, servers.key))).toEqual([]);
    const login = await api('GET', `/v1/registry/token?service=${getRegistryProvider().service}`, { headers: { authorization: basic(servers.key) } });
    expectError(login, 403, 'FORBIDDEN');
    expect((await tokenCall(`repository:${world.name}:pull`, world.writer.key, 'elsewhere')).status).toBe(400);
  });

  it('refuses a second push of another image to an IMMUTABLE tag, and lets a MUTABLE tag move', async () => {
    const immutable = await pushWorld({}, { imageTagMutability: 'IMMUTABLE' });
    const jwt = await token(`repository:${immutable.name}:pull,push`, immutable.writer.key);
    const first = await pushImage(registryUrl, jwt, immutable.name, 'v1');
    expect(first.status, first.body).toBe(201);
    const second = await pushImage(registryUrl, jwt, immutable.name, 'v1');
    expect(second.status).toBe(403);
    expect(second.body).toContain('immutable');
    expect((await pushImage(registryUrl, jwt, immutable.name, 'v2')).status).toBe(201);

    const mutable = await pushWorld();
    const mutableJwt = await token(`repository:${mutable.name}:pull,push`, mutable.writer.key);
    const old = await pushImage(registryUrl, mutableJwt, mutable.name, 'v1');
    const moved = await pushImage(registryUrl, mutableJwt, mutable.name, 'v1');
    expect(moved.status).toBe(201);
    const listed = await eventually(
      () => images(mutable.owner, mutable.projectId, mutable.registry.id, mutable.repository.id),
      (list) => list.length === 2,
      'both images',
    );
    expect(listed.map((image) => [image.digest, image.tags])).toEqual([
      [moved.digest, ['v1']],
      [old.digest, []],
    ]);
  });

  it('deletes an image by its URL-encoded digest and refuses a tag', async () => {
    const { owner, projectId, registry, repository, writer, name } = await pushWorld();
    const pushed = await pushImage(registryUrl, await token(`repository:${name}:pull,push`, writer.key), name, 'v1');
    await eventually(
      () => images(owner, projectId, registry.id, repository.id),
      (list) => list.length === 1,
      'the image',
    );
    const url = (reference: string) => `${base(projectId)}/${registry.id}/repositories/${repository.id}/images/${encodeURIComponent(reference)}`;
    expectError(await api('DELETE', url('v1'), { cookie: owner.cookie }), 400, 'BAD_REQUEST');
    expect((await api('DELETE', url(pushed.digest), { cookie: owner.cookie })).status).toBe(200);
    expect(await images(owner, projectId, registry.id, repository.id)).toEqual([]);
    expect(await getRegistryProvider().listTags(name)).toEqual([]);
    expectError(await api('DELETE', url(pushed.digest), { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('public egress caps', () => {
  it('closes a PUBLIC repository to PRIVATE when anonymous pulls reach its cap, and raising the cap reopens it', async () => {
    const world = await pushWorld({ visibility: 'PUBLIC', publicEgressCapGb: 1 });
    const pushed = await pushImage(registryUrl, await token(`repository:${world.name}:pull,push`, world.writer.key), world.name, 'v1', { layerBytes: 4096 });
    expect(pushed.status).toBe(201);
    // A gigabyte less a few bytes already served this month: the next anonymous pull crosses the cap.
    await queryRows(sql`update container_repositories set public_egress_used_bytes = 1000000000 - 100 where id = ${world.repository.id}`);
    const anonymous = await token(`repository:${world.name}:pull`, null);
    expect((await pullImage(registryUrl, anonymous, world.name, 'v1')).status).toBe(200);
    const closed = await eventually(
      () => readRepository(world.owner, world.projectId, world.registry.id, world.repository.id),
      (repo) => repo.visibility === 'PRIVATE',
      'the cap to close the repository',
    );
    expect(closed.publicEgressCapHitAt).not.toBeNull();
    expect(closed.publicEgressUsedGb).toBeGreaterThanOrEqual(1);
    expect(grantedActions(await token(`repository:${world.name}:pull`, null))).toEqual([]);

    const raised = await api<Repository>('PATCH', `${base(world.projectId)}/${world.registry.id}/repositories/${world.repository.id}`, {
      cookie: world.owner.cookie,
      body: { publicEgressCapGb: 2 },
    });
    expect(raised.data).toMatchObject({ visibility: 'PUBLIC', publicEgressCapGb: 2, publicEgressCapHitAt: null, publicEgressUsedGb: 0 });
    expect(grantedActions(await token(`repository:${world.name}:pull`, null))).toEqual(['pull']);
  });

  it('counts only anonymous pulls against the cap', async () => {
    const world = await pushWorld({ visibility: 'PUBLIC', publicEgressCapGb: 1 });
    const jwt = await token(`repository:${world.name}:pull,push`, world.writer.key);
    const pushed = await pushImage(registryUrl, jwt, world.name, 'v1', { layerBytes: 1000 });
    expect((await pullImage(registryUrl, jwt, world.name, 'v1')).status).toBe(200);
    const anonymous = await token(`repository:${world.name}:pull`, null);
    const pulled = await pullImage(registryUrl, anonymous, world.name, pushed.digest);
    expect(pulled.status).toBe(200);
    const [row] = await eventually(
      () =>
        queryRows<{ public: string; total: string }>(
          sql`select public_egress_used_bytes::text as public, egress_bytes::text as total from container_repositories where id = ${world.repository.id}`,
        ),
      (rows) => Number(rows[0]!.public) > 0 && Number(rows[0]!.total) >= 2 * pulled.bytes,
      'egress counters',
    );
    expect(Number(row!.public)).toBe(pulled.bytes);
  });
});

describe('retention', () => {
  it('keeps the last N tagged images and untagged ones younger than the limit; expired images stay listed until garbage collection', async () => {
    const world = await pushWorld();
    const jwt = await token(`repository:${world.name}:pull,push`, world.writer.key);
    const pushes = [];
    for (const tag of ['a', 'b', 'c']) pushes.push(await pushImage(registryUrl, jwt, world.name, tag));
    const superseded = await pushImage(registryUrl, jwt, world.name, 'c');
    await eventually(
      () => images(world.owner, world.projectId, world.registry.id, world.repository.id),
      (list) => list.length === 4,
      'four images',
    );
    // Push times one minute apart, oldest first, and the untagged image (old "c") ten days old.
    for (const [index, pushed] of [...pushes, superseded].entries()) {
      await queryRows(sql`update container_images set pushed_at = now() - ${`${10 - index} minutes`}::interval where digest = ${pushed.digest}`);
    }
    await queryRows(sql`update container_images set pushed_at = now() - interval '10 days' where digest = ${pushes[2]!.digest}`);
    await api('PATCH', `${base(world.projectId)}/${world.registry.id}/repositories/${world.repository.id}`, {
      cookie: world.owner.cookie,
      body: { gcKeepLastN: 2, gcDeleteUntagged: true, gcUntaggedAfterDays: 7 },
    });
    const { registry, repository: row } = await liveRepository(world.projectId, world.registry.id, world.repository.id);
    const expired = await applyRetention(registry, row);
    expect(expired.sort()).toEqual([pushes[0]!.digest, pushes[2]!.digest].sort());
    const listed = await images(world.owner, world.projectId, world.registry.id, world.repository.id);
    expect(
      listed
        .filter((image) => image.expiredAt !== null)
        .map((image) => image.digest)
        .sort(),
    ).toEqual(expired.sort());
    expect(listed.filter((image) => image.expiredAt === null).map((image) => image.tags)).toEqual([['c'], ['b']]);
    expect((await pullImage(registryUrl, jwt, world.name, 'a')).status).toBe(404);

    await collectGarbage(new Date(Date.now() + 1000));
    const after = await images(world.owner, world.projectId, world.registry.id, world.repository.id);
    expect(after.map((image) => image.digest)).toEqual([superseded.digest, pushes[1]!.digest]);
    expect((await pullImage(registryUrl, jwt, world.name, 'b')).status).toBe(200);
  });
});

describe('deleting a registry', () => {
  it('answers 502 and keeps the registry billed when billing cannot be stopped, then deletes everything', async () => {
    const world = await pushWorld();
    const pushed = await pushImage(registryUrl, await token(`repository:${world.name}:pull,push`, world.writer.key), world.name, 'v1');
    expect(pushed.status).toBe(201);
    const itemEnded = async () =>
      (await queryRows<{ ended_at: string | null }>(sql`select ended_at from billing_items where resource_id = ${world.registry.id}`))[0]!.ended_at;

    vi.spyOn(getRegistryProvider(), 'listTags').mockRejectedValue(new AppError('UPSTREAM_ERROR', 'The container registry could not be reached'));
    expectError(await api('DELETE', `${base(world.projectId)}/${world.registry.id}`, { cookie: world.owner.cookie }), 502, 'UPSTREAM_ERROR');
    expect(await itemEnded()).toBeNull();
    expect((await api<Registry>('GET', `${base(world.projectId)}/${world.registry.id}`, { cookie: world.owner.cookie })).data.repositories).toHaveLength(1);
    vi.restoreAllMocks();

    expect((await api('DELETE', `${base(world.projectId)}/${world.registry.id}`, { cookie: world.owner.cookie })).status).toBe(200);
    expect(await itemEnded()).not.toBeNull();
    expectError(await api('GET', `${base(world.projectId)}/${world.registry.id}`, { cookie: world.owner.cookie }), 404, 'NOT_FOUND');
    expect(await getRegistryProvider().listTags(world.name)).toEqual([]);
    const [row] = await queryRows<{ final_usage: { storageBytes: number } }>(sql`select final_usage from container_registries where id = ${world.registry.id}`);
    expect(row!.final_usage.storageBytes).toBe(pushed.sizeBytes);
    expect(grantedActions(await token(`repository:${world.name}:pull,push`, world.writer.key))).toEqual([]);
  });

  it('deletes a repository with its images', async () => {
    const world = await pushWorld();
    await pushImage(registryUrl, await token(`repository:${world.name}:pull,push`, world.writer.key), world.name, 'v1');
    expect(
      (await api('DELETE', `${base(world.projectId)}/${world.registry.id}/repositories/${world.repository.id}`, { cookie: world.owner.cookie })).status,
    ).toBe(200);
    expect(await getRegistryProvider().listTags(world.name)).toEqual([]);
    expectError(
      await api('GET', `${base(world.projectId)}/${world.registry.id}/repositories/${world.repository.id}`, { cookie: world.owner.cookie }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('billing suspension', () => {
  it('refuses pushes and anonymous pulls while suspended, keeps keyed pulls, and opens again once paid', async () => {
    const world = await pushWorld({ visibility: 'PUBLIC', publicEgressCapGb: 5 });
    const scope = `repository:${world.name}:pull,push`;
    await pushImage(registryUrl, await token(scope, world.writer.key), world.name, 'v1');
    await containerRegistrySuspension.suspend(world.projectId);
    expect(await containerRegistrySuspension.projectsWithSuspendedResources()).toContain(world.projectId);
    expect((await api<Registry>('GET', `${base(world.projectId)}/${world.registry.id}`, { cookie: world.owner.cookie })).data.status).toBe('suspended');
    expect(grantedActions(await token(scope, world.writer.key))).toEqual(['pull']);
    expect(grantedActions(await token(scope, null))).toEqual([]);
    await containerRegistrySuspension.resume(world.projectId);
    expect(grantedActions(await token(scope, world.writer.key)).sort()).toEqual(['pull', 'push']);
    expect(grantedActions(await token(scope, null))).toEqual(['pull']);
  });
});

describe('scopes', () => {
  it('reads with registry:read, writes with registry:read and registry:write, and refuses keys of other resources', async () => {
    const { owner, projectId } = await paidProject();
    const key = async (scopes: Scope[]) => (await createApiKey(owner, projectId, scopes)).key;
    expect((await api('GET', base(projectId), { key: await key(['registry:read']) })).status).toBe(200);
    expectError(await api('GET', base(projectId), { key: await key(['servers:read']) }), 403, 'FORBIDDEN');
    const body = { name: uniqueName('reg'), region: 'fra1' };
    expectError(await api('POST', base(projectId), { key: await key(['registry:read']), body }), 403, 'FORBIDDEN');
    expect((await api('POST', base(projectId), { key: await key(['registry:read', 'registry:write']), body })).status).toBe(200);
  });
});

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Schema } from '@cloudpanel/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWorld, type World } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor } from './cli.ts';

const run = promisify(execFile);

let world: World;
beforeAll(async () => {
  world = await newWorld('cli-registry');
});

const uniqueName = (label: string) => `${label}-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
const onPath = (program: string) =>
  (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

/** An OCI image layout on disk holding one tiny image tagged `tag`, for skopeo to push. */
function ociLayout(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cloud-oci-'));
  mkdirSync(path.join(dir, 'blobs', 'sha256'), { recursive: true });
  const blob = (data: Buffer) => {
    const hex = createHash('sha256').update(data).digest('hex');
    writeFileSync(path.join(dir, 'blobs', 'sha256', hex), data);
    return { digest: `sha256:${hex}`, size: data.length };
  };
  // An empty tar archive is two zero blocks.
  const tar = Buffer.alloc(1024);
  const layer = blob(gzipSync(tar));
  const config = blob(
    Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: [`sha256:${createHash('sha256').update(tar).digest('hex')}`] },
      }),
    ),
  );
  const manifest = blob(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
      }),
    ),
  );
  writeFileSync(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...manifest, annotations: { 'org.opencontainers.image.ref.name': tag } }],
    }),
  );
  return dir;
}

describe('cloud registry', () => {
  it('buys a registry, makes repositories, proves the login it describes by pushing an image, then deletes the image and the registry', async () => {
    const env = envFor(world);
    const name = uniqueName('cli');

    const regions = await cloud(['registry', 'regions', '--json'], { env });
    expect(regions.code, regions.stderr).toBe(0);
    expect(regions.json()).toContainEqual({ value: 'fra1', label: expect.any(String) });
    expect((await cloud(['registry', 'regions'], { env })).stdout).toMatch(/^REGION\s+NAME\nfra1\s+/);
    const preview = await cloud(['registry', 'preview', '--json'], { env });
    expect(preview.json()).toMatchObject({ monthly: 100 });

    const nowhere = await cloud(['registry', 'create', name, '--region', 'mars1'], { env });
    expect(nowhere.code).toBe(EXIT.rejected);
    expect(nowhere.stderr).toMatch(/^Error: VALIDATION_ERROR: .*\n {2}region: /);
    const created = await cloud(['registry', 'create', name, '--region', 'fra1', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const registry = created.json<Schema<'ContainerRegistry'>>();
    expect(registry).toMatchObject({ name, region: 'fra1', status: 'active', imageTagMutability: 'MUTABLE', scanOnPush: true, repositories: [] });
    const host = registry.endpoint;

    const list = await cloud(['registry', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+REGION\s+ENDPOINT\s+STATUS\s+REPOSITORIES\s+CREATED\n/);
    expect(list.stdout).toContain(name);

    expect((await cloud(['registry', 'update', name], { env })).code).toBe(EXIT.usage);
    const updated = await cloud(['registry', 'update', name, '--image-tag-mutability', 'immutable', '--no-scan-on-push', '--lifecycle-keep-last-n', '20'], {
      env,
    });
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/^Tags: +IMMUTABLE$/m);
    const registryPath = { params: { path: { projectId: world.projectId, id: registry.id } } };
    expect(await world.client.get('/projects/{projectId}/storage/container-registry/{id}', registryPath)).toMatchObject({
      imageTagMutability: 'IMMUTABLE',
      scanOnPush: false,
      lifecycleEnabled: true,
      lifecycleKeepLastN: 20,
    });

    const web = await cloud(['registry', 'repositories', 'create', name, 'web', '--json'], { env });
    expect(web.code, web.stderr).toBe(0);
    const repository = web.json<Schema<'ContainerRepository'>>();
    expect(repository).toMatchObject({ name: 'web', visibility: 'PRIVATE', uri: `${host}/${name}/web`, imageTagMutability: 'IMMUTABLE' });
    const uncapped = await cloud(['registry', 'repos', 'create', name, 'site', '--visibility', 'public'], { env });
    expect(uncapped.code).toBe(EXIT.rejected);
    const site = await cloud(['registry', 'repos', 'create', name, 'site', '--visibility', 'public', '--public-egress-cap-gb', '5'], { env });
    expect(site.code, site.stderr).toBe(0);
    expect(site.stdout).toMatch(/^Public egress: +0 of 5 GB this month$/m);
    expect(site.stderr).toBe(`docker push ${host}/${name}/site:<tag>\n`);

    const retention = await cloud(['registry', 'repositories', 'update', name, 'web', '--gc-keep-last-n', '3', '--no-gc-delete-untagged', '--json'], { env });
    expect(retention.code, retention.stderr).toBe(0);
    expect(
      await world.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', {
        params: { path: { projectId: world.projectId, id: registry.id, repoId: repository.id } },
      }),
    ).toMatchObject({ gcEnabled: true, gcKeepLastN: 3, gcDeleteUntagged: false });
    const repos = await cloud(['registry', 'repositories', 'list', registry.id], { env });
    expect(repos.stdout).toMatch(/^ID\s+NAME\s+VISIBILITY\s+URI\s+LAST PUSH\s+CREATED\n/);
    expect(repos.stdout).toMatch(/\bsite\s+PUBLIC\b/);
    const repo = await cloud(['registry', 'repositories', 'get', name, repository.id], { env });
    expect(repo.stdout).toMatch(/^Retention: +keep the last 3$/m);

    // Who can reach it, and how docker logs in: the API key as the password.
    const access = await cloud(['registry', 'credentials', name, 'web', '--json'], { env });
    expect(access.code, access.stderr).toBe(0);
    const credentials = access.json<Schema<'RepositoryCredentials'>>();
    expect(credentials.error).toBeNull();
    expect(credentials.login.host).toBe(host);
    expect(credentials.users).toContainEqual(expect.objectContaining({ kind: 'apiKey', keyPrefix: world.apiKey.slice(0, 12), actions: ['pull', 'push'] }));
    const publicAccess = await cloud(['registry', 'credentials', name, 'site'], { env });
    expect(publicAccess.stdout).toMatch(/^KIND\s+NAME\s+KEY\s+ACTIONS\s+LAST USED\s+EXPIRES\n/);
    expect(publicAccess.stdout).toMatch(/^anonymous\s+.*\bpull\b/m);
    expect(publicAccess.stderr).toContain(`docker login ${host} (username: ${credentials.login.username}; password: `);

    const printed = await cloud(['registry', 'docker-login', name, '--print'], { env });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(`printf '%s' "$CLOUD_API_KEY" | docker login ${host} --username cloud --password-stdin\n`);
    expect(printed.stdout + printed.stderr).not.toContain(world.apiKey);
    const noDocker = await cloud(['registry', 'docker-login', name], { env: { ...env, PATH: '/nonexistent' } });
    expect(noDocker.code).toBe(EXIT.usage);
    expect(noDocker.stderr).toContain('docker is not on PATH');

    // Push an image with skopeo, logged in as the credentials answer says.
    const authfile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cloud-auth-')), 'auth.json');
    const auth = Buffer.from(`${credentials.login.username}:${world.apiKey}`).toString('base64');
    writeFileSync(authfile, JSON.stringify({ auths: { [host]: { auth } } }), { mode: 0o600 });
    const digestFile = path.join(path.dirname(authfile), 'digest');
    await run('skopeo', [
      'copy',
      '--dest-tls-verify=false',
      '--authfile',
      authfile,
      '--digestfile',
      digestFile,
      `oci:${ociLayout('v1')}:v1`,
      `docker://${repository.uri}:v1`,
    ]);
    const digest = readFileSync(digestFile, 'utf8').trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    const images = await cloud(['registry', 'images', 'list', name, 'web', '--json'], { env });
    expect(images.code, images.stderr).toBe(0);
    expect(images.json()).toEqual([expect.objectContaining({ digest, tags: ['v1'], sizeBytes: expect.any(Number) })]);
    const table = await cloud(['registry', 'images', 'list', name, 'web'], { env });
    expect(table.stdout).toMatch(new RegExp(`^DIGEST\\s+TAGS\\s+SIZE\\s+PUSHED\\s+LAST PULL\\s+FINDINGS\\s+EXPIRED\\n${digest}\\s+v1\\s+\\d+ B\\s`));

    const readOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['registry:read']) };
    const refused = await cloud(['registry', 'images', 'delete', name, 'web', digest, '--yes'], { env: readOnly });
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.stderr).toMatch(/^Error: FORBIDDEN: /);
    const byTag = await cloud(['registry', 'images', 'delete', name, 'web', 'v1', '--yes'], { env });
    expect(byTag.code).toBe(EXIT.usage);
    expect(byTag.stderr).toContain('"v1" is not a digest');
    expect((await cloud(['registry', 'images', 'delete', name, 'web', digest], { env })).code).toBe(EXIT.usage);
    const deletedImage = await cloud(['registry', 'images', 'delete', name, 'web', digest, '--yes'], { env });
    expect(deletedImage.code, deletedImage.stderr).toBe(0);
    expect(deletedImage.stdout).toBe(`Deleted image ${repository.uri}@${digest}\n`);
    const after = await world.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images', {
      params: { path: { projectId: world.projectId, id: registry.id, repoId: repository.id } },
    });
    expect(after.map((image) => image.digest)).not.toContain(digest);

    const dropSite = await cloud(['registry', 'repositories', 'delete', name, 'site', '--yes'], { env });
    expect(dropSite.code, dropSite.stderr).toBe(0);
    expect((await world.client.get('/projects/{projectId}/storage/container-registry/{id}', registryPath)).repositories.map((r) => r.name)).toEqual(['web']);
    expect((await cloud(['registry', 'repositories', 'get', name, 'site'], { env })).code).toBe(EXIT.notFound);

    expect((await cloud(['registry', 'delete', name], { env })).code).toBe(EXIT.usage);
    const deleted = await cloud(['registry', 'delete', name, '--yes', '--json'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual({ id: registry.id, deleted: true });
    const gone = await cloud(['registry', 'get', registry.id], { env });
    expect(gone.code).toBe(EXIT.notFound);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
  });

  it.runIf(onPath('docker'))('logs docker in with the key on stdin, never in its arguments, and passes on docker’s refusal', async () => {
    const name = uniqueName('login');
    const projectId = world.projectId;
    const { id } = await world.client.post('/projects/{projectId}/storage/container-registry', {
      params: { path: { projectId } },
      body: { name, region: 'fra1' },
    });
    const { endpoint: host } = await world.client.get('/projects/{projectId}/storage/container-registry/{id}', { params: { path: { projectId, id } } });
    const dockerConfig = mkdtempSync(path.join(os.tmpdir(), 'cloud-docker-'));
    const env = { ...envFor(world), DOCKER_CONFIG: dockerConfig };

    const login = await cloud(['registry', 'docker-login', name], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Login Succeeded');
    expect(login.stdout).toContain(`docker is logged in to ${host}: push and pull ${host}/${name}/<repository>:<tag>`);
    expect(login.stdout + login.stderr).not.toContain(world.apiKey);
    const saved = JSON.parse(readFileSync(path.join(dockerConfig, 'config.json'), 'utf8')) as { auths: Record<string, { auth: string }> };
    expect(Buffer.from(saved.auths[host]!.auth, 'base64').toString()).toBe(`cloud:${world.apiKey}`);

    const pullOnly = await world.keyWith(['registry:read']);
    const json = await cloud(['registry', 'docker-login', name, '--password-stdin', '--json'], { env, stdin: `${pullOnly}\n` });
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toEqual({ host, username: 'cloud', loggedIn: true });
    expect(json.stderr).toContain('Login Succeeded');

    const noScope = await cloud(['registry', 'docker-login', name, '--password-stdin'], { env, stdin: await world.keyWith(['servers:read']) });
    expect(noScope.code).toBe(EXIT.failure);
    expect(noScope.stderr).toContain('This API key has no registry scope');
    expect(noScope.stderr).toContain(`Error: docker login ${host} failed (exit 1)`);

    await world.client.delete('/projects/{projectId}/storage/container-registry/{id}', { params: { path: { projectId, id } } });
  });
});

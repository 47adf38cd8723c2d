import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_MEDIA_TYPE, pullImage, pushImage } from '../../../test/registryPush';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { findExecutable } from '../redis';
import { EVENTS_PATH, GARBAGE_COLLECTION_PATH, startFrontDoor, type FrontDoor } from './frontDoor';
import { getRegistryProvider, PLATFORM_SUBJECT, resetRegistryProviderForTests, type RegistryEvent, type RegistryHooks, type RegistryProvider } from './index';
import { signRegistryToken, libtrustKeyId } from './jwt';
import { loadSigningKey } from './keys';
import { FrontedRegistryProvider } from './provider';

const binary = findExecutable('docker-registry');
const REALM = 'http://localhost:3000/v1/registry/token';

/** Polls until `probe` returns something, or fails at the deadline. */
async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function keyIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
}

/** Distribution would read ours (REGISTRY_ENDPOINT_PORT…) as overrides of its configuration. */
function withoutRegistryVariables(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('REGISTRY_')) delete env[name];
  return env;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The provider through its front door, over the real docker-registry and over the simulator that
 * replaces it where the binary is missing: both must behave the same for every client.
 */
function registrySuite(kind: 'embedded' | 'simulator'): void {
  describe.skipIf(kind === 'embedded' && !binary)(`${kind} registry behind the front door`, () => {
    const received: RegistryEvent[] = [];
    const mutability = new Map<string, 'MUTABLE' | 'IMMUTABLE'>();
    const hooks: RegistryHooks = {
      tagMutability: async (repository) => mutability.get(repository) ?? 'MUTABLE',
      onEvents: async (events) => {
        received.push(...events);
      },
    };
    let provider: RegistryProvider;
    let base: string;
    const dataDir = () => path.join(getConfig().DATA_DIR, kind === 'embedded' ? 'registry' : 'registry-simulated');

    const token = async (subject: string | null, repository: string, actions: ('pull' | 'push' | 'delete')[]) =>
      (await provider.issueToken(subject, [{ repository, actions }], 300)).token;

    /** A pull by a sentinel subject: once its event is in, everything the registry sent before it is too. */
    async function drainEvents(repository: string, reference: string): Promise<void> {
      const sentinel = `key:sentinel-${Math.random().toString(36).slice(2)}`;
      const res = await fetch(`${base}/v2/${repository}/manifests/${reference}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${await token(sentinel, repository, ['pull'])}`, accept: MANIFEST_MEDIA_TYPE },
      });
      expect(res.status).toBe(200);
      await until(() => received.some((e) => e.actor === sentinel), 'the sentinel pull event');
    }

    beforeAll(async () => {
      resetRegistryProviderForTests();
      provider =
        kind === 'embedded'
          ? getRegistryProvider()
          : new FrontedRegistryProvider({ backend: { kind, reason: 'test' }, dataDir: dataDir(), endpointHost: '127.0.0.1', endpointPort: 0, realm: REALM });
      await provider.start(hooks);
      base = `http://${provider.host()}`;
    });

    afterAll(async () => {
      await provider?.stop();
      resetRegistryProviderForTests();
    });

    it('accepts a push with a pull,push token and serves it back', async () => {
      const pushToken = await token('key:pusher', 'reg/app', ['pull', 'push']);
      const pushed = await pushImage(base, pushToken, 'reg/app', 'v1', { layerCount: 2 });
      expect(pushed.status).toBe(201);
      expect(await pullImage(base, pushToken, 'reg/app', 'v1')).toEqual({ status: 200, bytes: pushed.sizeBytes - pushed.manifest.length });
      expect(await pullImage(base, pushToken, 'reg/app', pushed.digest)).toMatchObject({ status: 200 });
    });

    it('streams a layer larger than any buffer would be', async () => {
      const pushToken = await token('key:pusher', 'reg/big', ['pull', 'push']);
      const pushed = await pushImage(base, pushToken, 'reg/big', 'v1', { layerBytes: 24 * 1024 * 1024 });
      expect(pushed.status).toBe(201);
      expect(await pullImage(base, pushToken, 'reg/big', 'v1')).toEqual({ status: 200, bytes: pushed.sizeBytes - pushed.manifest.length });
    });

    it('refuses requests without a token with a Bearer challenge naming our realm and only that scope', async () => {
      const res = await fetch(`${base}/v2/reg/app/manifests/v1`, { headers: { accept: MANIFEST_MEDIA_TYPE } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer realm="${getConfig().APP_URL.replace(/\/$/, '')}/v1/registry/token",service="registry.panel",scope="repository:reg/app:pull"`,
      );
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('UNAUTHORIZED');
      const ping = await fetch(`${base}/v2/`);
      expect(ping.status).toBe(401);
      expect(ping.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
      expect((await pushImage(base, null, 'reg/app', 'anon')).status).toBe(401);
    });

    it('refuses a token for another repository', async () => {
      const other = await token('key:pusher', 'reg/other', ['pull', 'push']);
      expect((await pullImage(base, other, 'reg/app', 'v1')).status).toBe(401);
      expect((await pushImage(base, other, 'reg/app', 'v2')).status).toBe(401);
    });

    it('lets an anonymous pull-only token pull but not push', async () => {
      const anonymous = await token(null, 'reg/app', ['pull']);
      expect((await pullImage(base, anonymous, 'reg/app', 'v1')).status).toBe(200);
      expect((await pushImage(base, anonymous, 'reg/app', 'v3')).status).toBe(401);
    });

    it('refuses moving an IMMUTABLE tag but lets a MUTABLE one move', async () => {
      const pushToken = await token('key:pusher', 'reg/locked', ['pull', 'push']);
      mutability.set('reg/locked', 'IMMUTABLE');
      const first = await pushImage(base, pushToken, 'reg/locked', 'v1');
      expect(first.status).toBe(201);
      const second = await pushImage(base, pushToken, 'reg/locked', 'v1');
      expect(second.status).toBe(403);
      expect(JSON.parse(second.body)).toEqual({
        errors: [{ code: 'DENIED', message: 'tag "v1" is immutable in repository "reg/locked"; push a new tag', detail: null }],
      });
      expect(await provider.listTags('reg/locked')).toEqual([{ tag: 'v1', digest: first.digest }]);
      // The same manifest again is no move: clients re-push what they have.
      const again = await fetch(`${base}/v2/reg/locked/manifests/v1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${pushToken}`, 'content-type': MANIFEST_MEDIA_TYPE },
        body: new Uint8Array(first.manifest),
      });
      expect(again.status).toBe(201);
      // A new tag is always fine.
      expect((await pushImage(base, pushToken, 'reg/locked', 'v2')).status).toBe(201);

      mutability.set('reg/locked', 'MUTABLE');
      const moved = await pushImage(base, pushToken, 'reg/locked', 'v1');
      expect(moved.status).toBe(201);
      expect((await provider.listTags('reg/locked')).find((t) => t.tag === 'v1')?.digest).toBe(moved.digest);
    });

    it('refuses a manifest over 4 MiB pushed to an IMMUTABLE tag without reading it all', async () => {
      mutability.set('reg/huge', 'IMMUTABLE');
      const res = await fetch(`${base}/v2/reg/huge/manifests/v1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await token('key:pusher', 'reg/huge', ['pull', 'push'])}`, 'content-type': MANIFEST_MEDIA_TYPE },
        body: new Uint8Array(4 * 1024 * 1024 + 1),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('MANIFEST_INVALID');
    });

    it('lets only one of two concurrent pushes to a new IMMUTABLE tag through', async () => {
      const pushToken = await token('key:pusher', 'reg/race', ['pull', 'push']);
      mutability.set('reg/race', 'IMMUTABLE');
      const results = await Promise.all([pushImage(base, pushToken, 'reg/race', 'v1'), pushImage(base, pushToken, 'reg/race', 'v1')]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
    });

    it('does not check tag rules for a push the registry would refuse anyway', async () => {
      mutability.set('reg/locked', 'IMMUTABLE');
      const res = await fetch(`${base}/v2/reg/locked/manifests/v1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await token('key:reader', 'reg/locked', ['pull'])}`, 'content-type': MANIFEST_MEDIA_TYPE },
        body: '{}',
      });
      expect(res.status).toBe(401);
    });

    it('lists tags, describes manifests and deletes them', async () => {
      const pushToken = await token('key:pusher', 'reg/lifecycle', ['pull', 'push']);
      const image = await pushImage(base, pushToken, 'reg/lifecycle', 'latest', { layerCount: 3, layerBytes: 1000 });
      const tagged = await fetch(`${base}/v2/reg/lifecycle/manifests/stable`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${pushToken}`, 'content-type': MANIFEST_MEDIA_TYPE },
        body: new Uint8Array(image.manifest),
      });
      expect(tagged.status).toBe(201);

      expect(await provider.listTags('reg/lifecycle')).toEqual([
        { tag: 'latest', digest: image.digest },
        { tag: 'stable', digest: image.digest },
      ]);
      expect(await provider.listTags('reg/never-pushed')).toEqual([]);
      expect(await provider.manifest('reg/lifecycle', image.digest)).toEqual({
        digest: image.digest,
        mediaType: MANIFEST_MEDIA_TYPE,
        sizeBytes: image.sizeBytes,
      });
      expect(await provider.manifest('reg/lifecycle', `sha256:${'0'.repeat(64)}`)).toBeNull();

      expect(await provider.deleteManifest('reg/lifecycle', image.digest)).toBe(true);
      expect(await provider.listTags('reg/lifecycle')).toEqual([]);
      expect(await provider.manifest('reg/lifecycle', image.digest)).toBeNull();
      expect(await provider.deleteManifest('reg/lifecycle', image.digest)).toBe(false);
      await expect(provider.listTags('Not/Valid')).rejects.toBeInstanceOf(AppError);
    });

    it('delivers push, pull and delete events with their actors, and never the platform’s own requests', async () => {
      const pushToken = await token('key:events', 'reg/events', ['pull', 'push']);
      const image = await pushImage(base, pushToken, 'reg/events', 'v1');
      expect(image.status).toBe(201);
      const manifestPush = await until(
        () => received.find((e) => e.action === 'push' && e.repository === 'reg/events' && e.mediaType === MANIFEST_MEDIA_TYPE),
        'the manifest push event',
      );
      expect(manifestPush).toMatchObject({ tag: 'v1', digest: image.digest, actor: 'key:events', size: image.manifest.length });
      expect(manifestPush.id).toBeTruthy();
      expect(Number.isNaN(Date.parse(manifestPush.timestamp))).toBe(false);
      await until(() => received.find((e) => e.action === 'push' && e.digest === image.layers[0]!.digest && e.actor === 'key:events'), 'the layer push event');

      expect((await pullImage(base, pushToken, 'reg/events', 'v1')).status).toBe(200);
      const pull = await until(
        () => received.find((e) => e.action === 'pull' && e.repository === 'reg/events' && e.mediaType === MANIFEST_MEDIA_TYPE),
        'the pull event',
      );
      expect(pull).toMatchObject({ digest: image.digest, tag: 'v1', actor: 'key:events' });

      expect((await pullImage(base, await token(null, 'reg/events', ['pull']), 'reg/events', image.digest)).status).toBe(200);
      await until(
        () => received.find((e) => e.action === 'pull' && e.repository === 'reg/events' && e.actor === null && e.digest === image.digest),
        'the anonymous pull event',
      );

      // The platform's own HEADs and GETs are pulls to the registry; none may reach the hooks.
      await drainEvents('reg/events', 'v1');
      const before = received.length;
      await provider.listTags('reg/events');
      await provider.manifest('reg/events', image.digest);
      await drainEvents('reg/events', 'v1');
      expect(received.slice(before).map((e) => e.actor)).toEqual([expect.stringMatching(/^key:sentinel-/)]);
      expect(received.some((e) => e.actor === PLATFORM_SUBJECT)).toBe(false);

      // A customer's delete is an event; the platform's own is not.
      const other = await pushImage(base, pushToken, 'reg/events', 'v2');
      const deleted = await fetch(`${base}/v2/reg/events/manifests/${other.digest}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await token('key:deleter', 'reg/events', ['delete'])}` },
      });
      expect(deleted.status).toBe(202);
      expect(await until(() => received.find((e) => e.action === 'delete'), 'the delete event')).toMatchObject({
        repository: 'reg/events',
        digest: other.digest,
        actor: 'key:deleter',
      });
      expect(await provider.deleteManifest('reg/events', image.digest)).toBe(true);
      await drainEvents('reg/app', 'v1');
      expect(received.filter((e) => e.action === 'delete').map((e) => e.digest)).toEqual([other.digest]);
    });

    it('keeps tagged images pullable through garbage collection and frees the deleted ones', async () => {
      const pushToken = await token('key:pusher', 'reg/gc', ['pull', 'push']);
      const kept = await pushImage(base, pushToken, 'reg/gc', 'kept', { layerBytes: 4096 });
      const dropped = await pushImage(base, pushToken, 'reg/gc', 'dropped', { layerBytes: 4096 });
      expect([kept.status, dropped.status]).toEqual([201, 201]);
      // Where Distribution's filesystem driver keeps a blob's bytes (the simulator keeps its own layout).
      const blobStored = (digest: string) =>
        kind === 'simulator' ||
        existsSync(path.join(dataDir(), 'data', 'docker', 'registry', 'v2', 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7), 'data'));
      expect(blobStored(dropped.layers[0]!.digest)).toBe(true);
      expect(await provider.deleteManifest('reg/gc', dropped.digest)).toBe(true);

      await provider.collectGarbage();

      if (kind === 'embedded') expect(blobStored(dropped.layers[0]!.digest)).toBe(false);
      expect(blobStored(kept.layers[0]!.digest)).toBe(true);
      expect(await pullImage(base, pushToken, 'reg/gc', 'kept')).toEqual({ status: 200, bytes: kept.sizeBytes - kept.manifest.length });
      expect(await provider.listTags('reg/gc')).toEqual([{ tag: 'kept', digest: kept.digest }]);
    });

    if (kind === 'embedded') {
      it('runs Docker Distribution behind a front door on a port of its own', () => {
        expect(provider.kind).toBe('embedded');
        expect(provider.service).toBe('registry.panel');
        expect(provider.description).toMatch(/^Docker Distribution 2\.\d+(\.\d+)? on loopback behind the front door at 127\.0\.0\.1:\d+$/);
        expect(provider.host()).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(provider.host()).not.toBe('127.0.0.1:0');
        const config = readFileSync(path.join(dataDir(), 'config.yml'), 'utf8');
        expect(config).toContain('relativeurls: true');
        expect(statSync(path.join(dataDir(), 'config.yml')).mode & 0o777).toBe(0o600);
        expect(statSync(path.join(dataDir(), 'keys', 'token-signing.key')).mode & 0o777).toBe(0o600);
      });

      it('leaves the port to the process that holds it and reaches the registry through that one', async () => {
        const second = new FrontedRegistryProvider({
          backend: { kind: 'embedded', binary: binary!, version: null, startTimeoutMs: 20_000 },
          dataDir: dataDir(),
          endpointHost: '127.0.0.1',
          endpointPort: Number(provider.host().split(':')[1]),
          realm: REALM,
        });
        const pid = readFileSync(path.join(dataDir(), 'registry.pid'), 'utf8');
        try {
          await second.start(hooks);
          expect(second.host()).toBe(provider.host());
          expect(second.description).toBe(`Registry run by another process of this app, behind the front door at ${provider.host()}`);
          expect((await second.listTags('reg/app')).map((t) => t.tag)).toEqual(['v1']);
          // Distribution collects offline: the second process asks the serving one, through its door.
          await second.collectGarbage();
          expect(readFileSync(path.join(dataDir(), 'registry.pid'), 'utf8')).not.toBe(pid);
        } finally {
          await second.stop();
        }
        expect((await pullImage(base, await token('key:pusher', 'reg/app', ['pull']), 'reg/app', 'v1')).status).toBe(200);
      });

      it('starts the registry again when it dies', async () => {
        const pid = Number(readFileSync(path.join(dataDir(), 'registry.pid'), 'utf8'));
        process.kill(pid, 'SIGKILL');
        await until(() => {
          try {
            const now = Number(readFileSync(path.join(dataDir(), 'registry.pid'), 'utf8'));
            return now !== pid && isAlive(now);
          } catch {
            return false;
          }
        }, 'a new registry process');
        const pullToken = await token('key:pusher', 'reg/app', ['pull']);
        const deadline = Date.now() + 15_000;
        let status = 0;
        while (status !== 200 && Date.now() < deadline) {
          status = (await pullImage(base, pullToken, 'reg/app', 'v1')).status;
          if (status !== 200) {
            // Until it is back, the front door answers 503 rather than failing the connection.
            expect(status).toBe(503);
            await sleep(100);
          }
        }
        expect(status).toBe(200);
      });

      it('keeps its signing key across restarts and kills a registry orphaned by a previous run', async () => {
        const before = keyIdOf(await token('key:pusher', 'reg/app', ['pull']));
        await provider.stop();
        expect(existsSync(path.join(dataDir(), 'registry.pid'))).toBe(false);

        // What a crashed app leaves behind: a registry still serving this data directory.
        const configPath = path.join(dataDir(), 'config.yml');
        const orphan = spawn(binary!, ['serve', configPath], { stdio: 'ignore', env: withoutRegistryVariables() });
        writeFileSync(path.join(dataDir(), 'registry.pid'), `${orphan.pid}\n`);
        const orphanExited = new Promise<void>((resolve) => orphan.once('exit', () => resolve()));
        const orphanAddress = /addr: "([^"]+)"/.exec(readFileSync(configPath, 'utf8'))![1]!;
        const orphanServes = async () => (await fetch(`http://${orphanAddress}/v2/`).catch(() => null))?.status === 401;
        const deadline = Date.now() + 15_000;
        while (!(await orphanServes())) {
          if (Date.now() > deadline) throw new Error('the orphan registry did not start');
          await sleep(50);
        }

        resetRegistryProviderForTests();
        provider = getRegistryProvider();
        await provider.start(hooks);
        base = `http://${provider.host()}`;
        await orphanExited;

        const pullToken = await token('key:pusher', 'reg/app', ['pull']);
        expect(keyIdOf(pullToken)).toBe(before);
        expect((await loadSigningKey(dataDir(), 'panel-token-issuer')).keyId).toBe(before);
        expect((await pullImage(base, pullToken, 'reg/app', 'v1')).status).toBe(200);
      });
    }
  });
}

registrySuite('embedded');
registrySuite('simulator');

describe('registry front door', () => {
  let upstream: Server;
  const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let door: FrontDoor;
  const delivered: RegistryEvent[][] = [];
  let failHook = false;
  const secret = 'events-secret';

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(202, { location: '/v2/reg/app/blobs/uploads/abc', 'docker-upload-uuid': 'abc', range: '0-9', 'www-authenticate': 'Bearer realm="x"' });
        res.end('streamed');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    const { privateKey, publicKey } = (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signer = { privateKey, keyId: libtrustKeyId(publicKey), issuer: 'i', service: 's' };
    door = await startFrontDoor({
      host: '127.0.0.1',
      port: 0,
      upstream: () => `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      hooks: {
        tagMutability: async () => 'MUTABLE',
        onEvents: async (events) => {
          if (failHook) throw new Error('database down');
          delivered.push(events);
        },
      },
      eventsSecret: secret,
      platformSubject: 'platform',
      platformToken: async (access) => signRegistryToken(signer, 'platform', access, 60).token,
      verifyToken: () => null,
      collectGarbage: async () => {
        throw new Error('not asked in these tests');
      },
    });
  });

  afterAll(async () => {
    await door?.close();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it('streams /v2/ requests through with the real client address, whatever the client claims', async () => {
    const res = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${door.url}/v2/reg/app/blobs/uploads/?mount=x`,
        {
          method: 'POST',
          headers: { 'x-forwarded-for': '6.6.6.6', 'x-real-ip': '6.6.6.6', forwarded: 'for=6.6.6.6', 'content-type': 'application/octet-stream' },
        },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        },
      );
      req.on('error', reject);
      req.write('0123');
      req.end('456789');
    });
    expect(res).toMatchObject({ status: 202, body: 'streamed' });
    expect(res.headers).toMatchObject({
      location: '/v2/reg/app/blobs/uploads/abc',
      'docker-upload-uuid': 'abc',
      range: '0-9',
      'www-authenticate': 'Bearer realm="x"',
    });
    const forwarded = seen.at(-1)!;
    expect(forwarded).toMatchObject({ method: 'POST', url: '/v2/reg/app/blobs/uploads/?mount=x', body: '0123456789' });
    expect(forwarded.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(forwarded.headers['x-forwarded-proto']).toBe('http');
    expect(forwarded.headers['x-real-ip']).toBeUndefined();
    expect(forwarded.headers.forwarded).toBeUndefined();
  });

  it('collects garbage only for a token the registry trusts of the platform subject', async () => {
    const gc = (authorization?: string) =>
      fetch(`${door.url}${GARBAGE_COLLECTION_PATH}`, { method: 'POST', headers: authorization ? { authorization } : {} }).then((r) => r.status);
    expect(await gc()).toBe(401);
    expect(await gc('Bearer not-a-token')).toBe(401);
  });

  it('answers other paths with 404 in the registry error envelope', async () => {
    const res = await fetch(`${door.url}/admin`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('NOT_FOUND');
    // Sent as written: fetch would resolve the dot segments itself.
    const raw = (rawPath: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${door.url}/`, { method: 'PUT', path: rawPath }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const before = seen.length;
    expect(await raw('/v2/reg/../app/manifests/v1')).toBe(404);
    expect(await raw('/v2/reg/%2e%2e/app/manifests/v1')).toBe(404);
    expect(await raw('/v2/reg//app/manifests/v1')).toBe(404);
    expect(seen.length).toBe(before);
  });

  const event = (overrides: Record<string, unknown>) => ({
    id: `evt-${Math.random()}`,
    timestamp: '2030-01-01T00:00:00.000Z',
    action: 'push',
    target: { mediaType: MANIFEST_MEDIA_TYPE, size: 10, length: 10, digest: `sha256:${'a'.repeat(64)}`, repository: 'reg/app', url: 'http://x', tag: 'v1' },
    request: { addr: '6.6.6.6', method: 'PUT' },
    actor: { name: 'key:abc' },
    source: { addr: 'x', instanceID: 'y' },
    ...overrides,
  });
  const post = (body: unknown, authorization?: string) =>
    fetch(`${door.url}${EVENTS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.docker.distribution.events.v1+json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
    });

  it('takes events only with the secret, without the platform’s own, and asks again when the hook fails', async () => {
    expect((await post({ events: [event({})] })).status).toBe(401);
    expect((await post({ events: [event({})] }, 'Bearer wrong')).status).toBe(401);
    expect(delivered).toEqual([]);

    const res = await post(
      {
        events: [
          event({ id: 'e1' }),
          event({ id: 'e2', action: 'pull', actor: { name: '' }, target: { digest: `sha256:${'b'.repeat(64)}`, repository: 'reg/app', length: 5 } }),
          event({ id: 'e3', action: 'pull', actor: { name: 'platform' } }),
          event({ id: 'e4', action: 'mount' }),
        ],
      },
      `Bearer ${secret}`,
    );
    expect(res.status).toBe(200);
    expect(delivered).toEqual([
      [
        {
          id: 'e1',
          timestamp: '2030-01-01T00:00:00.000Z',
          action: 'push',
          repository: 'reg/app',
          digest: `sha256:${'a'.repeat(64)}`,
          tag: 'v1',
          mediaType: MANIFEST_MEDIA_TYPE,
          size: 10,
          actor: 'key:abc',
        },
        {
          id: 'e2',
          timestamp: '2030-01-01T00:00:00.000Z',
          action: 'pull',
          repository: 'reg/app',
          digest: `sha256:${'b'.repeat(64)}`,
          tag: null,
          mediaType: '',
          size: 5,
          actor: null,
        },
      ],
    ]);

    failHook = true;
    expect((await post({ events: [event({ id: 'e5' })] }, `Bearer ${secret}`)).status).toBe(500);
    failHook = false;
    expect((await post({ events: [event({ id: 'e5' })] }, `Bearer ${secret}`)).status).toBe(200);
    expect(delivered.at(-1)!.map((e) => e.id)).toEqual(['e5']);
  });
});

describe('registry provider from configuration', () => {
  const NAMES = ['REGISTRY_PROVIDER', 'REGISTRY_BINARY', 'REGISTRY_ENDPOINT_HOST', 'REGISTRY_ENDPOINT_PORT'] as const;
  const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  const configure = (env: Partial<Record<(typeof NAMES)[number], string>>) => {
    Object.assign(process.env, env);
    resetConfigForTests();
    resetRegistryProviderForTests();
  };
  afterEach(() => {
    for (const name of NAMES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    resetConfigForTests();
    resetRegistryProviderForTests();
  });

  it('is one provider per process', () => {
    configure({});
    expect(getRegistryProvider()).toBe(getRegistryProvider());
  });

  it.skipIf(!binary)('is embedded when docker-registry is installed', () => {
    configure({ REGISTRY_ENDPOINT_HOST: 'registry.example.test', REGISTRY_ENDPOINT_PORT: '5050' });
    const provider = getRegistryProvider();
    expect(provider.kind).toBe('embedded');
    expect(provider.host()).toBe('registry.example.test:5050');
    expect(provider.description).toMatch(/^Docker Distribution 2\.\d+\.\d+ on loopback behind the front door at registry\.example\.test:5050$/);
  });

  it('falls back to the simulator, saying so, when the binary is missing', () => {
    configure({ REGISTRY_BINARY: '/nonexistent/docker-registry' });
    const provider = getRegistryProvider();
    expect(provider.kind).toBe('simulator');
    expect(provider.description).toMatch(/^Simulated registry \(no \/nonexistent\/docker-registry binary found\) behind the front door at 127\.0\.0\.1:0$/);
  });

  it('runs the simulator when asked to', () => {
    configure({ REGISTRY_PROVIDER: 'simulator' });
    expect(getRegistryProvider()).toMatchObject({ kind: 'simulator', description: expect.stringMatching(/REGISTRY_PROVIDER=simulator/) });
  });
});

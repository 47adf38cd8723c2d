import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_MEDIA_TYPE, pullImage, pushImage, uploadBlob } from '../../../../test/registryPush';
import { libtrustKeyId, signRegistryToken } from '../jwt';
import type { RegistryAction } from '../types';
import type { RegistryNotification } from './events';
import { startRegistrySimulator, type RegistrySimulator } from './index';

const REALM = 'http://panel.test/v1/registry/token';
const SERVICE = 'registry.panel';
const ISSUER = 'panel-token-issuer';
const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = { privateKey: keys.privateKey, keyId: libtrustKeyId(keys.publicKey), issuer: ISSUER, service: SERVICE };

function token(subject: string | null, grants: Record<string, RegistryAction[]>, withSigner = signer): string {
  const access = Object.entries(grants).map(([repository, actions]) => ({ repository, actions }));
  return signRegistryToken(withSigner, subject, access, 300).token;
}

const sha256 = (data: Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
const bearer = (value: string | null): Record<string, string> => (value ? { authorization: `Bearer ${value}` } : {});

/** Polls until `probe` returns something, failing after the deadline. */
async function until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Receiver {
  url: string;
  deliveries: { headers: IncomingHttpHeaders; body: string; events: RegistryNotification[] }[];
  refused: RegistryNotification[];
  /** How many of the next deliveries answer 500. */
  refuse: number;
  events(): RegistryNotification[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'close'> & { server?: Server } = {
    deliveries: [],
    refused: [],
    refuse: 0,
    events: () => receiver.deliveries.flatMap((delivery) => delivery.events),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const events = (JSON.parse(body) as { events: RegistryNotification[] }).events;
      if (receiver.refuse > 0) {
        receiver.refuse -= 1;
        receiver.refused.push(...events);
        res.writeHead(500).end();
        return;
      }
      receiver.deliveries.push({ headers: req.headers, body, events });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/_registry/events`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function start(dataDir: string, receiver: Receiver): Promise<RegistrySimulator> {
  return startRegistrySimulator({
    dataDir,
    realm: REALM,
    service: SERVICE,
    issuer: ISSUER,
    publicKey: keys.publicKey,
    notifications: { url: receiver.url, authorization: 'Bearer events-secret' },
  });
}

const dataDirs: string[] = [];
function freshDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'registry-sim-'));
  dataDirs.push(dir);
  return dir;
}

let receiver: Receiver;
let registry: RegistrySimulator;
let url: string;

beforeAll(async () => {
  receiver = await startReceiver();
  registry = await start(freshDataDir(), receiver);
  url = registry.url;
});

afterAll(async () => {
  await registry.close();
  await receiver.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const full = (repository: string, subject: string | null = 'key:alice') => token(subject, { [repository]: ['pull', 'push', 'delete'] });

async function errorsOf(res: Response): Promise<{ code: string; message: string; detail?: unknown }[]> {
  return ((await res.json()) as { errors: { code: string; message: string; detail?: unknown }[] }).errors;
}

async function headDigest(repository: string, reference: string, auth = full(repository)): Promise<string | null> {
  const res = await fetch(`${url}/v2/${repository}/manifests/${reference}`, { method: 'HEAD', headers: { ...bearer(auth), accept: MANIFEST_MEDIA_TYPE } });
  return res.status === 200 ? res.headers.get('docker-content-digest') : null;
}

async function putManifest(repository: string, reference: string, body: Buffer, auth = full(repository), contentType = MANIFEST_MEDIA_TYPE) {
  return fetch(`${url}/v2/${repository}/manifests/${reference}`, {
    method: 'PUT',
    headers: { ...bearer(auth), 'content-type': contentType },
    body: new Uint8Array(body),
  });
}

describe('registry simulator', () => {
  it('answers /v2/ only to a valid token, with the API version on every answer', async () => {
    const anonymous = await fetch(`${url}/v2/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer realm="${REALM}",service="${SERVICE}"`);
    expect(anonymous.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    expect(await anonymous.text()).toBe('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required","detail":null}]}\n');

    const ok = await fetch(`${url}/v2/`, { headers: bearer(token(null, {})) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    expect(await ok.json()).toEqual({});
  });

  it('pushes and pulls an image the way clients do', async () => {
    const repository = 'team/push-pull';
    const pushed = await pushImage(url, full(repository), repository, 'v1', { layerCount: 2, layerBytes: 300_000 });
    expect(pushed.status).toBe(201);
    expect(await headDigest(repository, 'v1')).toBe(pushed.digest);

    const pulled = await pullImage(url, full(repository), repository, 'v1');
    expect(pulled.status).toBe(200);
    expect(pulled.bytes).toBe(pushed.sizeBytes - pushed.manifest.length);

    const manifest = await fetch(`${url}/v2/${repository}/manifests/${pushed.digest}`, {
      headers: { ...bearer(full(repository)), accept: MANIFEST_MEDIA_TYPE },
    });
    expect(manifest.headers.get('content-type')).toBe(MANIFEST_MEDIA_TYPE);
    expect(Buffer.from(await manifest.arrayBuffer()).equals(pushed.manifest)).toBe(true);

    const layer = pushed.layers[0]!;
    const blob = await fetch(`${url}/v2/${repository}/blobs/${layer.digest}`, { method: 'HEAD', headers: bearer(full(repository)) });
    expect(blob.status).toBe(200);
    expect(blob.headers.get('content-length')).toBe(String(layer.size));
    expect(blob.headers.get('docker-content-digest')).toBe(layer.digest);
    expect(blob.headers.get('content-type')).toBe('application/octet-stream');

    const tags = await fetch(`${url}/v2/${repository}/tags/list`, { headers: bearer(full(repository)) });
    expect(await tags.json()).toEqual({ name: repository, tags: ['v1'] });
  });

  it('makes a blob visible only in the repositories it was uploaded or mounted to', async () => {
    const data = randomBytes(64);
    const digest = await uploadBlob(url, full('team/owner'), 'team/owner', data);
    const elsewhere = await fetch(`${url}/v2/team/stranger/blobs/${digest}`, { headers: bearer(full('team/stranger')) });
    expect(elsewhere.status).toBe(404);
    expect(await errorsOf(elsewhere)).toEqual([{ code: 'BLOB_UNKNOWN', message: 'blob unknown to registry', detail: digest }]);

    const both = token('key:alice', { 'team/mounted': ['pull', 'push'], 'team/owner': ['pull'] });
    const mounted = await fetch(`${url}/v2/team/mounted/blobs/uploads/?mount=${digest}&from=team/owner`, { method: 'POST', headers: bearer(both) });
    expect(mounted.status).toBe(201);
    expect(mounted.headers.get('location')).toBe(`/v2/team/mounted/blobs/${digest}`);
    expect(mounted.headers.get('docker-content-digest')).toBe(digest);
    expect((await fetch(`${url}/v2/team/mounted/blobs/${digest}`, { headers: bearer(both) })).status).toBe(200);
    await until(() => receiver.events().find((event) => event.action === 'mount' && event.target.repository === 'team/mounted'), 'the mount event');

    const missing = sha256(Buffer.from('never uploaded'));
    const upload = await fetch(`${url}/v2/team/mounted/blobs/uploads/?mount=${missing}&from=team/owner`, { method: 'POST', headers: bearer(both) });
    expect(upload.status).toBe(202);
  });

  it('challenges with exactly the scope of the refused request', async () => {
    const repository = 'team/guarded';
    const challenge = (scope: string, error?: string) => `Bearer realm="${REALM}",service="${SERVICE}",scope="${scope}"${error ? `,error="${error}"` : ''}`;
    const detail = (...actions: string[]) => actions.map((Action) => ({ Type: 'repository', Class: '', Name: repository, Action }));

    const anonymous = await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:pull,push`));
    expect(await errorsOf(anonymous)).toEqual([{ code: 'UNAUTHORIZED', message: 'authentication required', detail: detail('pull', 'push') }]);

    const otherRepository = await fetch(`${url}/v2/${repository}/manifests/v1`, { headers: bearer(full('team/elsewhere')) });
    expect(otherRepository.status).toBe(401);
    expect(otherRepository.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:pull`, 'insufficient_scope'));

    const pullOnly = await pushImage(url, token('key:reader', { [repository]: ['pull'] }), repository, 'v1');
    expect(pullOnly.status).toBe(401);
    expect(JSON.parse(pullOnly.body)).toEqual({ errors: [{ code: 'UNAUTHORIZED', message: 'authentication required', detail: detail('pull', 'push') }] });
    const pushing = await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: bearer(token('key:reader', { [repository]: ['pull'] })) });
    expect(pushing.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:pull,push`, 'insufficient_scope'));

    const digest = sha256(Buffer.from('anything'));
    const deleting = await fetch(`${url}/v2/${repository}/manifests/${digest}`, {
      method: 'DELETE',
      headers: bearer(token('key:writer', { [repository]: ['pull', 'push'] })),
    });
    expect(deleting.status).toBe(401);
    expect(deleting.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:delete`, 'insufficient_scope'));
    expect(await errorsOf(deleting)).toEqual([{ code: 'UNAUTHORIZED', message: 'authentication required', detail: detail('delete') }]);

    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = token('key:alice', { [repository]: ['pull'] }, { ...signer, privateKey: stranger.privateKey, keyId: libtrustKeyId(stranger.publicKey) });
    const invalid = await fetch(`${url}/v2/${repository}/tags/list`, { headers: bearer(forged) });
    expect(invalid.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:pull`, 'invalid_token'));

    // A mount needs pull on the source as well, and the challenge names both repositories.
    const mount = await fetch(`${url}/v2/${repository}/blobs/uploads/?mount=${digest}&from=team/source`, { method: 'POST', headers: bearer(full(repository)) });
    expect(mount.status).toBe(401);
    expect(mount.headers.get('www-authenticate')).toBe(challenge(`repository:${repository}:pull,push repository:team/source:pull`, 'insufficient_scope'));
  });

  it('refuses an upload whose content does not match the digest', async () => {
    const repository = 'team/digests';
    const started = await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: bearer(full(repository)) });
    expect(started.status).toBe(202);
    expect(started.headers.get('range')).toBe('0-0');
    expect(started.headers.get('docker-upload-uuid')).toMatch(/^[0-9a-f-]{36}$/);
    const location = new URL(started.headers.get('location')!, url);
    expect(location.pathname).toBe(`/v2/${repository}/blobs/uploads/${started.headers.get('docker-upload-uuid')}`);

    const claimed = sha256(Buffer.from('something else'));
    location.searchParams.set('digest', claimed);
    const put = await fetch(location, { method: 'PUT', headers: bearer(full(repository)), body: new Uint8Array(Buffer.from('actual content')) });
    expect(put.status).toBe(400);
    expect(await errorsOf(put)).toEqual([
      { code: 'DIGEST_INVALID', message: 'provided digest did not match uploaded content', detail: { Digest: claimed, Reason: {} } },
    ]);
    const head = await fetch(`${url}/v2/${repository}/blobs/${claimed}`, { method: 'HEAD', headers: bearer(full(repository)) });
    expect(head.status).toBe(404);
  });

  it('uploads in chunks, reports progress, and refuses stale or cancelled uploads', async () => {
    const repository = 'team/chunks';
    const auth = bearer(full(repository));
    const data = randomBytes(100_000);
    const started = await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: auth });
    const first = new URL(started.headers.get('location')!, url);
    const patched = await fetch(first, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(data.subarray(0, 60_000)),
    });
    expect(patched.status).toBe(202);
    expect(patched.headers.get('range')).toBe('0-59999');
    const second = new URL(patched.headers.get('location')!, url);

    const status = await fetch(second, { headers: auth });
    expect(status.status).toBe(204);
    expect(status.headers.get('range')).toBe('0-59999');

    // The first Location's state says offset 0: Distribution refuses it once data arrived.
    const stale = await fetch(first, { method: 'PATCH', headers: auth, body: new Uint8Array(data.subarray(60_000)) });
    expect(stale.status).toBe(404);
    expect((await errorsOf(stale))[0]!.code).toBe('BLOB_UPLOAD_INVALID');

    second.searchParams.set('digest', sha256(data));
    const done = await fetch(second, { method: 'PUT', headers: auth, body: new Uint8Array(data.subarray(60_000)) });
    expect(done.status).toBe(201);
    expect(done.headers.get('location')).toBe(`/v2/${repository}/blobs/${sha256(data)}`);
    const blob = await fetch(`${url}/v2/${repository}/blobs/${sha256(data)}`, { headers: auth });
    expect(Buffer.from(await blob.arrayBuffer()).equals(data)).toBe(true);

    // 2.8 ignores ?digest= on the POST: a monolithic upload still starts a session.
    const monolithic = await fetch(`${url}/v2/${repository}/blobs/uploads/?digest=${sha256(data)}`, {
      method: 'POST',
      headers: auth,
      body: new Uint8Array(data),
    });
    expect(monolithic.status).toBe(202);

    const cancelled = new URL((await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: auth })).headers.get('location')!, url);
    expect((await fetch(cancelled, { method: 'DELETE', headers: auth })).status).toBe(204);
    const gone = await fetch(cancelled, { headers: auth });
    expect(gone.status).toBe(404);
    expect((await errorsOf(gone))[0]!.code).toBe('BLOB_UPLOAD_UNKNOWN');
  });

  it('refuses a manifest that references a blob the repository does not have', async () => {
    const repository = 'team/incomplete';
    const config = await uploadBlob(url, full(repository), repository, Buffer.from('{}'));
    // Uploaded, but to another repository: Distribution checks this repository's links.
    const foreign = await uploadBlob(url, full('team/other-repo'), 'team/other-repo', randomBytes(32));
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MANIFEST_MEDIA_TYPE,
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: config, size: 2 },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: foreign, size: 32 }],
      }),
    );
    const res = await putManifest(repository, 'v1', manifest);
    expect(res.status).toBe(400);
    expect(await errorsOf(res)).toEqual([{ code: 'MANIFEST_BLOB_UNKNOWN', message: 'blob unknown to registry', detail: foreign }]);

    const invalid = await putManifest(repository, 'v1', Buffer.from('{"schemaVersion":2,"mediaType":"something/else"}'));
    expect(invalid.status).toBe(400);
    expect((await errorsOf(invalid))[0]!.code).toBe('MANIFEST_INVALID');

    const tooLarge = await putManifest(repository, 'v1', Buffer.alloc((4 << 20) + 1, 32));
    expect(tooLarge.status).toBe(400);
    expect(await errorsOf(tooLarge)).toEqual([{ code: 'MANIFEST_INVALID', message: 'manifest invalid', detail: 'http: request body too large' }]);

    const byDigest = await putManifest(repository, sha256(Buffer.from('not this body')), manifest);
    expect(byDigest.status).toBe(400);
    expect((await errorsOf(byDigest))[0]!.code).toBe('DIGEST_INVALID');
  });

  it('moves a tag to the digest pushed last', async () => {
    const repository = 'team/moving';
    const first = await pushImage(url, full(repository), repository, 'v1');
    const second = await pushImage(url, full(repository), repository, 'v1');
    expect(second.digest).not.toBe(first.digest);
    expect(await headDigest(repository, 'v1')).toBe(second.digest);
    // The first manifest stays, by digest.
    expect(await headDigest(repository, first.digest)).toBe(first.digest);
  });

  it('deletes by digest with every tag naming it, answers tags null after, and refuses deleting by tag', async () => {
    const repository = 'team/deleting';
    const auth = bearer(full(repository));
    const image = await pushImage(url, full(repository), repository, 'v1');
    expect((await putManifest(repository, 'latest', image.manifest)).status).toBe(201);

    const byTag = await fetch(`${url}/v2/${repository}/manifests/v1`, { method: 'DELETE', headers: auth });
    expect(byTag.status).toBe(400);
    expect(await errorsOf(byTag)).toEqual([{ code: 'DIGEST_INVALID', message: 'provided digest did not match uploaded content' }]);

    const deleted = await fetch(`${url}/v2/${repository}/manifests/${image.digest}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(202);
    expect(await headDigest(repository, 'v1')).toBeNull();
    const tags = await fetch(`${url}/v2/${repository}/tags/list`, { headers: auth });
    expect(await tags.text()).toBe(`{"name":"${repository}","tags":null}\n`);

    const again = await fetch(`${url}/v2/${repository}/manifests/${image.digest}`, { method: 'DELETE', headers: auth });
    expect(again.status).toBe(404);
    expect((await errorsOf(again))[0]!.code).toBe('MANIFEST_UNKNOWN');

    const unknown = await fetch(`${url}/v2/team/never-pushed/tags/list`, { headers: bearer(full('team/never-pushed')) });
    expect(unknown.status).toBe(404);
    expect(await errorsOf(unknown)).toEqual([
      { code: 'NAME_UNKNOWN', message: 'repository name not known to registry', detail: { name: 'team/never-pushed' } },
    ]);

    // One delete event for the manifest, then one per tag it removed.
    const deletions = await until(() => {
      const found = receiver.events().filter((event) => event.action === 'delete' && event.target.repository === repository);
      return found.length === 3 && found;
    }, 'the delete events');
    expect(deletions.map((event) => event.target)).toEqual([
      { digest: image.digest, repository },
      { repository, tag: 'latest' },
      { repository, tag: 'v1' },
    ]);
  });

  it('pages the tags list with n, last and a Link header', async () => {
    const repository = 'team/paged';
    const image = await pushImage(url, full(repository), repository, 'a');
    for (const tag of ['b', 'c']) expect((await putManifest(repository, tag, image.manifest)).status).toBe(201);
    const auth = bearer(full(repository));
    const page = await fetch(`${url}/v2/${repository}/tags/list?n=2`, { headers: auth });
    expect(await page.json()).toEqual({ name: repository, tags: ['a', 'b'] });
    expect(page.headers.get('link')).toBe(`</v2/${repository}/tags/list?last=b&n=2>; rel="next"`);
    const next = await fetch(`${url}/v2/${repository}/tags/list?last=b&n=2`, { headers: auth });
    expect(await next.json()).toEqual({ name: repository, tags: ['c'] });
    expect(next.headers.get('link')).toBeNull();
    const bad = await fetch(`${url}/v2/${repository}/tags/list?n=-1`, { headers: auth });
    expect((await errorsOf(bad))[0]!.code).toBe('PAGINATION_NUMBER_INVALID');
  });

  it('checks an index against the manifests of the repository and serves it by Accept', async () => {
    const repository = 'team/multi';
    const image = await pushImage(url, full(repository), repository, 'amd64');
    const index = (digest: string) =>
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: INDEX_MEDIA_TYPE,
          manifests: [{ mediaType: MANIFEST_MEDIA_TYPE, digest, size: image.manifest.length, platform: { architecture: 'amd64', os: 'linux' } }],
        }),
      );
    const missing = sha256(Buffer.from('no such manifest'));
    const refused = await putManifest(repository, 'latest', index(missing), full(repository), INDEX_MEDIA_TYPE);
    expect(refused.status).toBe(400);
    expect(await errorsOf(refused)).toEqual([{ code: 'MANIFEST_BLOB_UNKNOWN', message: 'blob unknown to registry', detail: missing }]);

    expect((await putManifest(repository, 'latest', index(image.digest), full(repository), INDEX_MEDIA_TYPE)).status).toBe(201);
    const auth = bearer(full(repository));
    const withoutAccept = await fetch(`${url}/v2/${repository}/manifests/latest`, { headers: { ...auth, accept: MANIFEST_MEDIA_TYPE } });
    expect(withoutAccept.status).toBe(404);
    expect(await errorsOf(withoutAccept)).toEqual([{ code: 'MANIFEST_UNKNOWN', message: 'OCI index found, but accept header does not support OCI indexes' }]);
    const served = await fetch(`${url}/v2/${repository}/manifests/latest`, { headers: { ...auth, accept: INDEX_MEDIA_TYPE } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(INDEX_MEDIA_TYPE);
  });

  it('routes names as Distribution does', async () => {
    const upper = await fetch(`${url}/v2/Team/App/manifests/v1`, { headers: bearer(full('Team/App')) });
    expect(upper.status).toBe(404);
    expect(await upper.text()).toBe('404 page not found\n');

    // Authorization comes first; then reference.WithName refuses the length with a 500.
    const long = `team/${'a'.repeat(251)}`;
    expect((await fetch(`${url}/v2/${long}/tags/list`)).status).toBe(401);
    const tooLong = await fetch(`${url}/v2/${long}/tags/list`, { headers: bearer(full(long)) });
    expect(tooLong.status).toBe(500);
    expect(await errorsOf(tooLong)).toEqual([{ code: 'UNKNOWN', message: 'unknown error', detail: { Name: long, Reason: {} } }]);

    const redirected = await fetch(`${url}/v2`, { redirect: 'manual' });
    expect(redirected.status).toBe(301);
    expect(redirected.headers.get('location')).toBe('/v2/');
  });

  it('notifies pushes with their tag and pulls with the token subject as actor', async () => {
    const repository = 'team/notified';
    const pushed = await pushImage(url, full(repository, 'key:pusher'), repository, 'v1');
    const push = await until(
      () => receiver.events().find((event) => event.action === 'push' && event.target.repository === repository && event.target.tag === 'v1'),
      'the manifest push event',
    );
    expect(push.target).toEqual({
      mediaType: MANIFEST_MEDIA_TYPE,
      size: pushed.manifest.length,
      digest: pushed.digest,
      length: pushed.manifest.length,
      repository,
      url: `/v2/${repository}/manifests/${pushed.digest}`,
      tag: 'v1',
    });
    expect(push.actor).toEqual({ name: 'key:pusher' });
    expect(push.request).toMatchObject({ method: 'PUT', addr: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    expect(push.source.instanceID).toMatch(/^[0-9a-f-]{36}$/);
    const blobPushes = receiver.events().filter((event) => event.action === 'push' && event.target.repository === repository && !event.target.tag);
    expect(blobPushes.map((event) => event.target.mediaType)).toEqual(['application/octet-stream', 'application/octet-stream']);
    const delivery = receiver.deliveries.find((candidate) => candidate.events.includes(push))!;
    expect(delivery.headers['content-type']).toBe('application/vnd.docker.distribution.events.v1+json');
    expect(delivery.headers.authorization).toBe('Bearer events-secret');

    await pullImage(url, token('key:puller', { [repository]: ['pull'] }), repository, 'v1');
    const pulls = await until(() => {
      const found = receiver.events().filter((event) => event.action === 'pull' && event.actor.name === 'key:puller');
      return found.length === 3 && found;
    }, 'the pull events');
    expect(pulls.map((event) => event.target.mediaType)).toEqual([MANIFEST_MEDIA_TYPE, 'application/octet-stream', 'application/octet-stream']);
    expect(pulls[0]!.target.tag).toBe('v1');

    // Anonymous: Distribution leaves the actor's name out (Go's omitempty), i.e. "".
    await fetch(`${url}/v2/${repository}/manifests/${pushed.digest}`, {
      method: 'HEAD',
      headers: { ...bearer(token(null, { [repository]: ['pull'] })), accept: MANIFEST_MEDIA_TYPE, 'x-forwarded-for': '203.0.113.9, 10.0.0.1' },
    });
    const anonymous = await until(
      () => receiver.events().find((event) => event.action === 'pull' && event.request.method === 'HEAD' && event.target.repository === repository),
      'the anonymous pull event',
    );
    expect(anonymous.actor).toEqual({});
    expect(anonymous.actor.name ?? '').toBe('');
    expect(anonymous.target.tag).toBeUndefined();
    expect(anonymous.request.addr).toBe('203.0.113.9');
  });

  it('delivers again, in order, after the receiver refused a delivery', async () => {
    const repository = 'team/retried';
    // Let earlier tests' events drain first, so the refused delivery is this test's first event.
    const marker = await uploadBlob(url, full('team/marker'), 'team/marker', randomBytes(16));
    await until(() => receiver.events().find((event) => event.target.digest === marker), 'the marker event');
    receiver.refuse = 1;
    const pushed = await pushImage(url, full(repository), repository, 'v1');
    const events = await until(() => {
      const found = receiver.events().filter((event) => event.target.repository === repository);
      return found.length === 3 && found;
    }, 'the redelivered events');
    expect(receiver.refused).toHaveLength(1);
    expect(events[0]!.id).toBe(receiver.refused[0]!.id);
    expect(events.map((event) => event.target.tag ?? event.target.digest)).toEqual([pushed.layers[0]!.digest, expect.stringMatching(/^sha256:/), 'v1']);
  });
});

describe('registry simulator storage', () => {
  it('keeps images, tags and uploads in progress across a restart over the same data directory', async () => {
    const dataDir = freshDataDir();
    const repository = 'team/durable';
    let restarted = await start(dataDir, receiver);
    const image = await pushImage(restarted.url, full(repository), repository, 'v1', { layerCount: 2 });
    const started = await fetch(`${restarted.url}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: bearer(full(repository)) });
    const patched = await fetch(new URL(started.headers.get('location')!, restarted.url), {
      method: 'PATCH',
      headers: bearer(full(repository)),
      body: new Uint8Array(Buffer.from('half')),
    });
    const location = patched.headers.get('location')!;
    await restarted.close();

    restarted = await start(dataDir, receiver);
    try {
      const pulled = await pullImage(restarted.url, full(repository), repository, 'v1');
      expect(pulled.status).toBe(200);
      const tags = await fetch(`${restarted.url}/v2/${repository}/tags/list`, { headers: bearer(full(repository)) });
      expect(await tags.json()).toEqual({ name: repository, tags: ['v1'] });
      expect(image.status).toBe(201);

      const finish = new URL(location, restarted.url);
      finish.searchParams.set('digest', sha256(Buffer.from('half and half')));
      const done = await fetch(finish, { method: 'PUT', headers: bearer(full(repository)), body: new Uint8Array(Buffer.from(' and half')) });
      expect(done.status).toBe(201);
    } finally {
      await restarted.close();
    }
  });

  it('collects garbage: frees blobs no manifest references and keeps the referenced ones', async () => {
    const dataDir = freshDataDir();
    const gc = await start(dataDir, receiver);
    try {
      const repository = 'team/garbage';
      const auth = bearer(full(repository));
      const kept = await pushImage(gc.url, full(repository), repository, 'kept');
      const orphan = await uploadBlob(gc.url, full(repository), repository, randomBytes(128));
      const dropped = await pushImage(gc.url, full(repository), repository, 'dropped');
      expect((await fetch(`${gc.url}/v2/${repository}/manifests/${dropped.digest}`, { method: 'DELETE', headers: auth })).status).toBe(202);
      const files = () => readdirSync(path.join(dataDir, 'blobs', 'sha256')).map((hex) => `sha256:${hex}`);
      expect(files()).toEqual(expect.arrayContaining([orphan, dropped.digest, dropped.layers[0]!.digest]));

      await gc.collectGarbage();

      const status = async (digest: string) => (await fetch(`${gc.url}/v2/${repository}/blobs/${digest}`, { method: 'HEAD', headers: auth })).status;
      expect(await status(orphan)).toBe(404);
      expect(await status(dropped.layers[0]!.digest)).toBe(404);
      expect(await status(kept.layers[0]!.digest)).toBe(200);
      expect(files()).not.toContain(orphan);
      expect(files()).not.toContain(dropped.digest);
      expect(files()).toEqual(expect.arrayContaining([kept.digest, kept.layers[0]!.digest]));
      expect((await pullImage(gc.url, full(repository), repository, 'kept')).status).toBe(200);
    } finally {
      await gc.close();
    }
  });
});

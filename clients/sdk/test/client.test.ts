import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CLIENT_CODES, createClient, WaitError, type RetryEvent } from '../src/index.ts';
import { newWorld, type World } from '../../test/world.ts';

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl sdk-test';

let world: World;
beforeAll(async () => {
  world = await newWorld('sdk');
});

const projectPath = () => ({ params: { path: { projectId: world.projectId } } });

describe('calls', () => {
  it('resolve to the envelope’s data, typed from the document', async () => {
    const key = await world.client.post('/projects/{projectId}/ssh-keys', { ...projectPath(), body: { name: 'laptop', publicKey: PUBLIC_KEY } });
    expect(key).toMatchObject({ name: 'laptop', keyType: 'ssh-ed25519', organizationId: world.projectId });
    expect(key.fingerprint).toMatch(/^SHA256:/);
    const keys = await world.client.get('/projects/{projectId}/ssh-keys', projectPath());
    expect(keys.map((k) => k.id)).toContain(key.id);
    await world.client.delete('/projects/{projectId}/ssh-keys/{sshKeyId}', { params: { path: { projectId: world.projectId, sshKeyId: key.id } } });
  });

  it('reject with one ApiError carrying status, code, message, fields and the request id', async () => {
    const missing = await world.client
      .get('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: world.projectId, serverId: 'srv_nope' } } })
      .catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((missing as ApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    const invalid = await world.client
      .post('/projects/{projectId}/ssh-keys', { ...projectPath(), body: { name: '', publicKey: 'not a key' } })
      .catch((err: unknown) => err);
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
    expect(Object.keys((invalid as ApiError).fields ?? {})).toEqual(expect.arrayContaining(['name']));
    expect((invalid as ApiError).message.length).toBeGreaterThan(0);

    const anonymous = await createClient({ baseUrl: world.baseUrl })
      .get('/projects')
      .catch((err: unknown) => err);
    expect(anonymous).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    const narrow = createClient({ baseUrl: world.baseUrl, apiKey: await world.keyWith(['servers:read']) });
    const unscoped = await narrow.get('/projects/{projectId}/secrets', projectPath()).catch((err: unknown) => err);
    expect(unscoped).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('say NETWORK_ERROR when nothing answers, after retrying', async () => {
    const retries: RetryEvent[] = [];
    const down = createClient({ baseUrl: 'http://127.0.0.1:9', retries: 2, baseDelayMs: 1, onRetry: (event) => void retries.push(event) });
    const failure = await down.get('/catalog/servers/sizes').catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: 0, code: CLIENT_CODES.network });
    expect((failure as ApiError).message).toMatch(/^No answer from the API: /);
    expect(retries.map((r) => r.status)).toEqual([0, 0]);
  });

  it('answer the OAuth starts with where the browser goes, not by following it', async () => {
    const start = await world.client.get('/projects/{projectId}/integrations/git-host-2/connect', projectPath());
    expect(start.location).toMatch(/^https?:\/\//);
    expect(new URL(start.location).searchParams.get('state')).toBeTruthy();
  });

  it('accept the base URL with or without /v1', async () => {
    for (const baseUrl of [world.baseUrl, `${world.baseUrl}/`, `${world.baseUrl}/v1`]) {
      const client = createClient({ baseUrl, apiKey: world.apiKey });
      expect(client.apiUrl).toBe(`${world.baseUrl}/v1`);
      expect((await client.get('/projects'))[0]!.id).toBe(world.projectId);
    }
  });
});

describe('files', () => {
  it('upload and download any bytes as a Blob, through the operations that take and give a file', async () => {
    const siteName = `sdk_${Date.now().toString(36)}`;
    const { tenantId } = await world.client.post('/projects/{projectId}/hosting/shared', { ...projectPath(), body: { siteName } });
    const sitePath = { projectId: world.projectId, tenantId };
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7919) % 256);
    const placed = await world.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/upload', {
      params: { path: sitePath, query: { path: 'public_html', name: 'logo.bin' } },
      body: new Blob([bytes]),
    });
    expect(placed).toMatchObject({ path: 'public_html/logo.bin', size: bytes.length });
    const file = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files/download', {
      params: { path: sitePath, query: { path: 'public_html/logo.bin' } },
    });
    expect(file).toBeInstanceOf(Blob);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);

    const folder = await world.client
      .get('/projects/{projectId}/hosting/shared/{tenantId}/files/download', { params: { path: sitePath, query: { path: 'public_html' } } })
      .catch((err: unknown) => err);
    expect(folder).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    await world.client.delete('/projects/{projectId}/hosting/shared/{tenantId}', { params: { path: sitePath } });
  });
});

describe('writes are safe to repeat', () => {
  it('a write whose answer was lost is sent again with the same key, and the server does it once', async () => {
    const seen: Array<{ key: string | null; replayed: string | null }> = [];
    let dropped = false;
    const lossy = createClient({
      baseUrl: world.baseUrl,
      apiKey: world.apiKey,
      baseDelayMs: 1,
      fetch: async (request) => {
        const response = await fetch(request);
        seen.push({ key: request.headers.get('idempotency-key'), replayed: response.headers.get('idempotent-replayed') });
        if (request.method === 'POST' && !dropped) {
          dropped = true;
          throw new TypeError('fetch failed: the connection was reset');
        }
        return response;
      },
    });
    const secret = await lossy.post('/projects/{projectId}/secrets', { ...projectPath(), body: { name: 'LOST_ANSWER', value: 's3cr3t-value' } });
    expect(secret.name).toBe('LOST_ANSWER');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).toEqual({ key: seen[0]!.key, replayed: 'true' });
    const named = (await world.client.get('/projects/{projectId}/secrets', projectPath())).filter((s) => s.name === 'LOST_ANSWER');
    expect(named).toHaveLength(1);
  });

  it('the caller’s own Idempotency-Key replays the first answer; reused with another body it is refused', async () => {
    const key = `sdk-${Date.now()}`;
    const body = { name: 'REPLAYED', value: 'first' };
    const first = await world.client.post('/projects/{projectId}/secrets', { ...projectPath(), body, idempotencyKey: key });
    const again = await world.client.post('/projects/{projectId}/secrets', { ...projectPath(), body, idempotencyKey: key });
    expect(again).toEqual(first);
    const reused = await world.client
      .post('/projects/{projectId}/secrets', { ...projectPath(), body: { name: 'OTHER', value: 'x' }, idempotencyKey: key })
      .catch((err: unknown) => err);
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });
});

describe('rate limits', () => {
  it('a 429 is waited out as Retry-After says, and the calls go through', async () => {
    const apiKey = await world.keyWith(['servers:read']);
    const strict = createClient({ baseUrl: world.baseUrl, apiKey, retries: 0 });
    const read = (client: typeof strict) => client.get('/projects/{projectId}/servers', projectPath());
    // Spend the key's budget (600 a minute) until the server refuses.
    let refused: ApiError | undefined;
    for (let round = 0; round < 20 && !refused; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          read(strict).then(
            () => undefined,
            (err: unknown) => err,
          ),
        ),
      );
      refused = answers.find((answer): answer is ApiError => answer instanceof ApiError);
    }
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(refused!.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    const retries: RetryEvent[] = [];
    const patient = createClient({ baseUrl: world.baseUrl, apiKey, onRetry: (event) => void retries.push(event) });
    const results = await Promise.all(Array.from({ length: 15 }, () => read(patient)));
    expect(results.every((servers) => Array.isArray(servers))).toBe(true);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((r) => r.status === 429 && r.delayMs >= 1000)).toBe(true);
  });
});

describe('waitFor', () => {
  it('polls a resource until it reaches the state, and gives up with WaitError', async () => {
    const sizes = await world.client.get('/catalog/servers/sizes');
    const size = sizes.find((s) => s.available && s.diskGb >= 25)!;
    await world.client.post('/projects/{projectId}/servers', {
      ...projectPath(),
      body: { name: 'waited', slug: size.slug, region: size.regions[0]!, provider: 'infra' },
    });
    const server = (await world.client.get('/projects/{projectId}/servers', projectPath())).find((s) => s.name === 'waited')!;
    const read = () => world.client.get('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: world.projectId, serverId: server.id } } });

    const seen: string[] = [];
    const running = await world.client.waitFor(read, {
      until: (s) => s.status === 'RUNNING',
      intervalMs: 200,
      timeoutMs: 30_000,
      onPoll: (s) => void seen.push(s.status),
    });
    expect(running.status).toBe('RUNNING');
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['PROVISIONING']));

    const timedOut = await world.client.waitFor(read, { until: (s) => s.status === 'OFF', intervalMs: 50, timeoutMs: 200 }).catch((err: unknown) => err);
    expect(timedOut).toBeInstanceOf(WaitError);
    expect(timedOut).toMatchObject({ reason: 'timeout', last: { status: 'RUNNING' } });

    const failed = await world.client
      .waitFor(read, { until: (s) => s.status === 'OFF', failWhen: (s) => s.status === 'RUNNING' && 'it is running' })
      .catch((err: unknown) => err);
    expect(failed).toMatchObject({ reason: 'failed', message: 'it is running' });

    await world.client.delete('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: world.projectId, serverId: server.id } } });
  });
});

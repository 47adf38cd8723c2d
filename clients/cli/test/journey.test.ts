import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError, createClient } from '@cloudpanel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { cloud, envFor, freshConfigDir } from './cli.ts';

/** An OpenSSH public key line of a fresh ed25519 key, written to a file as `ssh-keygen` would. */
function publicKeyFile(dir: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const name = Buffer.from('ssh-ed25519');
  const blob = Buffer.concat([Buffer.from([0, 0, 0, name.length]), name, Buffer.from([0, 0, 0, 32]), raw]);
  const file = path.join(dir, 'id_ed25519.pub');
  writeFileSync(file, `ssh-ed25519 ${blob.toString('base64')} journey@laptop\n`);
  return file;
}

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('a customer’s journey from the shell', () => {
  it('signs in, adds an SSH key, buys a server with --wait, sets a secret from stdin, lists it all as JSON and deletes it all', async () => {
    const world = await newWorld('journey');
    const configDir = freshConfigDir();
    const env = { CLOUD_API_URL: world.baseUrl, CLOUD_CONFIG_DIR: configDir };
    const ok = async (args: string[], stdin?: string) => {
      const result = await cloud(args, { env, stdin });
      expect(result.code, `cloud ${args.join(' ')}\n${result.stderr}`).toBe(0);
      return result;
    };

    await ok(['auth', 'login'], world.apiKey);
    const key = (await ok(['ssh-keys', 'add', 'laptop', '--public-key-file', publicKeyFile(configDir), '--json'])).json<{ id: string; fingerprint: string }>();
    const server = (await ok(['servers', 'create', 'web-1', '--size', 's-1vcpu-1gb', '--region', 'fra1', '--ssh-key', key.id, '--wait', '--json'])).json<{
      id: string;
      status: string;
    }>();
    expect(server.status).toBe('RUNNING');
    const withKeys = await world.client.get('/projects/{projectId}/servers/{serverId}', {
      params: { path: { projectId: world.projectId, serverId: server.id } },
    });
    expect(withKeys.status).toBe('RUNNING');

    const secretValue = `s3cr3t-${Date.now()}`;
    const set = await ok(['secrets', 'set', 'DATABASE_PASSWORD'], `${secretValue}\n`);
    expect(set.stdout + set.stderr).not.toContain(secretValue);

    const servers = (await ok(['servers', 'list', '--json'])).json<Array<{ id: string }>>();
    const keys = (await ok(['ssh-keys', 'list', '--json'])).json<Array<{ id: string }>>();
    const secrets = (await ok(['secrets', 'list', '--json'])).json<Array<{ id: string; name: string }>>();
    expect(servers.map((s) => s.id)).toEqual([server.id]);
    expect(keys.map((k) => k.id)).toEqual([key.id]);
    expect(secrets.map((s) => s.name)).toEqual(['DATABASE_PASSWORD']);
    const got = await ok(['secrets', 'get', secrets[0]!.id, '--json']);
    expect(got.stdout).not.toContain(secretValue);

    await ok(['secrets', 'delete', secrets[0]!.id, '--yes']);
    await ok(['servers', 'delete', server.id, '--yes']);
    await ok(['ssh-keys', 'delete', key.id]);
    for (const area of ['servers', 'ssh-keys', 'secrets']) expect((await ok([area, 'list', '--json'])).json()).toEqual([]);
  });

  it('rides out a rate limit: the command waits as Retry-After says and succeeds', async () => {
    const world = await newWorld('journey-429');
    const apiKey = await world.keyWith(['servers:read']);
    const strict = createClient({ baseUrl: world.baseUrl, apiKey, retries: 0 });
    let limited = false;
    for (let round = 0; round < 20 && !limited; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          strict.get('/projects/{projectId}/servers', { params: { path: { projectId: world.projectId } } }).catch((err: unknown) => err),
        ),
      );
      limited = answers.some((answer) => answer instanceof ApiError && answer.status === 429);
    }
    expect(limited).toBe(true);
    const listed = await cloud(['servers', 'list', '--json'], { env: { ...envFor(world), CLOUD_API_KEY: apiKey } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/HTTP 429 from http:\/\/127\.0\.0\.1:\d+; trying again in \d+\.\d s \(retry 1\)/);
    expect(listed.json()).toEqual([]);
  });

  it('sends a write whose answer was lost again with the same Idempotency-Key, and the platform does it once', async () => {
    const world = await newWorld('journey-replay');
    const keys: Array<string | null> = [];
    const replays: Array<string | null> = [];
    let dropped = false;
    globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await realFetch(request);
      if (request.method === 'POST') {
        keys.push(request.headers.get('idempotency-key'));
        replays.push(response.headers.get('idempotent-replayed'));
        if (!dropped) {
          dropped = true;
          throw new TypeError('fetch failed: the connection was reset after the request was sent');
        }
      }
      return response;
    };
    const set = await cloud(['secrets', 'set', 'ONCE'], { env: envFor(world), stdin: 'value-1' });
    globalThis.fetch = realFetch;
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('no answer from');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(replays).toEqual([null, 'true']);
    const secrets = await world.client.get('/projects/{projectId}/secrets', { params: { path: { projectId: world.projectId } } });
    expect(secrets.filter((s) => s.name === 'ONCE')).toHaveLength(1);
  });
});

import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as trpcPost } from '../../app/api/trpc/[trpc]/route';
import { appRouter, JOBS, restApi } from '../../server/app';
import { createRequestContext } from '../../server/platform/context';
import { IDEMPOTENCY_LOCK_MS } from '../../server/platform/idempotency';
import { PURGE_IDEMPOTENCY_KEYS } from '../../server/platform/jobs/maintenance';
import { createCallerFactory } from '../../server/platform/trpc';
import { consumeRateLimit, refundRateLimit } from '../../server/platform/rateLimit';
import { SSH_KEY_GENERATIONS_PER_HOUR } from '../../server/domains/sshKeys/service';
import { getInfraProvider } from '../../server/providers/infra';
import { ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, ORIGIN, type ApiResult, type Credentials, type TestUser } from '../helpers';
import { configureInfra, listServers, paidProject, registerKey } from './serverFixtures';

beforeEach(() => {
  vi.restoreAllMocks();
  configureInfra({ INFRA_SIM_PROVISION_SECONDS: '0', INFRA_SIM_ACTION_SECONDS: '0', INFRA_SIM_FAIL: '' });
});

let keyCounter = 0;
/** A fresh Idempotency-Key, as a client generates one per request. */
const newKey = () => `key-${process.pid}-${(keyCounter += 1)}`;

function withKey<T>(method: string, path: string, options: Credentials & { body?: unknown }, key: string): Promise<ApiResult<T>> {
  return api<T>(method, path, { ...options, headers: { 'idempotency-key': key } });
}

const replayed = (res: ApiResult) => res.headers.get('idempotent-replayed');

const SERVER_BODY = { name: 'web-1', slug: 's-1vcpu-1gb', provider: 'infra', region: 'fra1', sshKeyIds: [] };

async function projectNames(user: TestUser): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(sql`select name from projects where created_by_user_id = ${user.id} order by name`);
  return rows.map((r) => r.name);
}

async function recordsOf(userId: string) {
  return queryRows<{ credential: string; key_hash: string; state: string; locked_at: string; expires_at: string; everything: string }>(
    sql`select credential, key_hash, state, locked_at, expires_at, row_to_json(k)::text as everything from idempotency_keys k where user_id = ${userId}`,
  );
}

describe('Idempotency-Key on /v1 writes', () => {
  it('applies to every POST, PATCH and DELETE operation: each one is a mutation procedure', () => {
    const writes = restApi.routes.filter((r) => r.kind === 'procedure' && ['POST', 'PATCH', 'DELETE'].includes(r.method));
    expect(writes.length).toBeGreaterThan(10);
    for (const route of writes)
      expect({ route: `${route.method} ${route.path}`, type: route.kind === 'procedure' && route.type }).toMatchObject({ type: 'mutation' });
  });

  it('answers a retried server purchase from the first answer: one server, one charge', async () => {
    const { owner, projectId } = await paidProject();
    const before = (await ledgerIntents(owner.id)).length;
    const key = newKey();
    const first = await withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key);
    expect(first.status).toBe(200);
    expect(replayed(first)).toBeNull();

    const retry = await withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key);
    expect({ status: retry.status, body: retry.body }).toEqual({ status: first.status, body: first.body });
    expect(replayed(retry)).toBe('true');
    expect(retry.headers.get('content-type')).toBe('application/json');
    expect(await listServers(owner, projectId)).toHaveLength(1);
    expect(await ledgerIntents(owner.id)).toHaveLength(before + 1);
  });

  it('replays a creation with its 200 and body, a PATCH and a DELETE, without running them again', async () => {
    const user = await createUser();
    const createKey = newKey();
    const created = await withKey<{ projectId: string }>('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Shop' } }, createKey);
    const again = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Shop' } }, createKey);
    expect({ status: again.status, body: again.body, replayed: replayed(again) }).toEqual({ status: created.status, body: created.body, replayed: 'true' });
    expect(await projectNames(user)).toEqual(['Shop']);

    const { projectId } = created.data;
    const renameKey = newKey();
    const renamed = await withKey('PATCH', `/v1/projects/${projectId}`, { cookie: user.cookie, body: { name: 'Store' } }, renameKey);
    await api('PATCH', `/v1/projects/${projectId}`, { cookie: user.cookie, body: { name: 'Boutique' } });
    const renamedAgain = await withKey('PATCH', `/v1/projects/${projectId}`, { cookie: user.cookie, body: { name: 'Store' } }, renameKey);
    expect({ status: renamedAgain.status, body: renamedAgain.body, replayed: replayed(renamedAgain) }).toEqual({
      status: 200,
      body: renamed.body,
      replayed: 'true',
    });
    expect(await projectNames(user)).toEqual(['Boutique']);

    const sshKey = await registerKey(user, projectId);
    const deleteKey = newKey();
    const deleted = await withKey('DELETE', `/v1/projects/${projectId}/ssh-keys/${sshKey.id}`, { cookie: user.cookie }, deleteKey);
    expect(deleted.status).toBe(200);
    const deletedAgain = await withKey('DELETE', `/v1/projects/${projectId}/ssh-keys/${sshKey.id}`, { cookie: user.cookie }, deleteKey);
    expect({ status: deletedAgain.status, body: deletedAgain.body, replayed: replayed(deletedAgain) }).toEqual({
      status: 200,
      body: deleted.body,
      replayed: 'true',
    });
    expectError(await api('DELETE', `/v1/projects/${projectId}/ssh-keys/${sshKey.id}`, { cookie: user.cookie }), 404, 'NOT_FOUND');
  });

  it('refuses the same key with another body, path or method (422 IDEMPOTENCY_KEY_REUSED) and runs none of them', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user, 'Original');
    const key = newKey();
    expect((await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'First' } }, key)).status).toBe(200);

    const otherBody = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Second' } }, key);
    expectError(otherBody, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(replayed(otherBody)).toBeNull();
    expectError(await withKey('PATCH', `/v1/projects/${projectId}`, { cookie: user.cookie, body: { name: 'First' } }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await withKey('DELETE', `/v1/projects/${projectId}`, { cookie: user.cookie }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await projectNames(user)).toEqual(['First', 'Original']);
  });

  it('gives the same request sent concurrently one run: the others are told it is in progress (409) or get its answer', async () => {
    const { owner, projectId } = await paidProject();
    const before = (await ledgerIntents(owner.id)).length;
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key)),
    );
    const ran = answers.filter((a) => a.status === 200 && replayed(a) === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer === ran[0]) continue;
      if (answer.status === 409) expectError(answer, 409, 'IDEMPOTENCY_IN_PROGRESS');
      else expect({ status: answer.status, body: answer.body, replayed: replayed(answer) }).toEqual({ status: 200, body: ran[0]!.body, replayed: 'true' });
    }
    expect(await listServers(owner, projectId)).toHaveLength(1);
    expect(await ledgerIntents(owner.id)).toHaveLength(before + 1);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first request still runs, then its answer', async () => {
    const { owner, projectId } = await paidProject();
    const provider = getInfraProvider();
    const createMachine = provider.createMachine.bind(provider);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const machineRequested = vi.spyOn(provider, 'createMachine').mockImplementationOnce(async (input) => {
      await released;
      return createMachine(input);
    });
    const key = newKey();
    const send = () => withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key);
    const first = send();
    await vi.waitFor(() => expect(machineRequested).toHaveBeenCalled());

    const meanwhile = await send();
    expectError(meanwhile, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expect(replayed(meanwhile)).toBeNull();
    release();
    expect((await first).status).toBe(200);
    expect(replayed(await send())).toBe('true');
    expect(await listServers(owner, projectId)).toHaveLength(1);
  });

  it('refuses a retry while the first request holds the key, and lets a retry take over a claim older than the lock timeout', async () => {
    const user = await createUser();
    const key = newKey();
    await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Crashed' } }, key);
    // As if the instance running the request died before recording its outcome.
    await queryRows(sql`update idempotency_keys set state = 'running', response = null, locked_at = now() where user_id = ${user.id}`);
    expectError(await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Crashed' } }, key), 409, 'IDEMPOTENCY_IN_PROGRESS');
    expectError(await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Other' } }, key), 422, 'IDEMPOTENCY_KEY_REUSED');

    await queryRows(sql`update idempotency_keys set locked_at = now() - interval '1 second' * ${IDEMPOTENCY_LOCK_MS / 1000 - 5} where user_id = ${user.id}`);
    expectError(await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Crashed' } }, key), 409, 'IDEMPOTENCY_IN_PROGRESS');
    await queryRows(sql`update idempotency_keys set locked_at = now() - interval '1 second' * ${IDEMPOTENCY_LOCK_MS / 1000 + 1} where user_id = ${user.id}`);
    const takenOver = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Crashed' } }, key);
    // It ran again: the project the first run made now stands in its way.
    expectError(takenOver, 409, 'CONFLICT');
    expect(replayed(takenOver)).toBeNull();
    expect(await recordsOf(user.id)).toMatchObject([{ state: 'completed' }]);
  });

  it('replays a stored 4xx refusal even once the request would succeed', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user, 'Taken');
    const key = newKey();
    const refused = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Taken' } }, key);
    expectError(refused, 409, 'CONFLICT');
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: user.cookie })).status).toBe(200);

    const again = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Taken' } }, key);
    expect({ status: again.status, body: again.body, replayed: replayed(again) }).toEqual({ status: 409, body: refused.body, replayed: 'true' });
    expect(await projectNames(user)).toEqual([]);
  });

  it('keeps no 5xx answer: a retry with the same key runs again', async () => {
    const { owner, projectId } = await paidProject();
    const key = newKey();
    configureInfra({ INFRA_SIM_FAIL: 'create' });
    expectError(await withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key), 502, 'UPSTREAM_ERROR');
    expect(await recordsOf(owner.id)).toEqual([]);

    configureInfra({ INFRA_SIM_FAIL: '' });
    const retry = await withKey('POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: SERVER_BODY }, key);
    expect({ status: retry.status, replayed: replayed(retry) }).toEqual({ status: 200, replayed: null });
    expect(await listServers(owner, projectId)).toHaveLength(1);
  });

  it('keeps no rate-limit refusal: once the window has passed, a retry with the same key runs', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const budget = { policy: 'ssh-key-generation', key: `ssh-key-generate:project:${projectId}`, limit: SSH_KEY_GENERATIONS_PER_HOUR, windowSeconds: 3600 };
    for (let i = 0; i < SSH_KEY_GENERATIONS_PER_HOUR; i += 1) await consumeRateLimit(budget);
    const key = newKey();
    const generate = () => withKey('POST', `/v1/projects/${projectId}/ssh-keys/generate`, { cookie: user.cookie, body: { name: 'deploy' } }, key);
    expectError(await generate(), 429, 'RATE_LIMITED');
    await refundRateLimit(budget);
    expect(await generate()).toMatchObject({ status: 200, body: { success: true } });
  });

  it('keeps no refusal of the access checks: they run before the key is claimed', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner, 'Shared');
    const member = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${member.id}, 'viewer')`);
    const key = newKey();
    const rename = () => withKey('PATCH', `/v1/projects/${projectId}`, { cookie: member.cookie, body: { name: 'Renamed' } }, key);
    expectError(await rename(), 403, 'FORBIDDEN');
    expect(await recordsOf(member.id)).toEqual([]);
    await queryRows(sql`update memberships set role = 'admin' where project_id = ${projectId} and user_id = ${member.id}`);
    expect(await rename()).toMatchObject({ status: 200, body: { data: { name: 'Renamed' } } });
  });

  it('keeps keys per user and per credential: another API key or user with the same key runs its own request', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user, 'Keys');
    const firstKey = await createApiKey(user, projectId, ['projects:read', 'projects:write']);
    const secondKey = await createApiKey(user, projectId, ['projects:read', 'projects:write']);
    const other = await createUser();
    const key = newKey();
    const body = { name: 'Same' };

    expect((await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body }, key)).status).toBe(200);
    // Each of these ran (the name is taken for this user, so they are refused), none was answered from the session's record.
    for (const credentials of [{ key: firstKey.key }, { xApiKey: secondKey.key }]) {
      const res = await withKey('POST', '/v1/projects/create', { ...credentials, body }, key);
      expectError(res, 409, 'CONFLICT');
      expect(replayed(res)).toBeNull();
    }
    const others = await withKey('POST', '/v1/projects/create', { cookie: other.cookie, body }, key);
    expect({ status: others.status, replayed: replayed(others) }).toEqual({ status: 200, replayed: null });
    expect(await projectNames(other)).toEqual(['Same']);

    const replayedForKey = await withKey('POST', '/v1/projects/create', { key: firstKey.key, body }, key);
    expect({ status: replayedForKey.status, replayed: replayed(replayedForKey) }).toEqual({ status: 409, replayed: 'true' });
    expect((await recordsOf(user.id)).map((r) => r.credential).sort()).toEqual([firstKey.id, secondKey.id, 'session'].sort());
  });

  it('replays a secret shown once to the holder of the key, and keeps neither the secret nor the key readable in the table', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const key = `secret-${newKey()}`;
    const body = { name: 'ci', scopes: ['projects:read'] };
    const created = await withKey<{ key: string }>('POST', `/v1/projects/${projectId}/api-keys`, { cookie: user.cookie, body }, key);
    const again = await withKey<{ key: string }>('POST', `/v1/projects/${projectId}/api-keys`, { cookie: user.cookie, body }, key);
    expect({ body: again.body, replayed: replayed(again) }).toEqual({ body: created.body, replayed: 'true' });
    const [record] = await recordsOf(user.id);
    expect(record!.everything).not.toContain(created.data.key);
    expect(record!.everything).not.toContain(key);
    expect(record!.everything).not.toContain('"ci"');
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a control character', 'key\u0001'],
    ['with a character outside ASCII', 'clé'],
  ])('refuses a key %s with 422 naming the header, and runs nothing', async (_, key) => {
    const user = await createUser();
    const res = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Never' } }, key);
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body).toMatchObject({ error: { fields: { 'Idempotency-Key': expect.any(String) } } });
    expect(await projectNames(user)).toEqual([]);
  });

  it('accepts a 255-character key and ignores the header on reads', async () => {
    const user = await createUser();
    expect((await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Long' } }, '~'.repeat(255))).status).toBe(200);
    const read = await withKey('GET', '/v1/projects', { cookie: user.cookie }, '');
    expect(read.status).toBe(200);
    expect(await recordsOf(user.id)).toHaveLength(1);
  });

  it('keeps records for 24 hours; an expired one no longer replays, and the maintenance job purges it', async () => {
    const user = await createUser();
    const key = newKey();
    await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Old' } }, key);
    const [record] = await recordsOf(user.id);
    expect(new Date(record!.expires_at).getTime() - new Date(record!.locked_at).getTime()).toBe(24 * 3_600_000);

    await queryRows(sql`update idempotency_keys set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    const afterExpiry = await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Old' } }, key);
    expectError(afterExpiry, 409, 'CONFLICT');
    expect(replayed(afterExpiry)).toBeNull();

    const [expired] = await recordsOf(user.id);
    await withKey('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'Recent' } }, newKey());
    await queryRows(sql`update idempotency_keys set expires_at = now() - interval '1 second' where key_hash = ${expired!.key_hash}`);
    const purge = JOBS.find((job) => job.name === PURGE_IDEMPOTENCY_KEYS);
    expect(purge?.cron).toBeDefined();
    await purge!.handler({});
    const left = await recordsOf(user.id);
    expect(left).toHaveLength(1);
    expect(left[0]!.key_hash).not.toBe(expired!.key_hash);
  });
});

describe('Idempotency-Key on the panel’s tRPC writes', () => {
  it('replays through the tRPC caller: one project, the same answer, the replay marked on the context', async () => {
    const user = await createUser();
    const createCaller = createCallerFactory(appRouter);
    const contextFor = () =>
      createRequestContext(
        new Headers({ cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json', 'idempotency-key': 'panel-1' }),
        'POST',
        'trpc',
      );
    const firstContext = await contextFor();
    const first = await createCaller(firstContext).projects.create({ name: 'Panel' });
    const retryContext = await contextFor();
    const retry = await createCaller(retryContext).projects.create({ name: 'Panel' });
    expect(retry).toEqual(first);
    expect({ first: firstContext.responseHeaders, retry: retryContext.responseHeaders }).toEqual({ first: {}, retry: { 'idempotent-replayed': 'true' } });
    expect(await projectNames(user)).toEqual(['Panel']);
  });

  it('sends Idempotent-Replayed on /api/trpc answers', async () => {
    const user = await createUser();
    const call = () =>
      trpcPost(
        new Request(`${ORIGIN}/api/trpc/projects.create`, {
          method: 'POST',
          headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json', 'idempotency-key': 'panel-2' },
          body: JSON.stringify({ name: 'Over tRPC' }),
        }),
      );
    const first = await call();
    const retry = await call();
    expect({ status: retry.status, body: await retry.json(), replayed: retry.headers.get('idempotent-replayed') }).toEqual({
      status: first.status,
      body: await first.json(),
      replayed: 'true',
    });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await projectNames(user)).toEqual(['Over tRPC']);
  });
});

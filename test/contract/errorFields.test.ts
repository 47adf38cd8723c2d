import { describe, expect, it } from 'vitest';
import { POST as trpcPost } from '../../app/api/trpc/[trpc]/route';
import { api, createProject, createUser, ORIGIN } from '../helpers';

type Failure = { success: false; error: { code: string; message: string; fields?: Record<string, string>; docsUrl?: string } };
const failure = (body: unknown) => (body as Failure).error;

describe('error.fields', () => {
  it('names each failing field of a zod refusal, beside the message that names them all', async () => {
    const res = await api('POST', '/v1/accounts', { body: { name: '', email: 'not-an-email', password: 'short' } });
    expect(res.status).toBe(422);
    const error = failure(res.body);
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(['email', 'name', 'password']);
    expect(error.fields?.password).toBe('Password must be at least 10 characters');
    expect(error.message).toContain(`password: ${error.fields?.password}`);
  });

  it('joins nested paths with dots', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const res = await api('POST', `/v1/projects/${projectId}/servers`, {
      cookie: user.cookie,
      body: { name: 'web-1', slug: 's-1vcpu-1gb', provider: 'infra', region: 'nyc3', sshKeyIds: [''] },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(failure(res.body).fields ?? {})).toEqual(['sshKeyIds.0']);
  });

  it('carries the field a service refuses, and keeps the "field: message" text', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user);
    const res = await api('POST', `/v1/projects/${projectId}/ssh-keys`, { cookie: user.cookie, body: { name: 'laptop', publicKey: 'ssh-ed25519 AAAA' } });
    expect(res.status).toBe(422);
    const error = failure(res.body);
    expect(Object.keys(error.fields ?? {})).toEqual(['publicKey']);
    expect(error.message).toBe(`publicKey: ${error.fields?.publicKey}`);
    expect(error.docsUrl).toMatch(/\/docs\/ssh-keys$/);
  });

  it('is an empty object on a 422 that no single field caused', async () => {
    const res = await api('POST', '/v1/accounts', { rawBody: '{"name":' });
    expect(res.status).toBe(422);
    expect(failure(res.body).fields).toEqual({});
  });

  it('names the field of a conflict about one field, and is absent from other errors', async () => {
    const user = await createUser();
    const { projectId } = await createProject(user, 'Shop');
    const taken = await api('POST', '/v1/projects/create', { cookie: user.cookie, body: { name: 'shop' } });
    expect(taken.status).toBe(409);
    expect(failure(taken.body).fields).toEqual({ name: failure(taken.body).message });

    const unauthenticated = await api('GET', `/v1/projects/${projectId}`);
    expect(unauthenticated.status).toBe(401);
    expect(failure(unauthenticated.body)).not.toHaveProperty('fields');
  });

  it('reaches the panel through tRPC as data.appError.fields', async () => {
    const user = await createUser();
    const res = await trpcPost(
      new Request(`${ORIGIN}/api/trpc/projects.create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: user.cookie, origin: ORIGIN },
        body: JSON.stringify({ name: '' }),
      }),
    );
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { data: { appError: { code: string; fields: Record<string, string> } } } };
    expect(body.error.data.appError).toMatchObject({ code: 'VALIDATION_ERROR', fields: { name: 'Project name is required' } });
  });
});

describe('/api/trpc bodies', () => {
  it('are capped like /v1: a body past 2 MiB is refused with 413 before anything reads it', async () => {
    const user = await createUser();
    const huge = JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) });
    const declared: Record<string, string>[] = [{ 'content-length': String(Buffer.byteLength(huge)) }, {}];
    for (const headers of declared) {
      const res = await trpcPost(
        new Request(`${ORIGIN}/api/trpc/projects.create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: user.cookie, origin: ORIGIN, ...headers },
          body: huge,
        }),
      );
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { data: { appError: { code: string } } } }).error.data.appError.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });
});

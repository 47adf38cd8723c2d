import { Readable } from 'node:stream';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createApiKey, createProject, createUser, ORIGIN } from '../../../test/helpers';
import { addMember } from '../../../test/membersHelpers';
import { AppError } from '../errors';
import { projectProcedure, router } from '../trpc';
import { createRestApi } from './handler';
import { envelope, type RawRoute } from './rawRoutes';

const seen: Array<{ route: string; body?: string; project?: string; role?: string; params?: Record<string, string> }> = [];

const routes: RawRoute[] = [
  {
    method: 'POST',
    path: '/hooks/{source}',
    access: { kind: 'public' },
    async handle(request) {
      const body = (await request.body.read(16)).toString('utf8');
      if (request.headers['x-signature'] !== 'good') throw new AppError('BAD_REQUEST', 'Bad signature');
      seen.push({ route: 'hook', body, params: request.params });
      return envelope({ received: true }, 202);
    },
  },
  {
    method: 'PUT',
    path: '/projects/{projectId}/files/{name}',
    access: { kind: 'project', scopes: ['hosting:read', 'hosting:write'], role: 'owner' },
    async handle(request, caller) {
      const chunks: Buffer[] = [];
      for await (const chunk of request.body.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
      seen.push({
        route: 'upload',
        body: Buffer.concat(chunks).toString('utf8'),
        project: caller.grant?.project.id,
        role: caller.grant?.role,
        params: request.params,
      });
      return { status: 204, body: null };
    },
  },
  {
    method: 'GET',
    path: '/projects/{projectId}/files/{name}',
    access: { kind: 'project', scopes: ['hosting:read'] },
    async handle(request) {
      return {
        status: 200,
        headers: { 'content-type': 'application/octet-stream' },
        body: Readable.from([Buffer.from('chunk-1;'), Buffer.from(request.params.name ?? '')]),
      };
    },
  },
];

const demoRouter = router({
  describeFiles: projectProcedure
    .meta({ openapi: { method: 'POST', path: '/projects/{projectId}/files/{name}' }, scopes: ['hosting:read'] })
    .input(z.object({ projectId: z.string(), name: z.string() }))
    .output(z.object({ name: z.string() }))
    .mutation(({ input }) => ({ name: input.name })),
});

const restApi = createRestApi({ router: demoRouter, rawRoutes: routes });

async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const res = await restApi.handleFetch(new Request(`${ORIGIN}/v1${path}`, { method, headers: init.headers, body: init.body }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('raw /v1 routes', () => {
  it('get the raw body and decoded parameters, and answer with the envelope', async () => {
    const res = await call('POST', '/hooks/git%20hub', { headers: { 'x-signature': 'good', 'content-type': 'text/plain' }, body: 'not json' });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.text)).toEqual({ success: true, data: { received: true } });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(seen.at(-1)).toEqual({ route: 'hook', body: 'not json', params: { source: 'git hub' } });
  });

  it('turn AppErrors and oversized bodies into the error envelope', async () => {
    const bad = await call('POST', '/hooks/x', { headers: { 'x-signature': 'bad' }, body: 'payload' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', message: 'Bad signature' } });
    const large = await call('POST', '/hooks/x', { headers: { 'x-signature': 'good' }, body: 'x'.repeat(17) });
    expect(large.status).toBe(413);
    expect(JSON.parse(large.text)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('share the route table with procedures: one Allow list for a path', async () => {
    const res = await call('DELETE', '/projects/p/files/a');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, PUT, GET');
  });

  it('apply the procedures’ actor, scope and role checks to project routes', async () => {
    const owner = await createUser();
    const admin = await createUser();
    const { projectId } = await createProject(owner);
    await addMember(owner, projectId, admin, 'admin');

    expect((await call('PUT', `/projects/${projectId}/files/a.txt`, { body: 'x' })).status).toBe(401);
    const readOnly = (await createApiKey(owner, projectId, ['hosting:read'])).key;
    const refused = await call('PUT', `/projects/${projectId}/files/a.txt`, { headers: { authorization: `Bearer ${readOnly}` }, body: 'x' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error.message).toContain('hosting:write');
    const adminKey = (await createApiKey(admin, projectId, ['hosting:read', 'hosting:write'])).key;
    const belowRole = await call('PUT', `/projects/${projectId}/files/a.txt`, { headers: { authorization: `Bearer ${adminKey}` }, body: 'x' });
    expect(belowRole.status).toBe(403);
    expect(JSON.parse(belowRole.text).error.message).toContain('owner role');

    const writer = (await createApiKey(owner, projectId, ['hosting:read', 'hosting:write'])).key;
    const ok = await call('PUT', `/projects/${projectId}/files/a.txt`, {
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/octet-stream' },
      body: 'streamed upload',
    });
    expect(ok.status).toBe(204);
    expect(seen.at(-1)).toEqual({ route: 'upload', body: 'streamed upload', project: projectId, role: 'owner', params: { projectId, name: 'a.txt' } });

    const other = await createProject(owner);
    const elsewhere = await call('GET', `/projects/${other.projectId}/files/a.txt`, { headers: { authorization: `Bearer ${writer}` } });
    expect(elsewhere.status).toBe(403);
  });

  it('take uploads from the panel’s session only from our origin, in a body type forms cannot send', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const upload = (headers: Record<string, string>) =>
      call('PUT', `/projects/${projectId}/files/c.txt`, { headers: { cookie: owner.cookie, ...headers }, body: 'from the panel' });
    expect((await upload({ origin: ORIGIN, 'content-type': 'application/octet-stream' })).status).toBe(204);
    expect(seen.at(-1)).toMatchObject({ route: 'upload', body: 'from the panel', project: projectId });
    const forgeries: Record<string, string>[] = [
      { origin: 'https://evil.example', 'content-type': 'application/octet-stream' },
      { origin: ORIGIN, 'content-type': 'text/plain' },
      { origin: ORIGIN, 'content-type': 'multipart/form-data; boundary=x' },
      { 'content-type': 'application/octet-stream' },
    ];
    for (const forged of forgeries) {
      const res = await upload(forged);
      expect(res.status, JSON.stringify(forged)).toBe(403);
    }
  });

  it('limit {projectId} on its decoded value, as procedures do', async () => {
    const owner = await createUser();
    const key = (await createApiKey(owner, (await createProject(owner)).projectId, ['hosting:read'])).key;
    const long = await call('GET', `/projects/${'p'.repeat(10_000)}/files/a.txt`, { headers: { authorization: `Bearer ${key}` } });
    expect(long.status).toBe(422);
    expect(JSON.parse(long.text)).toMatchObject({ error: { code: 'VALIDATION_ERROR', fields: { projectId: 'projectId must be at most 200 characters' } } });
    const encoded = await call('GET', `/projects/${encodeURIComponent('é'.repeat(70))}/files/a.txt`, { headers: { authorization: `Bearer ${key}` } });
    expect(encoded.status).toBe(404);
  });

  it('stream their answers', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const key = (await createApiKey(owner, projectId, ['hosting:read'])).key;
    const res = await call('GET', `/projects/${projectId}/files/b.bin`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.text).toBe('chunk-1;b.bin');
  });
});

import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';
import type { ProcedureRoute } from '../../server/platform/rest/routeTable';
import { databaseFingerprint } from '../db';
import { api, createProject, createUser, ORIGIN } from '../helpers';

/**
 * Sends the path exactly as written, as an HTTP client with --path-as-is does: a fetch Request
 * would resolve the dot segments before the bridge saw them.
 */
async function rawCall(method: string, url: string, cookie: string, body?: unknown) {
  const bytes = Buffer.from(body === undefined ? '' : JSON.stringify(body));
  const res = await restApi.handle({
    method,
    url,
    headers: { cookie, origin: ORIGIN, host: 'localhost:3000', 'content-type': 'application/json' },
    body: { read: async () => bytes, stream: () => Readable.from([bytes]) },
  });
  return { status: res.status, body: JSON.parse(String(res.body)) as { error?: { code: string; fields?: Record<string, string> } } };
}

const DOT_SEGMENTS = ['.', '..', '%2e', '%2e%2e', '%2E%2E', '.%2e', '%2E.'];
const operations = restApi.routes.filter((r) => r.path.includes('{'));

describe('path parameters that are dot segments', () => {
  it('are refused with 422 on every operation of the document, and change nothing', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const before = await databaseFingerprint();
    let sent = 0;
    for (const route of operations) {
      const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      for (const target of params) {
        for (const dots of DOT_SEGMENTS) {
          const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === target ? dots : name === 'projectId' ? projectId : 'x'));
          const res = await rawCall(
            route.method,
            `/v1${path}`,
            owner.cookie,
            route.method === 'GET' || route.method === 'DELETE' ? undefined : { name: 'renamed' },
          );
          expect(res.status, `${route.method} ${path}`).toBe(422);
          expect(res.body.error?.code).toBe('VALIDATION_ERROR');
          sent += 1;
        }
      }
    }
    expect(sent).toBeGreaterThan(100);
    expect(await databaseFingerprint()).toEqual(before);
    expect((await api('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);
  });
});

describe('literal routes', () => {
  it('answer 405 with their own Allow to the methods they lack, never reaching an {id} sibling', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const before = await databaseFingerprint();
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/v1/projects/create', 'POST'],
      ['PATCH', '/v1/projects/create', 'POST'],
      ['GET', '/v1/projects/create', 'POST'],
      ['DELETE', `/v1/projects/${projectId}/servers/preview`, 'GET'],
      ['PATCH', `/v1/projects/${projectId}/servers/preview`, 'GET'],
      ['GET', `/v1/projects/${projectId}/ssh-keys/generate`, 'POST'],
      ['DELETE', `/v1/projects/${projectId}/ssh-keys/generate`, 'POST'],
      ['DELETE', `/v1/projects/${projectId}/billing/payment-methods/setup`, 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(method, path, { cookie: owner.cookie, body: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    expect(await databaseFingerprint()).toEqual(before);
  });
});

describe('path parameter lengths', () => {
  const procedures = restApi.routes.filter((r): r is ProcedureRoute => r.kind === 'procedure' && r.path.includes('{'));
  const bodyOf = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : { name: 'renamed' });

  it('are counted on the decoded value: 70 percent-encoded characters fit a 200-character parameter, 201 do not (1024 and 1025 for a rest-of-path one)', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const before = await databaseFingerprint();
    const fits = encodeURIComponent('é'.repeat(70));
    let sent = 0;
    for (const route of procedures) {
      for (const target of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) {
        const limit = route.meta.trailingPathParam === target ? 1024 : 200;
        const tooLong = encodeURIComponent('é'.repeat(limit + 1));
        const url = (value: string) =>
          `/v1${route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === target ? value : name === 'projectId' ? projectId : 'x'))}`;
        const accepted = await rawCall(route.method, url(fits), owner.cookie, bodyOf(route.method));
        expect(accepted.body.error?.fields?.[target], `${route.method} ${route.path}: ${target} of 70 characters`).toBeUndefined();
        const refused = await rawCall(route.method, url(tooLong), owner.cookie, bodyOf(route.method));
        expect({ status: refused.status, code: refused.body.error?.code }, `${route.method} ${route.path}: ${target} of ${limit + 1} characters`).toEqual({
          status: 422,
          code: 'VALIDATION_ERROR',
        });
        expect(refused.body.error?.fields?.[target]).toBe(`${target} must be at most ${limit} characters`);
        sent += 2;
      }
    }
    expect(sent).toBeGreaterThan(40);
    expect(await databaseFingerprint()).toEqual(before);
  });

  it('refuse a 10,000-character projectId with 422 naming it, before looking the project up', async () => {
    const owner = await createUser();
    const res = await rawCall('GET', `/v1/projects/${'p'.repeat(10_000)}`, owner.cookie);
    expect(res).toMatchObject({
      status: 422,
      body: { error: { code: 'VALIDATION_ERROR', fields: { projectId: 'projectId must be at most 200 characters' } } },
    });
    const encoded = await rawCall('GET', `/v1/projects/${encodeURIComponent('é'.repeat(70))}`, owner.cookie);
    expect(encoded).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });
});

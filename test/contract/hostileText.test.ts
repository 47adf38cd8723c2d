import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';
import { createApiKey, createProject, createUser, ORIGIN } from '../helpers';
import { documentedCodes, documentedStatuses, findOperation } from '../openapiDocument';

const HOSTILE = ['a\u0000b', '\ud800', 'x\udfffy', '\u0000'];
const HOSTILE_IN_PATH = ['%00', 'a%00b', '%ED%A0%80', '%F0%9F'];
/** Every string field any operation takes, so each body reaches whichever of them the operation reads. */
const BODY_FIELDS = [
  'name',
  'email',
  'password',
  'publicKey',
  'slug',
  'region',
  'provider',
  'billingEmail',
  'token',
  'currentPassword',
  'newPassword',
  'role',
  'action',
  'userId',
  'paymentMethodId',
  'cardNumber',
  'cvc',
  'country',
  'locale',
  'expiresAt',
];

async function send(method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const bytes = Buffer.from(body === undefined ? '' : JSON.stringify(body));
  const res = await restApi.handle({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    body: { read: async () => bytes, stream: () => Readable.from([bytes]) },
  });
  return { status: res.status, body: String(res.body) };
}

describe('NUL bytes and unpaired surrogates', () => {
  it('are refused with 4xx, never 5xx, and only with answers the document lists, in every path parameter and body field of every operation', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const key = (
      await createApiKey(owner, projectId, [
        'projects:read',
        'projects:write',
        'servers:read',
        'servers:write',
        'billing:read',
        'billing:write',
        'members:read',
        'members:write',
      ])
    ).key;
    const callers: Record<string, string>[] = [{ cookie: owner.cookie, origin: ORIGIN, host: 'localhost:3000' }, { authorization: `Bearer ${key}` }];
    const failures: string[] = [];
    const undocumented = new Set<string>();
    let sent = 0;
    const doc = restApi.openApiDocument();
    for (const route of restApi.routes) {
      // Raw routes (the processor's webhook) are not operations of the document.
      const documented = route.kind === 'procedure' ? findOperation(doc, route.method, route.path) : undefined;
      const check = (path: string, res: { status: number; body: string }) => {
        if (res.status >= 500) failures.push(`${route.method} ${path} → ${res.status} ${res.body.slice(0, 120)}`);
        if (!documented) return;
        const code = res.status >= 400 ? (JSON.parse(res.body) as { error: { code: string } }).error.code : undefined;
        const listed = code ? documentedCodes(doc, documented, res.status).includes(code) : documentedStatuses(documented).includes(res.status);
        if (!listed) undocumented.add(`${route.method} ${route.path} → ${res.status} ${code ?? ''}`);
      };
      const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const paths = params.flatMap((target) =>
        HOSTILE_IN_PATH.map((bad) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === target ? bad : name === 'projectId' ? projectId : 'x'))),
      );
      const plain = route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'projectId' ? projectId : 'x'));
      const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
      const bodies = hasBody ? HOSTILE.map((bad) => Object.fromEntries(BODY_FIELDS.map((field) => [field, bad]))) : [undefined];
      // A query string cannot carry an unpaired surrogate (its bytes decode to U+FFFD); NUL it can.
      const queries = hasBody ? [''] : [`?${BODY_FIELDS.map((field) => `${field}=a%00b`).join('&')}`];
      for (const headers of callers) {
        for (const path of paths) {
          check(path, await send(route.method, `/v1${path}`, headers, hasBody ? { name: 'fine' } : undefined));
          sent += 1;
        }
        for (const body of bodies) {
          for (const query of queries) {
            check(`${plain}${query.slice(0, 40)}`, await send(route.method, `/v1${plain}${query}`, headers, body));
            sent += 1;
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect([...undocumented], 'answers the document does not list for the operation').toEqual([]);
    expect(sent).toBeGreaterThan(500);
  });

  it('answer 422 naming the field', async () => {
    const owner = await createUser();
    const res = await send('POST', '/v1/projects/create', { cookie: owner.cookie, origin: ORIGIN, host: 'localhost:3000' }, { name: 'a\u0000b' });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'VALIDATION_ERROR', fields: { name: expect.stringContaining('NUL') } } });
    const path = await send('GET', '/v1/invitations/%00', { cookie: owner.cookie });
    expect(path.status).toBe(422);
    expect(JSON.parse(path.body)).toMatchObject({ error: { fields: { invitationId: expect.any(String) } } });
  });
});

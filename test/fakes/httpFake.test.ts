import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFake, FakeHttpError, type BodyFormat, type HttpFake, type HttpFakeOptions, type ParsedBody } from './httpFake';

const started: Array<HttpFake<unknown>> = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

/** A fake with the given routes registered, listening; closed after the test. */
async function start<Format extends BodyFormat>(
  options: Omit<HttpFakeOptions<Format>, 'name'>,
  register: (fake: HttpFake<ParsedBody<Format>>) => void = () => {},
) {
  const fake = createHttpFake({ name: 'Upstream', ...options });
  register(fake);
  const { url } = await fake.listen();
  started.push(fake as HttpFake<unknown>);
  return { fake, url };
}

async function call(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : undefined;
  return { status: res.status, headers: res.headers, text, json };
}

const postJson = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('createHttpFake: routing', () => {
  it('serves the route matching method and path, with decoded params and query', async () => {
    const { url } = await start({ parseBody: 'json' }, (fake) => {
      fake.route('GET /things/search', ({ query }) => ({ body: { search: query } }));
      fake.route('GET /things/:id', ({ params }) => ({ body: { get: params.id } }));
      fake.route('GET /things/:id/parts/:part', ({ params }) => ({ body: { id: params.id, part: params.part } }));
      fake.route('DELETE /things/:id', () => ({ status: 204 }));
    });

    expect((await call(`${url}/things/a%20b%2Fc`)).json).toEqual({ get: 'a b/c' });
    expect((await call(`${url}/things/7/parts/wheel`)).json).toEqual({ id: '7', part: 'wheel' });
    expect((await call(`${url}/things/search?q=x+y&page=2&expand[]=a&expand[]=b&filter[tag]=t`)).json).toEqual({
      search: { q: 'x y', page: '2', expand: ['a', 'b'], filter: { tag: 't' } },
    });
    const deleted = await call(`${url}/things/7`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 204, text: '' });
  });

  it('answers 404 for an unknown path and 405 with Allow for a known path under another method', async () => {
    const { url } = await start({ parseBody: 'json' }, (fake) => {
      fake.route('GET /things/:id', () => ({ body: {} }));
      fake.route('PUT /things/:id', () => ({ body: {} }));
    });

    const missing = await call(`${url}/nothing/here`);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'No route for GET /nothing/here' });
    const wrongMethod = await call(`${url}/things/1`, { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT');
    expect((await call(`${url}/things/1/extra`)).status).toBe(404);
  });

  it('puts its own answers in the upstream error format the fake gives', async () => {
    const { url } = await start(
      { parseBody: 'json', errorBody: ({ status, reason, method, path }) => ({ fault: { status, reason, at: `${method} ${path}` } }) },
      (fake) => fake.route('GET /known', () => ({ body: {} })),
    );

    expect((await call(`${url}/unknown`)).json).toEqual({ fault: { status: 404, reason: 'no_route', at: 'GET /unknown' } });
    expect((await call(`${url}/known`, { method: 'DELETE' })).json).toEqual({ fault: { status: 405, reason: 'method_not_allowed', at: 'DELETE /known' } });
  });
});

describe('createHttpFake: bodies', () => {
  it('parses a JSON body, gives undefined for none, and answers 400 for malformed JSON without calling the handler', async () => {
    const seen: unknown[] = [];
    const { fake, url } = await start({ parseBody: 'json' }, (f) =>
      f.route('POST /echo', ({ body, rawBody }) => {
        seen.push(body);
        return { body: { body: body ?? null, bytes: rawBody.length } };
      }),
    );

    expect((await call(`${url}/echo`, postJson('{"a":[1,{"b":true}]}'))).json).toEqual({ body: { a: [1, { b: true }] }, bytes: 20 });
    expect((await call(`${url}/echo`, { method: 'POST' })).json).toEqual({ body: null, bytes: 0 });
    const malformed = await call(`${url}/echo`, postJson('{"a":'));
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: expect.stringContaining('JSON') });
    expect(seen).toEqual([{ a: [1, { b: true }] }, undefined]);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: '/echo', body: undefined });
  });

  it('decodes a form body with bracket nesting, and answers 400 for a malformed name', async () => {
    const { url } = await start({ parseBody: 'form' }, (fake) => fake.route('POST /form', ({ body }) => ({ body })));
    const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

    const decoded = await call(`${url}/form`, form('name=A+B%26C&meta[k]=v&deep[a][b]=1&list[0]=x&list[1]=y&tags[]=p&tags[]=q&empty='));
    expect(decoded.json).toEqual({ name: 'A B&C', meta: { k: 'v' }, deep: { a: { b: '1' } }, list: ['x', 'y'], tags: ['p', 'q'], empty: '' });
    expect((await call(`${url}/form`, { method: 'POST' })).json).toEqual({});
    const malformed = await call(`${url}/form`, form('[oops]=1'));
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: 'Invalid parameter name: [oops]' });
  });

  it('hands a raw body over as the bytes received', async () => {
    const bytes = Buffer.from([0, 255, 1, 254, 0x7b]);
    const { url } = await start({ parseBody: 'raw' }, (fake) =>
      fake.route('PUT /blob', ({ body }) => ({ body: { hex: body.toString('hex'), same: body.equals(bytes) } })),
    );

    expect((await call(`${url}/blob`, { method: 'PUT', body: bytes })).json).toEqual({ hex: '00ff01fe7b', same: true });
  });
});

describe('createHttpFake: answers', () => {
  it('sends JSON with its content type, strings and bytes as they are, and the headers given', async () => {
    const { url } = await start({ parseBody: 'json' }, (fake) => {
      fake.route('GET /json', () => ({ status: 201, body: { ok: true }, headers: { 'x-extra': '1' } }));
      fake.route('GET /xml', () => ({ body: '<ok/>', headers: { 'content-type': 'application/xml' } }));
      fake.route('GET /bytes', () => ({ body: Buffer.from('raw') }));
    });

    const json = await call(`${url}/json`);
    expect(json).toMatchObject({ status: 201, json: { ok: true } });
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.headers.get('x-extra')).toBe('1');
    const xml = await call(`${url}/xml`);
    expect(xml).toMatchObject({ status: 200, text: '<ok/>' });
    expect(xml.headers.get('content-type')).toBe('application/xml');
    expect((await call(`${url}/bytes`)).text).toBe('raw');
  });

  it('answers a thrown FakeHttpError as given, and a crash of the fake as a 500 naming it', async () => {
    const { url } = await start({ parseBody: 'json' }, (fake) => {
      fake.route('GET /refused', () => {
        throw new FakeHttpError(422, { code: 'invalid' }, { 'x-reason': 'test' });
      });
      fake.route('GET /crash', () => {
        throw new TypeError('boom');
      });
    });

    const refused = await call(`${url}/refused`);
    expect(refused).toMatchObject({ status: 422, json: { code: 'invalid' } });
    expect(refused.headers.get('x-reason')).toBe('test');
    expect(await call(`${url}/crash`)).toMatchObject({ status: 500, json: { error: 'Upstream fake crashed: boom' } });
  });

  it('adds the fake’s headers to every answer, its own included, and lets a response override them', async () => {
    const { url } = await start(
      { parseBody: 'json', auth: { bearer: 't' }, responseHeaders: ({ path }) => ({ 'x-request-for': path, 'x-over': 'fake' }) },
      (fake) => fake.route('GET /ok', () => ({ body: {}, headers: { 'x-over': 'route' } })),
    );
    const auth = { headers: { authorization: 'Bearer t' } };

    const ok = await call(`${url}/ok`, auth);
    expect([ok.headers.get('x-request-for'), ok.headers.get('x-over')]).toEqual(['/ok', 'route']);
    expect((await call(`${url}/ok`)).headers.get('x-request-for')).toBe('/ok');
    expect((await call(`${url}/missing`, auth)).headers.get('x-over')).toBe('fake');
  });
});

describe('createHttpFake: credentials', () => {
  it('answers 401 before routing unless the bearer token matches', async () => {
    const { fake, url } = await start({ parseBody: 'json', auth: { bearer: 'secret' } }, (f) => f.route('GET /me', () => ({ body: { me: true } })));

    expect(await call(`${url}/me`)).toMatchObject({ status: 401, json: { error: expect.any(String) } });
    expect((await call(`${url}/me`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await call(`${url}/nowhere`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(await call(`${url}/me`, { headers: { authorization: 'Bearer secret' } })).toMatchObject({ status: 200, json: { me: true } });
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([undefined, 'Bearer wrong', 'Bearer wrong', 'Bearer secret']);
  });

  it('takes a predicate for schemes other than a bearer token, seeing the whole request', async () => {
    const { url } = await start({ parseBody: 'json', auth: ({ path, headers }) => path === '/public' || headers['x-api-key'] === 'k' }, (fake) => {
      fake.route('GET /public', () => ({ body: {} }));
      fake.route('GET /private', () => ({ body: {} }));
    });

    expect((await call(`${url}/public`)).status).toBe(200);
    expect((await call(`${url}/private`)).status).toBe(401);
    expect((await call(`${url}/private`, { headers: { 'x-api-key': 'k' } })).status).toBe(200);
  });
});

describe('createHttpFake: faults', () => {
  async function counting() {
    const served: string[] = [];
    const started = await start({ parseBody: 'json', errorBody: ({ status, reason }) => ({ status, reason }) }, (fake) => {
      fake.route('GET /a', ({ query }) => {
        served.push(`a${String(query.n ?? '')}`);
        return { body: { from: 'a' } };
      });
      fake.route('GET /b', () => {
        served.push('b');
        return { body: { from: 'b' } };
      });
    });
    return { ...started, served };
  }

  it('fails the next N requests to a route, in the fake’s error format unless a body is given, then serves again', async () => {
    const { fake, url, served } = await counting();
    fake.fail({ route: 'GET /a', status: 503, times: 2, headers: { 'retry-after': '1' } });
    fake.fail({ route: 'GET /a', status: 200, body: { canned: true } });

    const first = await call(`${url}/a`);
    expect(first).toMatchObject({ status: 503, json: { status: 503, reason: 'injected' } });
    expect(first.headers.get('retry-after')).toBe('1');
    expect(await call(`${url}/b`)).toMatchObject({ status: 200, json: { from: 'b' } });
    expect((await call(`${url}/a`)).status).toBe(503);
    expect(await call(`${url}/a`)).toMatchObject({ status: 200, json: { canned: true } });
    expect(await call(`${url}/a`)).toMatchObject({ status: 200, json: { from: 'a' } });
    expect(served).toEqual(['b', 'a']);
  });

  it('lets requests through first with after, and picks requests with when', async () => {
    const { fake, url, served } = await counting();
    fake.fail({ route: 'GET /a', status: 500, after: 1 });

    expect((await call(`${url}/a?n=1`)).status).toBe(200);
    expect((await call(`${url}/a?n=2`)).status).toBe(500);
    expect((await call(`${url}/a?n=3`)).status).toBe(200);

    fake.fail({ when: ({ query }) => query.n === '5', status: 429 });
    expect((await call(`${url}/b`)).status).toBe(200);
    expect((await call(`${url}/a?n=4`)).status).toBe(200);
    expect((await call(`${url}/a?n=5`)).status).toBe(429);
    expect(served).toEqual(['a1', 'a3', 'b', 'a4']);
  });

  it('without a route fails whatever comes next, but never turns an unknown path into anything but 404', async () => {
    const { fake, url } = await counting();
    fake.fail({ status: 500 });

    expect((await call(`${url}/unknown`)).status).toBe(404);
    expect((await call(`${url}/b`)).status).toBe(500);
    expect((await call(`${url}/b`)).status).toBe(200);
  });

  it('refuses a fault for a route it does not have', async () => {
    const { fake } = await counting();
    expect(() => fake.fail({ route: 'GET /c', status: 500 })).toThrow('Upstream fake has no route GET /c to fail');
  });

  it('holds an answer back with delayMs, serving it normally without a status', async () => {
    const { fake, url, served } = await counting();
    fake.fail({ route: 'GET /a', delayMs: 80 });

    const startedAt = Date.now();
    expect(await call(`${url}/a`)).toMatchObject({ status: 200, json: { from: 'a' } });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(75);
    expect(served).toEqual(['a']);
  });

  it('lets a client with a shorter timeout give up, and releases held requests on close', async () => {
    const { fake, url, served } = await counting();
    fake.fail({ route: 'GET /a', delayMs: 10_000 });

    await expect(fetch(`${url}/a`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    expect(served).toEqual([]);
    await fake.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(served).toEqual(['a']);
  });
});

describe('createHttpFake: request log and lifecycle', () => {
  it('records every request in order, however it was answered', async () => {
    const { fake, url } = await start({ parseBody: 'json', auth: { bearer: 't' } }, (f) => f.route('POST /items', () => ({ status: 201, body: {} })));
    const auth = { authorization: 'Bearer t', 'content-type': 'application/json' };

    await call(`${url}/items?dry=1`, { method: 'POST', headers: auth, body: '{"name":"x"}' });
    await call(`${url}/items`, { method: 'POST', body: '{}' });
    await call(`${url}/nope?a[b]=c`, { headers: auth });

    expect(fake.requests.map(({ method, path, query, body }) => ({ method, path, query, body }))).toEqual([
      { method: 'POST', path: '/items', query: { dry: '1' }, body: { name: 'x' } },
      { method: 'POST', path: '/items', query: {}, body: {} },
      { method: 'GET', path: '/nope', query: { a: { b: 'c' } }, body: undefined },
    ]);
    expect(fake.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('closes idempotently, after which the port refuses connections', async () => {
    const { fake, url } = await start({ parseBody: 'json' }, (f) => f.route('GET /up', () => ({ body: {} })));

    expect((await call(`${url}/up`)).status).toBe(200);
    await fake.close();
    await fake.close();
    await expect(fetch(`${url}/up`)).rejects.toThrow();
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createHttpFake, type HttpFake } from '../../test/fakes/httpFake';
import { everythingIn, refusal } from '../../test/upstreamErrors';
import { getLogger } from '../platform/logger';
import { parseJson, redact, UpstreamClient, UpstreamHttp, UpstreamRefusal, type UpstreamCall, type UpstreamClientOptions } from './upstreamHttp';

const TOKEN = 'tok_live_0123456789abcdef';
const thingSchema = z.looseObject({ id: z.number().int() });
const messageSchema = z.looseObject({ message: z.string() });

let fake: HttpFake<Buffer>;
let origin: string;
/** Items of the listing at /api/items, served `pageLength` at a time; `next(page)` is the link each page offers. */
let listing: { items: number[]; pageLength: number; next: (page: number) => string | null };

beforeAll(async () => {
  fake = createHttpFake({ name: 'Upstream', parseBody: 'raw' });
  fake.route('GET /api/thing', () => ({ body: { id: 7 } }));
  fake.route('POST /api/things', () => ({ status: 201, body: { id: 8 } }));
  fake.route('GET /api/items', ({ query }) => {
    const page = Number(query.page ?? '1');
    const start = (page - 1) * listing.pageLength;
    return { body: { values: listing.items.slice(start, start + listing.pageLength), next: listing.next(page) } };
  });
  ({ url: origin } = await fake.listen());
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function client(overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  return new UpstreamClient({
    label: 'Upstream 9',
    name: 'upstream nine',
    logFields: { provider: 'example', host: 'upstream-9' },
    apiUrl: `${origin}/api`,
    timeoutMs: 1_000,
    credentialInvalidCode: 'GIT_CREDENTIAL_INVALID',
    upstreamMessage: (text) => messageSchema.safeParse(parseJson(text)).data?.message ?? '',
    refusals: {
      unauthorized: (operation) => `Upstream 9 refused the token while ${operation}`,
      forbidden: (operation, reply) =>
        reply.text.includes('insufficient_scope')
          ? { code: 'GIT_CREDENTIAL_INVALID', message: `The grant does not cover ${operation}` }
          : { code: 'NOT_FOUND', message: `The account may not do this (${operation})` },
    },
    ...overrides,
  });
}

function get(http: UpstreamHttp, path: string, extra: Partial<UpstreamCall> = {}): UpstreamCall {
  return { method: 'GET', url: http.url(path), operation: 'reading a thing', authorization: `Bearer ${TOKEN}`, secrets: [TOKEN], ...extra };
}

function captureLogs() {
  const logger = getLogger();
  const info = vi.spyOn(logger, 'info');
  const warn = vi.spyOn(logger, 'warn');
  return { info: () => info.mock.calls, warn: () => warn.mock.calls, text: () => JSON.stringify([info.mock.calls, warn.mock.calls]) };
}

function requestsTo(path: string) {
  return fake.requests.filter((request) => request.path === path);
}

describe('UpstreamHttp: sending', () => {
  it('resolves paths below the API root and copies absolute URLs, with the query set', () => {
    const http = client();
    expect(http.url('/items', { page: '2', q: 'a b' }).href).toBe(`${origin}/api/items?page=2&q=a+b`);
    const absolute = new URL(`${origin}/api/items?page=1`);
    const copy = http.url(absolute, { page: '3' });
    expect(copy.href).toBe(`${origin}/api/items?page=3`);
    expect(absolute.searchParams.get('page')).toBe('1');
    expect(new UpstreamHttp({ label: 'x', logFields: {}, apiUrl: `${origin}/api///`, timeoutMs: 1 }).url('/thing').href).toBe(`${origin}/api/thing`);
  });

  it('sends JSON with the credential, asking for JSON unless the call names its own media type', async () => {
    const http = client();
    const body = { name: 'web', tags: ['a'] };
    const reply = await http.send({
      ...get(http, '/things'),
      method: 'POST',
      body: { json: body },
      headers: { accept: 'application/vnd.example+json', 'x-api-version': '2024-01-01' },
    });
    expect(reply).toMatchObject({ status: 201, text: JSON.stringify({ id: 8 }) });
    expect(reply.headers.get('content-type')).toContain('application/json');
    const sent = requestsTo('/api/things').at(-1)!;
    expect(sent.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.example+json',
      'content-type': 'application/json',
      'x-api-version': '2024-01-01',
    });
    expect(JSON.parse(sent.body!.toString('utf8'))).toEqual(body);

    await http.send(get(http, '/thing', { authorization: undefined }));
    const plain = requestsTo('/api/thing').at(-1)!;
    expect(plain.headers.accept).toBe('application/json');
    expect(plain.headers.authorization).toBeUndefined();
  });

  it('sends a form as a form', async () => {
    const http = client();
    await http.send({ ...get(http, '/things'), method: 'POST', body: { form: new URLSearchParams({ grant_type: 'refresh_token', code: 'a&b' }) } });
    const sent = requestsTo('/api/things').at(-1)!;
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent.body!.toString('utf8')).toBe('grant_type=refresh_token&code=a%26b');
  });

  it('hands back every status as it came, for the caller to read', async () => {
    const http = client();
    fake.fail({ route: 'GET /api/thing', status: 409, body: { message: 'taken' } });
    expect(await http.send(get(http, '/thing'))).toMatchObject({ status: 409, text: '{"message":"taken"}' });
  });

  it('maps a timeout to UPSTREAM_ERROR, logged as a warning', async () => {
    const logs = captureLogs();
    fake.fail({ route: 'GET /api/thing', delayMs: 2_000 });
    const http = client({ timeoutMs: 200 });
    const err = await refusal(http.send(get(http, '/thing')));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Upstream 9 did not answer within 200 ms while reading a thing' });
    expect((err.cause as Error).message).toBe('GET /api/thing: TimeoutError');
    expect(logs.warn()).toEqual([
      [
        { provider: 'example', host: 'upstream-9', method: 'GET', path: '/api/thing', status: null, detail: 'TimeoutError' },
        'Upstream 9 failed while reading a thing',
      ],
    ]);
  });

  it('maps an unreachable host to UPSTREAM_ERROR, naming the failure without the request', async () => {
    const closed = createHttpFake({ name: 'Closed', parseBody: 'raw' });
    const { url } = await closed.listen();
    await closed.close();
    const logs = captureLogs();
    const http = client({ apiUrl: url, logLabel: 'Upstream nine' });
    const err = await refusal(http.send(get(http, `/thing?token=${TOKEN}`)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Upstream 9 could not be reached while reading a thing' });
    expect((err.cause as Error).message).toMatch(/^GET \/thing: TypeError ECONNREFUSED$/);
    expect(logs.warn()[0]?.[1]).toBe('Upstream nine failed while reading a thing');
    expect(everythingIn(err)).not.toContain(TOKEN);
    expect(logs.text()).not.toContain(TOKEN);
  });
});

describe('UpstreamClient: statuses', () => {
  it.each([
    [401, {}, 'GIT_CREDENTIAL_INVALID', 'Upstream 9 refused the token while reading a thing', 'info'],
    [403, {}, 'NOT_FOUND', 'The account may not do this (reading a thing)', 'info'],
    [403, { error: 'insufficient_scope' }, 'GIT_CREDENTIAL_INVALID', 'The grant does not cover reading a thing', 'info'],
    [404, {}, 'NOT_FOUND', 'Thing 7 not found on upstream nine', 'info'],
    [409, {}, 'UPSTREAM_ERROR', 'Upstream 9 failed while reading a thing (HTTP 409)', 'info'],
    [429, {}, 'UPSTREAM_ERROR', "Upstream 9's rate limit was reached while reading a thing; try again shortly", 'warn'],
    [503, {}, 'UPSTREAM_ERROR', 'Upstream 9 failed while reading a thing (HTTP 503)', 'warn'],
  ] as const)('maps %i %j to %s: “%s”, logged as %s', async (status, extra, code, message, level) => {
    const logs = captureLogs();
    const http = client();
    fake.fail({ route: 'GET /api/thing', status, body: { message: `no (${TOKEN})`, ...extra } });
    const err = await refusal(http.json(get(http, '/thing', { subject: 'Thing 7' }), thingSchema));
    expect(err).toMatchObject({ code, message });
    expect(err.cause).toBeInstanceOf(UpstreamRefusal);
    expect(err.cause).toMatchObject({ status, message: `GET /api/thing answered ${status}: no ([redacted])` });
    const entry = { provider: 'example', host: 'upstream-9', method: 'GET', path: '/api/thing', status, detail: 'no ([redacted])' };
    expect(level === 'warn' ? logs.warn() : logs.info()).toEqual([[entry, expect.stringMatching(/^Upstream 9 (failed while|refused) reading a thing$/)]]);
    expect(level === 'warn' ? logs.info() : logs.warn()).toEqual([]);
    expect(everythingIn(err)).not.toContain(TOKEN);
  });

  it('names a missing resource without a subject, and an upstream without its own name by its label', async () => {
    fake.fail({ route: 'GET /api/thing', status: 404, body: {} });
    const http = client({ name: undefined });
    const err = await refusal(http.json(get(http, '/thing'), thingSchema));
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'Resource not found on Upstream 9' });
    expect((err.cause as Error).message).toBe('GET /api/thing answered 404');
  });

  it('reads a successful answer through the schema', async () => {
    const http = client();
    expect(await http.json(get(http, '/thing'), thingSchema)).toEqual({ id: 7 });
    expect(await http.json({ ...get(http, '/things'), method: 'POST' }, thingSchema)).toEqual({ id: 8 });
  });

  it.each([
    ['an answer without JSON', '<html>down</html>'],
    ['an empty answer', undefined],
    ['JSON of another shape', { id: 'seven' }],
  ])('refuses %s with UPSTREAM_ERROR', async (_case, body) => {
    fake.fail({ route: 'GET /api/thing', status: 200, body: body ?? '' });
    const http = client();
    expect(await refusal(http.json(get(http, '/thing'), thingSchema))).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'Upstream 9 sent an unexpected response while reading a thing',
    });
  });
});

describe('UpstreamClient: listings', () => {
  const readPage = (body: unknown) => {
    const page = z.looseObject({ values: z.array(z.unknown()), next: z.string().nullable() }).parse(body);
    return { items: page.values, next: page.next };
  };
  const item = z.number().int();

  function serve(
    count: number,
    pageLength: number,
    next: (page: number) => string | null = (page) => (page * pageLength < count ? `${origin}/api/items?page=${page + 1}` : null),
  ) {
    listing = { items: Array.from({ length: count }, (_, i) => i), pageLength, next };
  }

  it('collects every page by its next link, each request carrying the first call’s credential', async () => {
    serve(7, 3);
    const before = requestsTo('/api/items').length;
    const http = client();
    expect(await http.collect(get(http, '/items', { operation: 'listing items' }), item, readPage)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const sent = requestsTo('/api/items').slice(before);
    expect(sent.map((request) => request.query.page)).toEqual([undefined, '2', '3']);
    expect(sent.every((request) => request.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('hands each page its reply and URL, for upstreams that page by headers', async () => {
    serve(5, 2, () => null);
    const http = client();
    const items = await http.collect(get(http, '/items'), item, (body, reply, url) => {
      const page = Number(url.searchParams.get('page') ?? '1');
      expect(reply.status).toBe(200);
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      return { items: readPage(body).items, next: page < 3 ? next : null };
    });
    expect(items).toEqual([0, 1, 2, 3, 4]);
  });

  it.each([
    ['another origin', 'https://attacker.example/api/items?page=2'],
    ['a path beside the API', '/apix/items?page=2'],
    ['a path outside the API', '/items?page=2'],
    ['something that is no URL', 'http://'],
  ])('follows no next link to %s', async (_case, link) => {
    serve(4, 2, (page) => (page === 1 ? (link.startsWith('/') ? `${origin}${link}` : link) : null));
    const before = fake.requests.length;
    const http = client();
    const err = await refusal(http.collect(get(http, '/items', { operation: 'listing items' }), item, readPage));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Upstream 9 sent an unexpected response while listing items' });
    expect(fake.requests.slice(before).map((request) => request.path)).toEqual(['/api/items']);
  });

  it('stops a listing whose next link repeats a page', async () => {
    serve(4, 2, () => `${origin}/api/items?page=2`);
    const http = client();
    const err = await refusal(http.collect(get(http, '/items', { operation: 'listing items' }), item, readPage));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Upstream 9 sent an unexpected response while listing items' });
    expect((err.cause as Error).message).toBe('the listing kept offering pages');
  });

  it('stops a listing that never ends after a thousand pages', async () => {
    serve(0, 1, (page) => `${origin}/api/items?page=${page + 1}`);
    const before = requestsTo('/api/items').length;
    const http = client();
    expect((await refusal(http.collect(get(http, '/items'), item, readPage))).code).toBe('UPSTREAM_ERROR');
    expect(requestsTo('/api/items').length - before).toBe(1_001);
  });

  it('turns a refusal on a later page into its AppError', async () => {
    serve(6, 2);
    fake.fail({ route: 'GET /api/items', status: 500, after: 1 });
    const http = client();
    expect(await refusal(http.collect(get(http, '/items', { operation: 'listing items' }), item, readPage))).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'Upstream 9 failed while listing items (HTTP 500)',
    });
  });

  it('refuses items of another shape', async () => {
    serve(2, 2);
    const http = client();
    const err = await refusal(http.collect(get(http, '/items'), z.string(), readPage));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'Upstream 9 sent an unexpected response while reading a thing' });
  });
});

describe('upstreamHttp helpers', () => {
  it('reads JSON, and nothing from an empty or broken body', () => {
    expect(parseJson('{"a":[1]}')).toEqual({ a: [1] });
    expect(parseJson('')).toBeUndefined();
    expect(parseJson('{"a":')).toBeUndefined();
  });

  it('redacts every secret, every time it appears, and skips empty ones', () => {
    expect(redact('a-s1-b-s1-s2', ['s1', '', undefined, 's2'])).toBe('a-[redacted]-b-[redacted]-[redacted]');
  });
});

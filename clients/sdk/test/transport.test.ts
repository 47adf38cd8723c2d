import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFrom, CLIENT_CODES, retryAfterOf } from '../src/errors.ts';
import { retryingFetch, type RetryEvent, type TransportOptions } from '../src/transport.ts';

interface Sent {
  method: string;
  key: string | null;
  body: string;
}

/** A fetch that answers from a script, one answer per request, and records what it was sent. */
function scripted(answers: Array<Response | Error>) {
  const sent: Sent[] = [];
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, key: request.headers.get('idempotency-key'), body: await request.text() });
    const answer = answers.shift();
    if (!answer) throw new Error('the script ran out of answers');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const ok = () => json(200, { success: true, data: { ok: true } });
const refusal = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { success: false, error: { code, message: code } }, headers);

function transport(answers: Array<Response | Error>, options: TransportOptions = {}) {
  const script = scripted(answers);
  const waits: number[] = [];
  const retries: RetryEvent[] = [];
  const send = retryingFetch({
    fetch: script.fetch,
    sleep: async (ms) => void waits.push(ms),
    random: () => 1,
    newKey: () => 'generated-key',
    onRetry: (event) => void retries.push(event),
    ...options,
  });
  return { send, sent: script.sent, waits, retries };
}

const post = (headers: Record<string, string> = {}) => new Request('http://api.test/v1/things', { method: 'POST', body: '{"name":"a"}', headers });

describe('the retrying transport', () => {
  it('gives every write an Idempotency-Key, keeps the caller’s own, and gives reads none', async () => {
    const t = transport([ok(), ok(), ok(), ok(), ok()]);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) await t.send(new Request('http://api.test/v1/x', { method }));
    await t.send(new Request('http://api.test/v1/x'));
    expect(t.sent.map((s) => [s.method, s.key])).toEqual([
      ['POST', 'generated-key'],
      ['PUT', 'generated-key'],
      ['PATCH', 'generated-key'],
      ['DELETE', 'generated-key'],
      ['GET', null],
    ]);
    const own = transport([ok()]);
    await own.send(post({ 'Idempotency-Key': 'mine' }));
    expect(own.sent[0]!.key).toBe('mine');
  });

  it('retries a 429 after the Retry-After it names, sending the same key and body again', async () => {
    const t = transport([refusal(429, 'RATE_LIMITED', { 'retry-after': '3' }), ok()]);
    const response = await t.send(post());
    expect(response.status).toBe(200);
    expect(t.sent).toHaveLength(2);
    expect(t.sent[1]).toEqual(t.sent[0]);
    expect(t.sent[1]).toEqual({ method: 'POST', key: 'generated-key', body: '{"name":"a"}' });
    expect(t.waits).toEqual([3000]);
    expect(t.retries).toEqual([{ attempt: 1, status: 429, delayMs: 3000, method: 'POST', url: 'http://api.test/v1/things' }]);
  });

  it('waits the longer of its back-off and Retry-After', async () => {
    const t = transport([refusal(429, 'RATE_LIMITED', { 'retry-after': '0' }), ok()], { baseDelayMs: 700 });
    await t.send(post());
    expect(t.waits).toEqual([700]);
  });

  it('backs off exponentially with full jitter, capped, and gives up after the set retries with the last answer', async () => {
    const t = transport(
      [refusal(503, 'UNAVAILABLE'), refusal(502, 'BAD_GATEWAY'), refusal(504, 'TIMEOUT'), refusal(503, 'UNAVAILABLE'), refusal(503, 'LAST')],
      {
        baseDelayMs: 100,
        maxDelayMs: 350,
      },
    );
    const response = await t.send(post());
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('LAST');
    expect(t.waits).toEqual([100, 200, 350, 350]);
    expect(t.sent.every((s) => s.key === 'generated-key')).toBe(true);

    const jittered = transport([refusal(503, 'UNAVAILABLE'), ok()], { baseDelayMs: 1000, random: () => 0.25 });
    await jittered.send(post());
    expect(jittered.waits).toEqual([250]);
  });

  it('uses its defaults: four retries, 500 ms doubling', async () => {
    const t = transport([503, 503, 503, 503, 503].map((status) => refusal(status, 'UNAVAILABLE')));
    expect((await t.send(post())).status).toBe(503);
    expect(t.waits).toEqual([500, 1000, 2000, 4000]);
  });

  it('does not retry answers that would only repeat: 400, 401, 404, 409, 422, 500, nor any with retries off', async () => {
    for (const status of [400, 401, 404, 409, 422, 500]) {
      const t = transport([refusal(status, 'NO'), ok()]);
      expect((await t.send(post())).status).toBe(status);
      expect(t.sent).toHaveLength(1);
    }
    const off = transport([refusal(429, 'RATE_LIMITED', { 'retry-after': '1' }), ok()], { retries: 0 });
    expect((await off.send(post())).status).toBe(429);
    expect(off.sent).toHaveLength(1);
  });

  it('hands back a 429 at once when Retry-After is longer than it would ever wait', async () => {
    const t = transport([refusal(429, 'RATE_LIMITED', { 'retry-after': '120' }), ok()], { maxDelayMs: 60_000 });
    expect((await t.send(post())).status).toBe(429);
    expect(t.waits).toEqual([]);
    const atTheLimit = transport([refusal(429, 'RATE_LIMITED', { 'retry-after': '60' }), ok()], { maxDelayMs: 60_000 });
    expect((await atTheLimit.send(post())).status).toBe(200);
    expect(atTheLimit.waits).toEqual([60_000]);
  });

  it('waits out its own earlier attempt (409 IDEMPOTENCY_IN_PROGRESS on a retry), not someone else’s first', async () => {
    const t = transport([new TypeError('fetch failed'), refusal(409, 'IDEMPOTENCY_IN_PROGRESS'), ok()]);
    expect((await t.send(post())).status).toBe(200);
    expect(t.sent).toHaveLength(3);
    expect(t.retries.map((r) => r.status)).toEqual([0, 409]);

    const first = transport([refusal(409, 'IDEMPOTENCY_IN_PROGRESS'), ok()]);
    expect((await first.send(post())).status).toBe(409);
    const otherConflict = transport([new TypeError('fetch failed'), refusal(409, 'CONFLICT'), ok()]);
    expect((await otherConflict.send(post())).status).toBe(409);
    const notJson = transport([new TypeError('fetch failed'), new Response('busy', { status: 409 }), ok()]);
    expect((await notJson.send(post())).status).toBe(409);
    const noError = transport([new TypeError('fetch failed'), json(409, {}), ok()]);
    expect((await noError.send(post())).status).toBe(409);
    const notAConflict = transport([new TypeError('fetch failed'), refusal(422, 'IDEMPOTENCY_IN_PROGRESS'), ok()]);
    expect((await notAConflict.send(post())).status).toBe(422);
  });

  it('retries an answer without a body as well', async () => {
    const t = transport([new Response(null, { status: 503 }), ok()]);
    expect((await t.send(post())).status).toBe(200);
    expect(t.sent).toHaveLength(2);
  });

  it('makes a fresh UUID key per write and sends with the global fetch unless given one', async () => {
    const realFetch = globalThis.fetch;
    const keys: Array<string | null> = [];
    globalThis.fetch = async (input: string | URL | Request) => {
      keys.push((input as Request).headers.get('idempotency-key'));
      return ok();
    };
    try {
      const send = retryingFetch();
      await send(post());
      await send(post());
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('retries a request that got no answer, then lets the failure through', async () => {
    const recovered = transport([new TypeError('fetch failed'), ok()]);
    expect((await recovered.send(post())).status).toBe(200);
    expect(recovered.waits).toEqual([500]);

    const failure = new TypeError('fetch failed');
    const gone = transport([failure, failure, failure], { retries: 2 });
    await expect(gone.send(post())).rejects.toBe(failure);
    expect(gone.sent).toHaveLength(3);
    expect(gone.waits).toEqual([500, 1000]);
  });

  it('stops at once when the caller aborts, retrying nothing', async () => {
    const controller = new AbortController();
    const failure = new DOMException('aborted', 'AbortError');
    const script = scripted([failure, ok()]);
    const send = retryingFetch({ fetch: script.fetch, sleep: async () => undefined });
    controller.abort();
    await expect(send(new Request('http://api.test/v1/x', { method: 'POST', signal: controller.signal }))).rejects.toBe(failure);
    expect(script.sent).toHaveLength(1);
  });

  it('sleeps for real when no sleep is given, and an abort ends the wait', async () => {
    const script = scripted([refusal(503, 'UNAVAILABLE'), ok()]);
    const send = retryingFetch({ fetch: script.fetch, baseDelayMs: 30, random: () => 1 });
    const started = Date.now();
    expect((await send(post())).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);

    const controller = new AbortController();
    const slow = retryingFetch({ fetch: scripted([refusal(503, 'UNAVAILABLE'), ok()]).fetch, baseDelayMs: 600_000, maxDelayMs: 600_000, random: () => 1 });
    const pending = slow(new Request('http://api.test/v1/x', { method: 'POST', signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');

    const early = new AbortController();
    const earlyScript = scripted([refusal(503, 'UNAVAILABLE'), ok()]);
    // A wait of ten minutes: only the abort can end this test before its timeout.
    const abortedBeforeTheWait = retryingFetch({
      fetch: earlyScript.fetch,
      baseDelayMs: 600_000,
      maxDelayMs: 600_000,
      random: () => 1,
      onRetry: () => early.abort(new Error('stopped first')),
    });
    await expect(abortedBeforeTheWait(new Request('http://api.test/v1/x', { method: 'POST', signal: early.signal }))).rejects.toThrow('stopped first');
    expect(earlyScript.sent).toHaveLength(1);
  });
});

describe('errors', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(retryAfterOf('7', now)).toBe(7);
    expect(retryAfterOf(' 12 ', now)).toBe(12);
    expect(retryAfterOf('Tue, 24 Nov 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterOf('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterOf('Tue, 24 Nov 2026 12:00:00 GMT', now + 1)).toBe(0);
    expect(retryAfterOf('soon', now)).toBeUndefined();
    // Date.parse reads these as dates in 2001; they are neither seconds nor an HTTP date.
    for (const loose of ['1.5', '-5', '12abc', 'abc12', '2026-11-24T12:00:30Z', 'Tue, 24 Nov 2026 12:00:30 GMT+1', 'x Tue, 24 Nov 2026 12:00:30 GMT']) {
      expect(retryAfterOf(loose, now), loose).toBeUndefined();
    }
    expect(retryAfterOf('', now)).toBeUndefined();
    expect(retryAfterOf(null, now)).toBeUndefined();
  });

  it('makes one ApiError of an envelope, with its fields, request id and Retry-After', () => {
    const response = new Response(null, { status: 422, headers: { 'x-request-id': 'req-1', 'retry-after': '5' } });
    const error = apiErrorFrom(response, {
      success: false,
      error: { code: 'VALIDATION_ERROR', message: 'name: Required', fields: { name: 'Required' }, docsUrl: 'https://docs.example/e' },
    });
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 422,
      code: 'VALIDATION_ERROR',
      message: 'name: Required',
      fields: { name: 'Required' },
      requestId: 'req-1',
      docsUrl: 'https://docs.example/e',
      retryAfterSeconds: 5,
    });
    expect(error).toBeInstanceOf(Error);
    const cause = new TypeError('socket hang up');
    expect(new ApiError({ status: 0, code: CLIENT_CODES.network, message: 'x', cause }).cause).toBe(cause);
  });

  it('names an answer without the envelope UNEXPECTED_RESPONSE, quoting its start', () => {
    const html = apiErrorFrom(new Response(null, { status: 502 }), '  <html>Bad gateway</html>  ');
    expect(html).toMatchObject({ status: 502, code: CLIENT_CODES.unexpected, message: "HTTP 502 without the API's error envelope: <html>Bad gateway</html>" });
    expect(html.requestId).toBeUndefined();
    expect(apiErrorFrom(new Response(null, { status: 500 }), undefined).message).toBe("HTTP 500 without the API's error envelope");
    expect(apiErrorFrom(new Response(null, { status: 502 }), '   ').message).toBe("HTTP 502 without the API's error envelope");
    expect(apiErrorFrom(new Response(null, { status: 502 }), 'x'.repeat(300)).message).toBe(`HTTP 502 without the API's error envelope: ${'x'.repeat(200)}`);
    for (const body of [
      { success: false },
      { success: true, error: { code: 'X', message: 'm' } },
      { success: false, error: { code: 1, message: 'm' } },
      { success: false, error: { code: 'X' } },
      { success: false, error: null },
      null,
    ]) {
      expect(apiErrorFrom(new Response(null, { status: 400 }), body).code).toBe(CLIENT_CODES.unexpected);
    }
  });
});

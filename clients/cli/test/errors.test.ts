import { ApiError, CLIENT_CODES, WaitError } from '@cloudpanel/sdk';
import { describe, expect, it } from 'vitest';
import { describeError, errorJson, EXIT, exitCodeOf, UsageError } from '../src/errors.ts';

const api = (status: number, code = 'X', extra: Partial<ConstructorParameters<typeof ApiError>[0]> = {}) =>
  new ApiError({ status, code, message: `${code} happened`, ...extra });

describe('exit codes', () => {
  it('map each class of failure to its own code', () => {
    expect(exitCodeOf(api(401))).toBe(3);
    expect(exitCodeOf(api(403))).toBe(3);
    expect(exitCodeOf(api(404))).toBe(4);
    for (const status of [400, 409, 413, 415, 422]) expect(exitCodeOf(api(status))).toBe(5);
    expect(exitCodeOf(api(402))).toBe(6);
    expect(exitCodeOf(api(429))).toBe(7);
    for (const status of [502, 503, 504]) expect(exitCodeOf(api(status))).toBe(8);
    expect(exitCodeOf(api(0, CLIENT_CODES.network))).toBe(8);
    for (const status of [500, 501, 405, 418]) expect(exitCodeOf(api(status))).toBe(1);
    expect(exitCodeOf(api(0, CLIENT_CODES.unexpected))).toBe(1);
    expect(exitCodeOf(new UsageError('x'))).toBe(2);
    expect(exitCodeOf(new WaitError('timeout', 'x', null))).toBe(9);
    expect(exitCodeOf(new WaitError('failed', 'x', null))).toBe(9);
    expect(exitCodeOf(new Error('x'))).toBe(1);
    expect(exitCodeOf('a string')).toBe(1);
    // An ApiError-looking object that is not one (a thrown plain object) is no class of the API's.
    expect(exitCodeOf({ status: 404, code: 'NOT_FOUND', message: 'x' })).toBe(1);
  });

  it('are the documented numbers', () => {
    expect(EXIT).toEqual({ ok: 0, failure: 1, usage: 2, auth: 3, notFound: 4, rejected: 5, payment: 6, rateLimited: 7, unavailable: 8, waitFailed: 9 });
  });
});

describe('error messages', () => {
  it('give people the code, the message, each field, when to retry and the request id', () => {
    expect(describeError(api(422, 'VALIDATION_ERROR', { fields: { name: 'Required', 'ports.0': 'Too big' }, requestId: 'req-9' }))).toBe(
      'Error: VALIDATION_ERROR: VALIDATION_ERROR happened\n  name: Required\n  ports.0: Too big\n  request id: req-9\n',
    );
    expect(describeError(api(429, 'RATE_LIMITED', { retryAfterSeconds: 30 }))).toBe('Error: RATE_LIMITED: RATE_LIMITED happened\n  try again in 30 s\n');
    expect(describeError(api(503, 'UNAVAILABLE', { retryAfterSeconds: 30 }))).toBe('Error: UNAVAILABLE: UNAVAILABLE happened\n');
    expect(describeError(api(429, 'RATE_LIMITED'))).toBe('Error: RATE_LIMITED: RATE_LIMITED happened\n');
    expect(describeError(new WaitError('timeout', 'Still not there after 5 s', null))).toBe('Error: WAIT_TIMEOUT: Still not there after 5 s\n');
    expect(describeError(new WaitError('failed', 'The build failed', null))).toBe('Error: WAIT_FAILED: The build failed\n');
    expect(describeError(new UsageError('No project chosen'))).toBe('Error: No project chosen\n');
    expect(describeError(42)).toBe('Error: 42\n');
    expect(new UsageError('x').name).toBe('UsageError');
  });

  it('give scripts one JSON object', () => {
    expect(JSON.parse(errorJson(api(422, 'VALIDATION_ERROR', { fields: { name: 'Required' }, requestId: 'req-9' })))).toEqual({
      error: { status: 422, code: 'VALIDATION_ERROR', message: 'VALIDATION_ERROR happened', fields: { name: 'Required' }, requestId: 'req-9' },
    });
    expect(JSON.parse(errorJson(api(404, 'NOT_FOUND')))).toEqual({ error: { status: 404, code: 'NOT_FOUND', message: 'NOT_FOUND happened' } });
    expect(JSON.parse(errorJson(new WaitError('timeout', 'late', null)))).toEqual({ error: { code: 'WAIT_TIMEOUT', message: 'late' } });
    expect(JSON.parse(errorJson(new WaitError('failed', 'broke', null)))).toEqual({ error: { code: 'WAIT_FAILED', message: 'broke' } });
    expect(JSON.parse(errorJson(new UsageError('bad')))).toEqual({ error: { code: 'USAGE', message: 'bad' } });
    expect(JSON.parse(errorJson(new Error('boom')))).toEqual({ error: { code: 'FAILURE', message: 'boom' } });
    expect(JSON.parse(errorJson('text'))).toEqual({ error: { code: 'FAILURE', message: 'text' } });
    expect(errorJson(new Error('x')).endsWith('}\n')).toBe(true);
  });
});

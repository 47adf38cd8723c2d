import { describe, expect, it } from 'vitest';
import { api, createUser, expectError } from '../../../test/helpers';

describe('/v1 bridge', () => {
  it('wraps unknown paths, wrong methods and malformed JSON in the envelope', async () => {
    const unknown = await api('GET', '/v1/no-such-thing');
    expectError(unknown, 404, 'NOT_FOUND');
    expect(unknown.headers.get('x-request-id')).toBeTruthy();

    const wrongMethod = await api('PUT', '/v1/projects');
    expectError(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    expect(wrongMethod.headers.get('allow')).toBe('GET');

    const malformed = await api('POST', '/v1/accounts', { rawBody: '{"name":' });
    expectError(malformed, 422, 'VALIDATION_ERROR');

    const notJson = await api('POST', '/v1/accounts', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expectError(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('names every failing field on a validation error', async () => {
    const res = await api('POST', '/v1/accounts', { body: { name: '', email: 'not-an-email', password: 'short' } });
    expectError(res, 422, 'VALIDATION_ERROR');
    const message = res.body && !res.body.success ? res.body.error.message : '';
    expect(message).toContain('name');
    expect(message).toContain('email');
    expect(message).toContain('password');
  });

  it('answers 401 with the envelope when no credential is sent', async () => {
    expectError(await api('GET', '/v1/projects'), 401, 'UNAUTHORIZED');
  });

  it('refuses cookie-authenticated writes from another origin', async () => {
    const user = await createUser();
    const res = await api('POST', '/v1/projects/create', {
      cookie: user.cookie,
      headers: { origin: 'https://evil.example' },
      body: { name: 'x' },
    });
    expectError(res, 403, 'FORBIDDEN');
  });
});

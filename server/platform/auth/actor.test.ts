import { beforeAll, describe, expect, it } from 'vitest';
import { api, createApiKey, createProject, createUser, type TestUser } from '../../../test/helpers';
import { resolveActor } from './actor';
import { API_KEY_VISIBLE_LENGTH } from './tokens';

describe('resolveActor with an API key', () => {
  let user: TestUser;
  let projectId: string;

  beforeAll(async () => {
    user = await createUser();
    ({ projectId } = await createProject(user));
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('resolves a key, by Bearer or X-API-Key, to its project, scopes, creator and visible prefix', async () => {
    const { key, id } = await createApiKey(user, projectId, ['projects:read']);
    const expected = {
      kind: 'apiKey',
      keyId: id,
      projectId,
      userId: user.id,
      scopes: ['projects:read'],
      role: 'owner',
      keyPrefix: key.slice(0, API_KEY_VISIBLE_LENGTH),
    };
    expect(await resolveActor(bearer(key))).toEqual(expected);
    expect(await resolveActor({ apiKey: key })).toEqual(expected);
  });

  it('refuses a key that is unknown, revoked or expired, each with its reason', async () => {
    const revoked = await createApiKey(user, projectId, ['projects:read']);
    await api('DELETE', `/v1/projects/${projectId}/api-keys/${revoked.id}`, { cookie: user.cookie });
    const expired = await createApiKey(user, projectId, ['projects:read'], { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const later = new Date(Date.now() + 120_000);
    expect([
      await resolveActor(bearer('cpk_not-a-key-anyone-has')),
      await resolveActor(bearer(revoked.key)),
      await resolveActor(bearer(expired.key), later),
    ]).toEqual([
      { kind: 'invalid', reason: 'Invalid API key' },
      { kind: 'invalid', reason: 'This API key has been revoked' },
      { kind: 'invalid', reason: 'This API key has expired' },
    ]);
  });

  it('refuses another Authorization scheme rather than reading the session cookie beside it', async () => {
    expect(await resolveActor({ authorization: 'Basic dXNlcjpwYXNz', cookie: user.cookie })).toEqual({
      kind: 'invalid',
      reason: 'Unsupported Authorization scheme; use Bearer <API key>',
    });
  });
});

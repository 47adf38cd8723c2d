import { describe, expect, it } from 'vitest';
import { api, createUser, expectError } from '../../../test/helpers';
import { getAuthOptions } from './nextAuth';

describe('signing out', () => {
  it('ends the session: a cookie saved before sign-out no longer works', async () => {
    const user = await createUser();
    expect((await api('GET', '/v1/account', { cookie: user.cookie })).status).toBe(200);
    await getAuthOptions().events!.signOut!({ token: { sub: user.id, ver: 1 }, session: undefined as never });
    expectError(await api('GET', '/v1/account', { cookie: user.cookie }), 401, 'UNAUTHORIZED');
  });

  it('changes nothing when the session had already ended', async () => {
    const user = await createUser();
    await getAuthOptions().events!.signOut!({ token: { sub: user.id, ver: 0 }, session: undefined as never });
    expect((await api('GET', '/v1/account', { cookie: user.cookie })).status).toBe(200);
  });
});

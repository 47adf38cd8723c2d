import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDockerHub, type FakeDockerHub } from '../../../test/fakes/dockerHubServer';
import { everythingIn, refusal } from '../../../test/upstreamErrors';
import { DockerHubProvider } from './dockerhub';
import type { ImageHubCredential } from './types';

let fake: FakeDockerHub;
let provider: DockerHubProvider;
let ada: ImageHubCredential;

beforeAll(async () => {
  fake = await startFakeDockerHub();
  provider = new DockerHubProvider({ apiUrl: fake.apiUrl, timeoutMs: 400 });
  ada = { username: 'Ada', accessToken: fake.addAccount('ada').accessToken };
  fake.addAccount('grace');
  fake.addOrganisation('acme', ['ada', 'grace']);
  fake.addOrganisation('labs', ['ada']);
  fake.addOrganisation('strangers', ['grace']);
  fake.addRepository('ada', 'tools', { description: 'CLI tools', pullCount: 12, starCount: 3, lastUpdated: '2024-03-01T10:00:00.123456Z' });
  fake.addRepository('ada', 'scratch', { isPrivate: true, lastUpdated: null });
  for (let i = 0; i < 130; i += 1) {
    fake.addRepository('acme', `svc-${String(i).padStart(3, '0')}`, {
      isPrivate: i % 2 === 0,
      lastUpdated: new Date(Date.UTC(2023, 0, 1, 0, i)).toISOString(),
    });
  }
  fake.addRepository('labs', 'experiment', { lastUpdated: '2024-05-01T00:00:00Z', description: null });
  fake.addRepository('strangers', 'public-one', { lastUpdated: '2024-06-01T00:00:00Z' });
  fake.addRepository('strangers', 'hidden', { isPrivate: true });
});

afterAll(async () => {
  await fake.close();
});

function logins(since: number) {
  return fake.requests.slice(since).filter((request) => request.path === '/v2/users/login');
}

describe('Docker Hub adapter: verifying a credential', () => {
  it('logs in with the access token as the password and answers the username as the hub spells it', async () => {
    const before = fake.requests.length;
    expect(await provider.verify(ada)).toEqual({ username: 'ada' });
    const [login] = logins(before);
    expect(JSON.parse(login!.body!.toString('utf8'))).toEqual({ username: 'Ada', password: ada.accessToken });
    const user = fake.requests.slice(before).find((request) => request.path === '/v2/user/')!;
    expect(user.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(provider.kind).toBe('dockerhub');
  });

  it('refuses a wrong token with IMAGE_HUB_CREDENTIAL_INVALID, without repeating it', async () => {
    const wrong = { username: 'ada', accessToken: 'dckr_pat_wrong-token-value' };
    const err = await refusal(provider.verify(wrong));
    expect(err.code).toBe('IMAGE_HUB_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(wrong.accessToken);
  });

  it('says so when a password login needs a second factor', async () => {
    fake.addAccount('mfa', { password: 'correct horse', twoFactor: true });
    const err = await refusal(provider.verify({ username: 'mfa', accessToken: 'correct horse' }));
    expect(err.code).toBe('IMAGE_HUB_CREDENTIAL_INVALID');
    expect(err.message).toContain('personal access token');
  });

  it('checks again on every verification, so a revoked token is refused at once', async () => {
    const credential = { username: 'grace', accessToken: fake.addAccessToken('grace') };
    await provider.verify(credential);
    fake.revokeAccessToken('grace', credential.accessToken);
    expect((await refusal(provider.verify(credential))).code).toBe('IMAGE_HUB_CREDENTIAL_INVALID');
  });
});

describe('Docker Hub adapter: repositories', () => {
  it('lists the user’s namespace and every organisation’s across pages, newest first', async () => {
    const before = fake.requests.length;
    const repositories = await provider.listRepositories(ada);

    expect(repositories).toHaveLength(2 + 130 + 1);
    expect(repositories.slice(0, 3)).toEqual([
      { namespace: 'labs', name: 'experiment', private: false, description: null, pullCount: 0, starCount: 0, lastUpdated: '2024-05-01T00:00:00.000Z' },
      { namespace: 'ada', name: 'tools', private: false, description: 'CLI tools', pullCount: 12, starCount: 3, lastUpdated: '2024-03-01T10:00:00.123Z' },
      { namespace: 'acme', name: 'svc-129', private: false, description: null, pullCount: 0, starCount: 0, lastUpdated: '2023-01-01T02:09:00.000Z' },
    ]);
    expect(repositories.at(-1)).toMatchObject({ namespace: 'ada', name: 'scratch', private: true, lastUpdated: null });
    expect(repositories.some((repository) => repository.namespace === 'strangers')).toBe(false);

    const acmePages = fake.requests.slice(before).filter((request) => request.path === '/v2/repositories/acme/');
    expect(acmePages.map((request) => request.query.page ?? '1')).toEqual(['1', '2']);
    expect(acmePages.every((request) => request.query.page_size === '100')).toBe(true);
  });

  it('falls back to the user’s own namespace when the organisation listing is refused', async () => {
    fake.fail('GET /v2/user/orgs/', { status: 403, body: { detail: 'token scope does not allow this' } });
    const repositories = await provider.listRepositories(ada);
    expect(new Set(repositories.map((repository) => repository.namespace))).toEqual(new Set(['ada']));
  });

  it('never follows a next link off the hub', async () => {
    fake.fail('GET /v2/user/orgs/', { status: 200, body: { count: 2, next: 'http://198.51.100.9/v2/user/orgs/?page=2', previous: null, results: [] } });
    expect((await refusal(provider.listRepositories(ada))).code).toBe('UPSTREAM_ERROR');
  });
});

describe('Docker Hub adapter: the login cache', () => {
  it('logs in once for several calls with the same credential, and again for another credential', async () => {
    const credential = { username: 'grace', accessToken: fake.addAccessToken('grace') };
    const before = fake.requests.length;
    await Promise.all([provider.listRepositories(credential), provider.listRepositories(credential)]);
    await provider.listTags(credential, 'acme', 'svc-001');
    expect(logins(before)).toHaveLength(1);

    await provider.listTags({ username: 'grace', accessToken: fake.addAccessToken('grace') }, 'acme', 'svc-001');
    expect(logins(before)).toHaveLength(2);
  });

  it('logs in again once when the hub ends a cached session early', async () => {
    const credential = { username: 'grace', accessToken: fake.addAccessToken('grace') };
    await provider.listTags(credential, 'acme', 'svc-001');
    fake.endSessions();
    const before = fake.requests.length;
    await provider.listTags(credential, 'acme', 'svc-001');
    expect(logins(before)).toHaveLength(1);
  });

  it('refuses once the token behind a cached session is revoked', async () => {
    const credential = { username: 'grace', accessToken: fake.addAccessToken('grace') };
    await provider.listTags(credential, 'acme', 'svc-001');
    fake.endSessions();
    fake.revokeAccessToken('grace', credential.accessToken);
    const err = await refusal(provider.listTags(credential, 'acme', 'svc-001'));
    expect(err.code).toBe('IMAGE_HUB_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(credential.accessToken);
  });

  it('keeps no session whose JWT lives shorter than the safety margin', async () => {
    const shortLived = await startFakeDockerHub({ sessionSeconds: 30 });
    try {
      const credential = { username: 'ada', accessToken: shortLived.addAccount('ada').accessToken };
      const hub = new DockerHubProvider({ apiUrl: shortLived.apiUrl, timeoutMs: 400 });
      await hub.listRepositories(credential);
      await hub.listRepositories(credential);
      expect(shortLived.requests.filter((request) => request.path === '/v2/users/login')).toHaveLength(2);
    } finally {
      await shortLived.close();
    }
  });
});

describe('Docker Hub adapter: tags', () => {
  it('lists every tag across pages, newest first, with size and digest', async () => {
    fake.addRepository('ada', 'app', { lastUpdated: '2024-01-01T00:00:00Z' });
    for (let i = 0; i < 130; i += 1) {
      fake.addTag('ada', 'app', {
        name: `v${i}`,
        fullSize: 1000 + i,
        digest: `sha256:${String(i).padStart(64, '0')}`,
        lastUpdated: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      });
    }
    fake.addTag('ada', 'app', { name: 'never-pushed', lastUpdated: null });
    // A credential of its own: the cache tests above ended every session the hub had issued.
    const credential = { username: 'ada', accessToken: fake.addAccessToken('ada') };
    const before = fake.requests.length;

    const tags = await provider.listTags(credential, 'ada', 'app');
    expect(tags).toHaveLength(131);
    expect(tags[0]).toEqual({ name: 'v129', size: 1129, digest: `sha256:${'0'.repeat(61)}129`, lastUpdated: '2024-01-01T02:09:00.000Z' });
    expect(tags.at(-1)).toEqual({ name: 'never-pushed', size: 0, digest: null, lastUpdated: null });
    const pages = fake.requests.slice(before).filter((request) => request.path === '/v2/namespaces/ada/repositories/app/tags');
    expect(pages.map((request) => request.query.page ?? '1')).toEqual(['1', '2']);
  });

  it('answers NOT_FOUND for a repository the credential does not reach or a name that is no segment', async () => {
    expect((await refusal(provider.listTags(ada, 'strangers', 'hidden'))).code).toBe('NOT_FOUND');
    expect((await refusal(provider.listTags(ada, 'ada', 'missing'))).code).toBe('NOT_FOUND');
    const before = fake.requests.length;
    expect((await refusal(provider.listTags(ada, '..', 'app'))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before);
  });
});

describe('Docker Hub adapter: failures', () => {
  it('maps a server error to UPSTREAM_ERROR naming the work', async () => {
    fake.fail('GET /v2/namespaces/:namespace/repositories/:repository/tags', { status: 500 });
    const err = await refusal(provider.listTags(ada, 'ada', 'tools'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The image hub failed while listing tags (HTTP 500)');
  });

  it('maps a failed login to UPSTREAM_ERROR when the hub is down, not to a refused credential', async () => {
    fake.fail('POST /v2/users/login', { status: 503 });
    expect((await refusal(provider.verify(ada))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps a rate limit to UPSTREAM_ERROR that says so', async () => {
    fake.fail('GET /v2/repositories/:namespace/', { status: 429, body: { message: 'Too Many Requests', errinfo: {} } });
    expect((await refusal(provider.listRepositories(ada))).message).toContain('rate limit');
  });

  it('maps a timeout to UPSTREAM_ERROR', async () => {
    fake.fail('GET /v2/user/', { delayMs: 1500 });
    const err = await refusal(provider.listRepositories(ada));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The image hub did not answer within 400 ms while reading the account');
  });

  it('maps an unreadable answer to UPSTREAM_ERROR', async () => {
    fake.fail('GET /v2/namespaces/:namespace/repositories/:repository/tags', { status: 200, body: '<html></html>' });
    expect((await refusal(provider.listTags(ada, 'ada', 'tools'))).code).toBe('UPSTREAM_ERROR');
    fake.fail('GET /v2/namespaces/:namespace/repositories/:repository/tags', { status: 200, body: { results: [{ name: 'x', full_size: 'big' }] } });
    expect((await refusal(provider.listTags(ada, 'ada', 'tools'))).code).toBe('UPSTREAM_ERROR');
  });
});

import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../../test/fakes/githubServer';
import { everythingIn, refusal } from '../../../test/upstreamErrors';
import { getLogger } from '../../platform/logger';
import { GitHubAppProvider, type GitHubAppOptions } from './github';
import { appJwt, loadAppPrivateKey } from './githubAuth';
import { BRANCHES_PER_PAGE } from './types';

let fake: FakeGitHub;
let counter = 0;

const REDIRECT_URI = 'https://panel.example.com/v1/integrations/git-host-1/callback';

beforeAll(async () => {
  fake = await startFakeGitHub();
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  vi.restoreAllMocks();
  Object.assign(fake.settings, { clockOffsetMs: 0, tokenLifetimeMs: 60 * 60 * 1000, maxInlineFileBytes: 1024 * 1024 });
});

/** A provider of its own, so each test starts with an empty token cache. */
function github(overrides: Partial<GitHubAppOptions> = {}): GitHubAppProvider {
  return new GitHubAppProvider({
    apiUrl: fake.apiUrl,
    webUrl: fake.webUrl,
    appId: fake.app.appId,
    appSlug: fake.app.appSlug,
    privateKey: fake.app.privateKey,
    clientId: fake.app.clientId,
    clientSecret: fake.app.clientSecret,
    packagesRegistry: 'ghcr.io',
    timeoutMs: 2_000,
    ...overrides,
  });
}

/** An account of its own for a test, with the app installed on it. */
function installed(type: 'User' | 'Organization' = 'User'): { login: string; installationId: string } {
  counter += 1;
  const login = `${type === 'Organization' ? 'Org' : 'user'}-${counter}`;
  fake.addAccount(login, type);
  return { login, installationId: fake.installApp(login) };
}

function requestsTo(method: string, path: string) {
  return fake.requests.filter((request) => request.method === method && request.path === path);
}

function mints(installationId: string): number {
  return requestsTo('POST', `/app/installations/${installationId}/access_tokens`).length;
}

function decodeSegment(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('GitHub adapter: pages on the web host', () => {
  it('sends users to the app’s installation page and the OAuth consent page with the state', () => {
    const provider = github();
    const install = new URL(provider.installUrl('s+t/a=te&x'));
    expect(`${install.origin}${install.pathname}`).toBe(`${fake.webUrl}/apps/${fake.app.appSlug}/installations/new`);
    expect(install.searchParams.get('state')).toBe('s+t/a=te&x');

    const consent = new URL(provider.authorizeUrl('st&ate', REDIRECT_URI));
    expect(`${consent.origin}${consent.pathname}`).toBe(`${fake.webUrl}/login/oauth/authorize`);
    expect(Object.fromEntries(consent.searchParams)).toEqual({ client_id: fake.app.clientId, redirect_uri: REDIRECT_URI, state: 'st&ate' });
    expect(provider).toMatchObject({ host: 'git-host-1', kind: 'github' });
    expect(provider.description).toContain(fake.app.appSlug);
  });
});

describe('GitHub adapter: app authentication', () => {
  it('signs an RS256 JWT dated a minute back, living at most ten minutes, issued by the app', () => {
    const now = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const jwt = appJwt('12345', loadAppPrivateKey(fake.app.privateKey), now);
    const [header, payload, signature] = jwt.split('.');
    expect(decodeSegment(header!)).toEqual({ alg: 'RS256', typ: 'JWT' });
    const claims = decodeSegment(payload!);
    expect(claims.iss).toBe('12345');
    expect(claims.iat).toBe(Math.floor(now / 1000) - 60);
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(600);
    expect(Number(claims.exp)).toBeGreaterThan(now / 1000);
    const publicKey = createPublicKey(fake.app.privateKey);
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
  });

  it('is accepted by GitHub, with the API version, media type and a User-Agent', async () => {
    const { login, installationId } = installed('Organization');
    const installation = await github().getInstallation(installationId);
    expect(installation).toMatchObject({ installationId, accountLogin: login, accountType: 'Organization', suspended: false });
    const [request] = requestsTo('GET', `/app/installations/${installationId}`);
    expect(request?.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(request?.headers.accept).toBe('application/vnd.github+json');
    expect(request?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(request?.headers['user-agent']).toBe(fake.app.appSlug);
  });

  it('tolerates a GitHub clock half a minute behind, thanks to the backdated iat', async () => {
    const { installationId } = installed();
    fake.settings.clockOffsetMs = -30_000;
    expect(await github().getInstallation(installationId)).not.toBeNull();
  });

  it.each([
    ['ahead by a quarter of an hour (the JWT has expired)', 15 * 60_000, "'Expiration time' claim ('exp') must be a numeric value"],
    ['behind by two minutes (the JWT is not issued yet)', -2 * 60_000, "'Issued at' claim ('iat') must be an Integer"],
  ])('is refused when GitHub’s clock runs %s, as UPSTREAM_ERROR without the JWT', async (_, offset, upstream) => {
    const { installationId } = installed();
    fake.settings.clockOffsetMs = offset;
    const err = await refusal(github().getInstallation(installationId));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe("The git host refused the platform's app credentials while reading the installation");
    expect(String((err.cause as Error).message)).toContain(upstream);
    const sent = requestsTo('GET', `/app/installations/${installationId}`).at(-1)?.headers.authorization ?? '';
    expect(everythingIn(err)).not.toContain(sent.slice('Bearer '.length));
  });

  it('is refused when signed with another key or for another app', async () => {
    const { installationId } = installed();
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    for (const provider of [github({ privateKey: otherKey }), github({ appId: '1' })]) {
      const err = await refusal(provider.listRepositories({ installationId }));
      expect(err.code).toBe('UPSTREAM_ERROR');
      expect(err.message).toBe("The git host refused the platform's app credentials while obtaining an installation access token");
    }
  });

  it('refuses a private key that is not an RSA PEM, without quoting it', () => {
    const notAKey = '-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END RSA PRIVATE KEY-----';
    let thrown: unknown;
    try {
      github({ privateKey: notAKey });
    } catch (err) {
      thrown = err;
    }
    expect(String(thrown)).toContain('GIT_HOST_1_PRIVATE_KEY');
    expect(everythingIn(thrown)).not.toContain('c2VjcmV0LWtleS1tYXRlcmlhbA');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => github({ privateKey: ec })).toThrow(/GIT_HOST_1_PRIVATE_KEY/);
  });
});

describe('GitHub adapter: installation access tokens', () => {
  it('obtains one token for several calls and sends it as a bearer', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    const provider = github();
    const credential = { installationId };
    const before = fake.requests.length;
    await provider.listRepositories(credential);
    await provider.getRepository(credential, `${login}/api`);
    await provider.listBranches(credential, `${login}/api`, 1);
    await provider.readFile(credential, `${login}/api`, 'README.md');
    expect(mints(installationId)).toBe(1);
    const dataRequests = fake.requests.slice(before).filter((request) => !request.path.startsWith('/app/'));
    expect(dataRequests).toHaveLength(4);
    const tokens = new Set(dataRequests.map((request) => request.headers.authorization));
    expect([...tokens]).toHaveLength(1);
    expect([...tokens][0]).toMatch(/^Bearer ghs_/);
  });

  it('shares one token request between concurrent calls', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    const provider = github();
    await Promise.all(Array.from({ length: 5 }, () => provider.getRepository({ installationId }, `${login}/api`)));
    expect(mints(installationId)).toBe(1);
  });

  it('replaces a token within five minutes of its expiry before using it', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    fake.settings.tokenLifetimeMs = 4 * 60_000;
    const provider = github();
    await provider.getRepository({ installationId }, `${login}/api`);
    await provider.getRepository({ installationId }, `${login}/api`);
    expect(mints(installationId)).toBe(2);
  });

  it('replaces a token GitHub refuses and retries the call once', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    const provider = github();
    await provider.getRepository({ installationId }, `${login}/api`);
    fake.revokeInstallationTokens(installationId);
    expect((await provider.getRepository({ installationId }, `${login}/api`)).fullName).toBe(`${login}/api`);
    expect(mints(installationId)).toBe(2);
    const attempts = requestsTo('GET', `/repos/${login}/api`);
    expect(attempts).toHaveLength(3);
    expect(attempts[1]!.headers.authorization).not.toBe(attempts[2]!.headers.authorization);
  });

  it('gives up with GIT_CREDENTIAL_INVALID when the fresh token is refused too', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    const provider = github();
    fake.fail('GET /repos/:owner/:repo', { status: 401, times: 2 });
    const err = await refusal(provider.getRepository({ installationId }, `${login}/api`));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(requestsTo('GET', `/repos/${login}/api`)).toHaveLength(2);
    expect(mints(installationId)).toBe(2);
    // The refused token is not kept: the next call starts with a new one.
    await provider.getRepository({ installationId }, `${login}/api`);
    expect(mints(installationId)).toBe(3);
  });

  it('answers GIT_CREDENTIAL_INVALID for a suspended installation, or one removed on GitHub', async () => {
    const suspended = installed();
    fake.suspend(suspended.installationId);
    expect((await refusal(github().listRepositories({ installationId: suspended.installationId }))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect(await github().getInstallation(suspended.installationId)).toMatchObject({ suspended: true });

    const removed = installed();
    const provider = github();
    await provider.listRepositories({ installationId: removed.installationId });
    fake.removeInstallation(removed.installationId);
    const err = await refusal(provider.listRepositories({ installationId: removed.installationId }));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(err.message).toMatch(/uninstalled, suspended or lost access/);
  });
});

describe('GitHub adapter: repositories', () => {
  it('lists every repository across pages, dated by the later of the last push and the last change', async () => {
    const { login, installationId } = installed('Organization');
    for (let i = 0; i < 227; i += 1) fake.addRepository(login, `repo-${String(i).padStart(3, '0')}`, { private: i % 2 === 0 });
    fake.addRepository(login, 'pushed-last', { description: 'Pushed after the change', updatedAt: '2024-01-01T00:00:00Z', pushedAt: '2024-06-01T12:00:00Z' });
    fake.addRepository(login, 'changed-last', { updatedAt: '2024-07-01T00:00:00Z', pushedAt: '2024-02-01T00:00:00Z' });
    fake.addRepository(login, 'never-pushed', { defaultBranch: 'trunk', updatedAt: '2023-03-03T03:03:03Z', pushedAt: null });

    const repositories = await github().listRepositories({ installationId });
    expect(repositories).toHaveLength(230);
    const pages = requestsTo('GET', '/installation/repositories').slice(-3);
    expect(pages.map((request) => [request.query.per_page, request.query.page ?? '1'])).toEqual([
      ['100', '1'],
      ['100', '2'],
      ['100', '3'],
    ]);
    expect(new Set(repositories.map((repository) => repository.fullName)).size).toBe(230);
    const byName = new Map(repositories.map((repository) => [repository.name, repository]));
    expect(byName.get('pushed-last')).toEqual({
      fullName: `${login}/pushed-last`,
      name: 'pushed-last',
      owner: login,
      private: true,
      defaultBranch: 'main',
      description: 'Pushed after the change',
      updatedAt: '2024-06-01T12:00:00.000Z',
      webUrl: `${fake.webUrl}/${login}/pushed-last`,
    });
    expect(byName.get('changed-last')?.updatedAt).toBe('2024-07-01T00:00:00.000Z');
    expect(byName.get('never-pushed')).toMatchObject({ updatedAt: '2023-03-03T03:03:03.000Z', defaultBranch: 'trunk', description: null });
    expect(byName.get('repo-001')?.private).toBe(false);
  });

  it('reaches only the repositories the installation was given', async () => {
    counter += 1;
    const login = `picky-${counter}`;
    fake.addAccount(login);
    fake.addRepository(login, 'chosen');
    fake.addRepository(login, 'hidden');
    const installationId = fake.installApp(login, { repositories: ['chosen'] });
    const other = installed();
    fake.addRepository(other.login, 'theirs');
    const provider = github();

    expect((await provider.listRepositories({ installationId })).map((repository) => repository.name)).toEqual(['chosen']);
    expect((await provider.getRepository({ installationId }, `${login}/chosen`)).name).toBe('chosen');
    for (const fullName of [`${login}/hidden`, `${other.login}/theirs`, `${login}/missing`]) {
      const err = await refusal(provider.getRepository({ installationId }, fullName));
      expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'Repository not found' });
    }
  });

  it('refuses a malformed full name without asking GitHub', async () => {
    const { installationId } = installed();
    const before = fake.requests.length;
    for (const fullName of ['just-one', 'a/b/c', '../x', 'owner/..']) {
      expect((await refusal(github().getRepository({ installationId }, fullName))).code).toBe('NOT_FOUND');
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe('GitHub adapter: contents', () => {
  let credential: { installationId: string };
  let fullName: string;

  beforeAll(() => {
    const account = installed();
    credential = { installationId: account.installationId };
    fullName = `${account.login}/site`;
    fake.addRepository(account.login, 'site');
    fake.commit(fullName, 'main', {
      files: {
        Dockerfile: 'FROM node:20\n',
        'src/index.ts': 'export const answer = 42;\n',
        'src/deep/a b#c.txt': 'odd name',
        'docs/Grüße.md': 'Grüße aus Köln — 日本語 🚀\n',
      },
      symlinks: { latest: 'src/index.ts', dangling: 'nowhere/at/all' },
      submodules: { 'vendor/lib': 'https://example.com/lib.git' },
    });
  });

  it('lists a directory with each entry’s kind and the size of files', async () => {
    const root = await github().listContents(credential, fullName, '');
    expect(root).toEqual([
      { name: 'Dockerfile', path: 'Dockerfile', type: 'file', size: 13 },
      { name: 'README.md', path: 'README.md', type: 'file', size: 7 },
      { name: 'dangling', path: 'dangling', type: 'symlink', size: null },
      { name: 'docs', path: 'docs', type: 'dir', size: null },
      { name: 'latest', path: 'latest', type: 'symlink', size: null },
      { name: 'src', path: 'src', type: 'dir', size: null },
      { name: 'vendor', path: 'vendor', type: 'dir', size: null },
    ]);
    expect(await github().listContents(credential, fullName, 'vendor')).toEqual([{ name: 'lib', path: 'vendor/lib', type: 'submodule', size: null }]);
    expect(await github().listContents(credential, fullName, '/src/deep/')).toEqual([{ name: 'a b#c.txt', path: 'src/deep/a b#c.txt', type: 'file', size: 8 }]);
  });

  it('answers NOT_FOUND for a file, a symlink or a missing path', async () => {
    for (const path of ['Dockerfile', 'latest', 'src/missing', 'vendor/lib']) {
      const err = await refusal(github().listContents(credential, fullName, path));
      expect(err.code).toBe('NOT_FOUND');
    }
    expect((await refusal(github().listContents(credential, fullName, 'Dockerfile'))).message).toBe('Directory not found: the path is not a directory');
    expect((await refusal(github().listContents(credential, fullName, 'src/missing'))).message).toBe('Directory not found');
  });

  it('reads a file as UTF-8 text, non-ASCII included, encoding each path segment', async () => {
    const provider = github();
    expect(await provider.readFile(credential, fullName, 'docs/Grüße.md')).toBe('Grüße aus Köln — 日本語 🚀\n');
    expect(await provider.readFile(credential, fullName, 'src/deep/a b#c.txt')).toBe('odd name');
    expect(fake.requests.some((request) => request.path === `/repos/${fullName}/contents/src/deep/a%20b%23c.txt`)).toBe(true);
    expect(await provider.readFile(credential, fullName, 'latest')).toBe('export const answer = 42;\n');
  });

  it('answers null where there is no file: a directory, a missing path, a dangling symlink, a submodule', async () => {
    for (const path of ['src', 'nothing/here.txt', 'dangling', 'vendor/lib']) {
      expect(await github().readFile(credential, fullName, path)).toBeNull();
    }
  });

  it('reads at a ref, and answers NOT_FOUND for a ref GitHub does not know', async () => {
    const sha = fake.commit(fullName, 'feature/x', { files: { Dockerfile: 'FROM node:22\n' } });
    const provider = github();
    expect(await provider.readFile(credential, fullName, 'Dockerfile', 'feature/x')).toBe('FROM node:22\n');
    expect(await provider.readFile(credential, fullName, 'Dockerfile', sha.slice(0, 10))).toBe('FROM node:22\n');
    expect(await provider.readFile(credential, fullName, 'Dockerfile')).toBe('FROM node:20\n');
    expect(fake.requests.at(-1)?.query.ref).toBeUndefined();
    expect((await provider.listContents(credential, fullName, '', 'feature/x')).length).toBeGreaterThan(0);
    for (const attempt of [
      provider.readFile(credential, fullName, 'Dockerfile', 'no-such-ref'),
      provider.listContents(credential, fullName, '', 'no-such-ref'),
    ]) {
      expect(await refusal(attempt)).toMatchObject({ code: 'NOT_FOUND', message: 'Ref not found' });
    }
  });

  it('fetches a file too large to come inline in the raw media type', async () => {
    const text = 'Zeile mit Umlauten: äöü — ✓\n'.repeat(20);
    fake.commit(fullName, 'main', { files: { 'big.txt': text } });
    fake.settings.maxInlineFileBytes = 64;
    expect(await github().readFile(credential, fullName, 'big.txt')).toBe(text);
    const reads = requestsTo('GET', `/repos/${fullName}/contents/big.txt`);
    expect(reads.map((request) => request.headers.accept)).toEqual(['application/vnd.github+json', 'application/vnd.github.raw+json']);
  });

  it('refuses `.` and `..` segments without asking GitHub', async () => {
    const before = fake.requests.length;
    expect((await refusal(github().readFile(credential, fullName, 'src/../../../installation/repositories'))).code).toBe('NOT_FOUND');
    expect((await refusal(github().listContents(credential, fullName, './src'))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before);
  });
});

describe('GitHub adapter: branches and commits', () => {
  it('pages branches a hundred at a time, with the next page from the Link header', async () => {
    const { login, installationId } = installed();
    const fullName = `${login}/many`;
    fake.addRepository(login, 'many');
    const names = Array.from({ length: 204 }, (_, i) => `b-${String(i).padStart(3, '0')}`);
    fake.addBranches(fullName, names);
    const all = [...names, 'main'].sort();
    const provider = github();

    const first = await provider.listBranches({ installationId }, fullName, 1);
    expect(first.branches).toHaveLength(BRANCHES_PER_PAGE);
    expect(first).toMatchObject({ page: 1, nextPage: 2 });
    expect(first.branches[0]).toEqual({ name: all[0], commitSha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const second = await provider.listBranches({ installationId }, fullName, 2);
    expect(second).toMatchObject({ page: 2, nextPage: 3 });
    const third = await provider.listBranches({ installationId }, fullName, 3);
    expect(third).toMatchObject({ page: 3, nextPage: null });
    expect([...first.branches, ...second.branches, ...third.branches].map((branch) => branch.name)).toEqual(all);
    expect(third.branches).toHaveLength(5);
    expect(await provider.listBranches({ installationId }, fullName, 4)).toEqual({ branches: [], page: 4, nextPage: null });
    expect(requestsTo('GET', `/repos/${fullName}/branches`).every((request) => request.query.per_page === '100')).toBe(true);
  });

  it('has no next page when the branches fill exactly one page', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'exact');
    fake.addBranches(
      `${login}/exact`,
      Array.from({ length: 99 }, (_, i) => `x-${i}`),
    );
    const page = await github().listBranches({ installationId }, `${login}/exact`, 1);
    expect(page.branches).toHaveLength(100);
    expect(page.nextPage).toBeNull();
  });

  it('answers NOT_FOUND for an unknown repository and refuses a page below 1', async () => {
    const { login, installationId } = installed();
    expect((await refusal(github().listBranches({ installationId }, `${login}/nope`, 1))).code).toBe('NOT_FOUND');
    expect((await refusal(github().listBranches({ installationId }, `${login}/nope`, 0))).code).toBe('VALIDATION_ERROR');
  });

  it('reads the head commit of a branch, slashes included', async () => {
    const { login, installationId } = installed();
    const fullName = `${login}/app`;
    fake.addRepository(login, 'app');
    fake.addAccount('octo-dev');
    const sha = fake.commit(fullName, 'release/1.0', {
      files: { 'a.txt': 'a' },
      message: 'Ship 1.0\n\nWith notes',
      author: { name: 'Octo Dev', login: 'octo-dev' },
    });
    const anonymous = fake.commit(fullName, 'main', { files: { 'b.txt': 'b' }, message: 'Fix', author: { name: 'Jane Doe' } });
    const provider = github();
    expect(await provider.headCommit({ installationId }, fullName, 'release/1.0')).toEqual({ sha, message: 'Ship 1.0\n\nWith notes', author: 'octo-dev' });
    expect(await provider.headCommit({ installationId }, fullName, 'main')).toEqual({ sha: anonymous, message: 'Fix', author: 'Jane Doe' });
    expect(await refusal(provider.headCommit({ installationId }, fullName, 'gone'))).toMatchObject({ code: 'NOT_FOUND', message: 'Branch not found' });
    expect((await refusal(provider.headCommit({ installationId }, `${login}/nope`, 'main'))).code).toBe('NOT_FOUND');
  });
});

describe('GitHub adapter: installations', () => {
  it('reads an installation, and answers null for one uninstalled or never made', async () => {
    const { login, installationId } = installed();
    const provider = github();
    const installation = await provider.getInstallation(installationId);
    expect(installation).toEqual({ installationId, accountLogin: login, accountType: 'User', createdAt: expect.stringMatching(/Z$/), suspended: false });
    expect(Date.parse(installation!.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(await provider.getInstallation('999')).toBeNull();
    fake.removeInstallation(installationId);
    expect(await provider.getInstallation(installationId)).toBeNull();
  });

  it('uninstalls, succeeds again once the installation is gone, and forgets its token', async () => {
    const { installationId } = installed();
    const provider = github();
    await provider.listRepositories({ installationId });
    await provider.uninstall(installationId);
    expect(fake.installation(installationId)).toBeUndefined();
    await provider.uninstall(installationId);
    expect(requestsTo('DELETE', `/app/installations/${installationId}`)).toHaveLength(2);
    expect(await provider.getInstallation(installationId)).toBeNull();
    expect((await refusal(provider.listRepositories({ installationId }))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('GitHub adapter: OAuth and the user’s installations', () => {
  it('trades a code for a user token once, and refuses a used, wrong or misdirected code', async () => {
    counter += 1;
    const login = `signer-${counter}`;
    fake.addUser(login);
    const code = fake.issueCode(login, REDIRECT_URI);
    const provider = github();
    const { accessToken } = await provider.exchangeUserCode(code, REDIRECT_URI);
    expect(accessToken).toMatch(/^ghu_/);
    const [exchange] = requestsTo('POST', '/login/oauth/access_token').slice(-1);
    expect(exchange?.headers.accept).toBe('application/json');
    expect(JSON.parse(exchange!.body!.toString('utf8'))).toEqual({
      client_id: fake.app.clientId,
      client_secret: fake.app.clientSecret,
      code,
      redirect_uri: REDIRECT_URI,
    });

    const misdirected = fake.issueCode(login, REDIRECT_URI);
    for (const [attempt, redirect] of [
      [code, REDIRECT_URI],
      ['not-a-code', REDIRECT_URI],
      [misdirected, 'https://elsewhere.example/callback'],
    ] as const) {
      const err = await refusal(provider.exchangeUserCode(attempt, redirect));
      expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
      expect(everythingIn(err)).not.toContain(attempt);
    }
  });

  it('reports its own client credentials being refused as UPSTREAM_ERROR', async () => {
    counter += 1;
    fake.addUser(`signer-${counter}`);
    const code = fake.issueCode(`signer-${counter}`);
    const err = await refusal(github({ clientSecret: 'wrong' }).exchangeUserCode(code, REDIRECT_URI));
    expect(err.code).toBe('UPSTREAM_ERROR');
  });

  it('speaks the form flavour of the token endpoint too, as GitHub does without Accept: application/json', async () => {
    counter += 1;
    fake.addUser(`former-${counter}`);
    const form = (code: string) =>
      fetch(`${fake.webUrl}/login/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: fake.app.clientId, client_secret: fake.app.clientSecret, code }),
      });
    const good = await form(fake.issueCode(`former-${counter}`));
    expect(good.status).toBe(200);
    expect(new URLSearchParams(await good.text()).get('access_token')).toMatch(/^ghu_/);
    const bad = await form('nope');
    expect(bad.status).toBe(200);
    expect(new URLSearchParams(await bad.text()).get('error')).toBe('bad_verification_code');
  });

  it('lists the installations the user reaches, across pages', async () => {
    const org = installed('Organization');
    const unrelated = installed('Organization');
    const suspended = installed('Organization');
    fake.suspend(suspended.installationId);
    const many = Array.from({ length: 120 }, () => installed('Organization').installationId);
    counter += 1;
    const login = `member-${counter}`;
    fake.addUser(login, { installations: [org.installationId, suspended.installationId, ...many] });
    const own = fake.installApp(login);
    const provider = github();
    const { accessToken } = await provider.exchangeUserCode(fake.issueCode(login), REDIRECT_URI);

    const installations = await provider.listUserInstallations(accessToken);
    const ids = installations.map((installation) => installation.installationId);
    expect(ids).toHaveLength(123);
    expect(ids).toEqual(expect.arrayContaining([org.installationId, suspended.installationId, own]));
    expect(ids).not.toContain(unrelated.installationId);
    expect(installations.find((installation) => installation.installationId === own)).toMatchObject({
      accountLogin: login,
      accountType: 'User',
      suspended: false,
    });
    expect(installations.find((installation) => installation.installationId === suspended.installationId)?.suspended).toBe(true);
    expect(
      requestsTo('GET', '/user/installations')
        .slice(-2)
        .map((request) => request.headers.authorization),
    ).toEqual([`Bearer ${accessToken}`, `Bearer ${accessToken}`]);

    expect((await refusal(provider.listUserInstallations('ghu_revoked'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('GitHub adapter: container packages', () => {
  it('lists an organisation’s packages from the organisation endpoint, on to pages GitHub does not link', async () => {
    const { login, installationId } = installed('Organization');
    fake.addPackage(login, 'Web-App', { visibility: 'public', updatedAt: '2025-01-02T03:04:05Z' });
    for (let i = 0; i < 104; i += 1) fake.addPackage(login, `svc-${i}`);
    const packages = await github({ packagesRegistry: 'GHCR.io/' }).listPackages({ installationId });
    expect(packages).toHaveLength(105);
    expect(packages[0]).toEqual({
      owner: login,
      name: 'Web-App',
      visibility: 'public',
      image: `ghcr.io/${login.toLowerCase()}/web-app`,
      updatedAt: '2025-01-02T03:04:05.000Z',
    });
    const pages = requestsTo('GET', `/orgs/${login}/packages`);
    expect(pages.map((request) => [request.query.package_type, request.query.page ?? '1'])).toEqual([
      ['container', '1'],
      ['container', '2'],
    ]);
  });

  it('lists a user’s packages from the user endpoint', async () => {
    const { login, installationId } = installed('User');
    fake.addPackage(login, 'tool', { visibility: 'private' });
    const packages = await github().listPackages({ installationId });
    expect(packages.map((item) => [item.name, item.visibility, item.image])).toEqual([['tool', 'private', `ghcr.io/${login.toLowerCase()}/tool`]]);
    expect(requestsTo('GET', `/users/${login}/packages`)).toHaveLength(1);
    expect(requestsTo('GET', `/orgs/${login}/packages`)).toHaveLength(0);
  });

  it('lists the tags of a package’s versions with their digests, skipping untagged versions', async () => {
    const { login, installationId } = installed('Organization');
    const item = fake.addPackage(login, 'team/api', {
      versions: [
        { tags: ['v1'], updatedAt: '2025-01-01T00:00:00Z' },
        { tags: [], updatedAt: '2025-02-01T00:00:00Z' },
        { tags: ['latest', 'v2'], updatedAt: '2025-03-01T00:00:00Z' },
      ],
    });
    const [v1, , v2] = item.versions;
    const tags = await github().listPackageTags({ installationId }, login.toLowerCase(), 'team/api');
    expect(tags).toEqual([
      { tag: 'latest', digest: v2!.digest, updatedAt: '2025-03-01T00:00:00.000Z' },
      { tag: 'v2', digest: v2!.digest, updatedAt: '2025-03-01T00:00:00.000Z' },
      { tag: 'v1', digest: v1!.digest, updatedAt: '2025-01-01T00:00:00.000Z' },
    ]);
    expect(requestsTo('GET', `/orgs/${login}/packages/container/team%2Fapi/versions`)).toHaveLength(1);
  });

  it('answers NOT_FOUND for a package that is not there or not the installation’s account’s', async () => {
    const { login, installationId } = installed('User');
    const other = installed('User');
    fake.addPackage(other.login, 'theirs');
    const provider = github();
    expect(await refusal(provider.listPackageTags({ installationId }, login, 'missing'))).toMatchObject({ code: 'NOT_FOUND', message: 'Package not found' });
    expect(await refusal(provider.listPackageTags({ installationId }, other.login, 'theirs'))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Package not found',
    });
  });

  it('answers GIT_CREDENTIAL_INVALID when the installation is gone', async () => {
    const { installationId } = installed('Organization');
    fake.removeInstallation(installationId);
    expect((await refusal(github().listPackages({ installationId }))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('GitHub adapter: failures', () => {
  it('maps the exhausted rate limit (403, no requests remaining) to UPSTREAM_ERROR saying when to retry', async () => {
    const { installationId } = installed();
    fake.setRateLimitRemaining(installationId, 0);
    const err = await refusal(github().listRepositories({ installationId }));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toMatch(/^The git host's API rate limit was reached while listing repositories; try again after \d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  it('maps a secondary rate limit (429 with Retry-After, or 403 saying so) to UPSTREAM_ERROR', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    fake.fail('GET /repos/:owner/:repo', {
      status: 429,
      body: { message: 'You have exceeded a secondary rate limit.', documentation_url: 'https://docs.github.com/rest' },
      headers: { 'retry-after': '30' },
    });
    const limited = await refusal(github().getRepository({ installationId }, `${login}/api`));
    expect(limited).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: "The git host's API rate limit was reached while reading the repository; try again in 30 seconds",
    });
    fake.fail('GET /repos/:owner/:repo', {
      status: 403,
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
    });
    expect((await refusal(github().getRepository({ installationId }, `${login}/api`))).message).toMatch(/rate limit was reached .*; try again in a minute$/);
  });

  it('maps a 403 outside the rate limit on a repository to NOT_FOUND', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    fake.fail('GET /repos/:owner/:repo/contents', { status: 403, body: { message: 'Resource not accessible by integration' } });
    expect(await refusal(github().listContents({ installationId }, `${login}/api`, ''))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('maps a 5xx to UPSTREAM_ERROR', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    fake.fail('GET /repos/:owner/:repo/branches', { status: 502 });
    expect(await refusal(github().listBranches({ installationId }, `${login}/api`, 1))).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'The git host failed while listing branches',
    });
  });

  it('maps a failure on a later page of a listing to UPSTREAM_ERROR', async () => {
    const { login, installationId } = installed();
    for (let i = 0; i < 101; i += 1) fake.addRepository(login, `r${i}`);
    fake.fail('GET /installation/repositories', { status: 500, after: 1 });
    expect((await refusal(github().listRepositories({ installationId }))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps an unreadable answer to UPSTREAM_ERROR', async () => {
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    fake.fail('GET /repos/:owner/:repo', { status: 200, body: '<html>Unicorn!</html>', headers: { 'content-type': 'text/html' } });
    expect(await refusal(github().getRepository({ installationId }, `${login}/api`))).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'The git host sent an unexpected response while reading the repository',
    });
    fake.fail('GET /repos/:owner/:repo/commits/:ref', { status: 200, body: { sha: 'abc' } });
    expect((await refusal(github().headCommit({ installationId }, `${login}/api`, 'main'))).code).toBe('UPSTREAM_ERROR');
  });

  it('follows no next-page link away from the API', async () => {
    const { login, installationId } = installed();
    const repository = {
      name: 'one',
      full_name: `${login}/one`,
      owner: { login },
      private: true,
      default_branch: 'main',
      description: null,
      updated_at: '2025-01-01T00:00:00Z',
      pushed_at: null,
      html_url: `${fake.webUrl}/${login}/one`,
    };
    fake.fail('GET /installation/repositories', {
      status: 200,
      body: { total_count: 2, repository_selection: 'all', repositories: [repository] },
      headers: { link: '<https://attacker.example/installation/repositories?page=2>; rel="next"' },
    });
    const err = await refusal(github().listRepositories({ installationId }));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'The git host sent an unexpected response while listing repositories' });
  });

  it('gives up after the timeout, and reports an unreachable host', async () => {
    const { installationId } = installed();
    fake.fail('GET /installation/repositories', { delayMs: 1_500 });
    const err = await refusal(github({ timeoutMs: 200 }).listRepositories({ installationId }));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'The git host did not answer within 200 ms while listing repositories' });

    const closed = await startFakeGitHub();
    const unreachable = new GitHubAppProvider({
      apiUrl: closed.apiUrl,
      webUrl: closed.webUrl,
      appId: closed.app.appId,
      appSlug: closed.app.appSlug,
      privateKey: closed.app.privateKey,
      clientId: closed.app.clientId,
      clientSecret: closed.app.clientSecret,
      packagesRegistry: 'ghcr.io',
      timeoutMs: 500,
    });
    await closed.close();
    expect(await refusal(unreachable.getInstallation('1'))).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'The git host could not be reached while reading the installation',
    });
  });

  it('never puts a token, the JWT, the client secret or a code in an error or a log line', async () => {
    const logger = getLogger();
    const spies = (['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const).map((level) => vi.spyOn(logger, level));
    const { login, installationId } = installed();
    fake.addRepository(login, 'api');
    const provider = github();
    await provider.getRepository({ installationId }, `${login}/api`);
    const token = requestsTo('GET', `/repos/${login}/api`).at(-1)!.headers.authorization!.slice('Bearer '.length);
    const code = fake.issueCode(fake.addUser(`echo-${installationId}`).login);

    fake.fail('GET /repos/:owner/:repo', { status: 500, body: { message: `token ${token} and secret ${fake.app.clientSecret}` } });
    const errors = [await refusal(provider.getRepository({ installationId }, `${login}/api`))];
    fake.fail('GET /app/installations/:id', { status: 503, body: { message: 'down' } });
    errors.push(await refusal(provider.getInstallation(installationId)));
    const jwt = requestsTo('GET', `/app/installations/${installationId}`).at(-1)!.headers.authorization!.slice('Bearer '.length);
    fake.fail('POST /login/oauth/access_token', { status: 500, body: { message: `code ${code}` } });
    errors.push(await refusal(provider.exchangeUserCode(code, REDIRECT_URI)));

    const logged = JSON.stringify(spies.map((spy) => spy.mock.calls));
    expect(logged).toContain('Git host failed while reading the repository');
    expect(logged).toContain('[redacted]');
    for (const secret of [token, jwt, fake.app.clientSecret, code, fake.app.privateKey]) {
      expect(logged).not.toContain(secret);
      for (const err of errors) expect(everythingIn(err)).not.toContain(secret);
    }
  });
});

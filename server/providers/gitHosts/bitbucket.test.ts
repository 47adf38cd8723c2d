import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucket, type FakeBitbucket } from '../../../test/fakes/bitbucketServer';
import { everythingIn, refusal } from '../../../test/upstreamErrors';
import { AppError } from '../../platform/errors';
import { BitbucketProvider, type BitbucketOptions } from './bitbucket';
import type { MirrorEndpoint, MirrorRepository } from './gitMirror';

const REDIRECT_URI = 'https://panel.example.com/v1/integrations/git-host-2/callback';
const DEPLOY_WORKSPACE = 'platform-deployments';

let fake: FakeBitbucket;
let provider: BitbucketProvider;
let token: string;
/** The platform's workspace access token: a bot member of the deployment workspace, which the customer is not. */
let deployToken: string;
const mirrored: Array<{ source: MirrorEndpoint; target: MirrorEndpoint }> = [];

/** Git's push as the fake sees it: the copy gets the source's commits, branches and tags. */
const mirror: MirrorRepository = async (source, target) => {
  mirrored.push({ source, target });
  const from = fake.repository(source.name);
  const to = fake.repository(target.name);
  if (!from || !to) throw new AppError('NOT_FOUND', `${source.name} or ${target.name} not found`);
  to.commits = new Map(from.commits);
  to.branches = new Map(from.branches);
  to.tags = new Map(from.tags);
  to.mainBranch ??= from.mainBranch;
};

function adapter(options: Partial<BitbucketOptions> = {}): BitbucketProvider {
  return new BitbucketProvider({
    apiUrl: fake.apiUrl,
    webUrl: fake.webUrl,
    ...fake.oauthClient,
    deployWorkspace: DEPLOY_WORKSPACE,
    deployToken,
    timeoutMs: 400,
    mirror,
    ...options,
  });
}

beforeAll(async () => {
  fake = await startFakeBitbucket();
  fake.addUser('deploy-bot');
  fake.addMember(DEPLOY_WORKSPACE, 'deploy-bot', 'admin');
  deployToken = fake.issueToken('deploy-bot').accessToken;
  provider = adapter();
  fake.addUser('ada', 'Ada Lovelace');
  fake.addMember('acme', 'ada', 'admin');
  fake.addRepository('acme/web', {
    description: 'The web shop',
    files: {
      'README.md': '# Web\n',
      'package.json': '{"name":"web"}\n',
      'src/index.ts': 'export const greeting = "Grüß Gott";\n',
      'src/lib/util.ts': 'export {};\n',
      'src/lib/deep/x.ts': 'export {};\n',
      'docs/guide.md': 'guide\n',
      current: { symlink: 'src/index.ts' },
      vendor: { submodule: 'https://bitbucket.org/acme/vendor.git' },
    },
  });
  token = fake.issueToken('ada').accessToken;
});

afterAll(async () => {
  await fake.close();
});

function requestsSince(before: number) {
  return fake.requests.slice(before);
}

describe('Bitbucket adapter: OAuth', () => {
  it('sends the user to the consent page with the consumer, state and redirect URI', () => {
    const url = new URL(provider.authorizeUrl('state-1', REDIRECT_URI));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.webUrl}/site/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: fake.oauthClient.clientId,
      response_type: 'code',
      state: 'state-1',
      redirect_uri: REDIRECT_URI,
    });
    expect(provider.host).toBe('git-host-2');
    expect(provider.kind).toBe('bitbucket');
  });

  it('trades the code the consent page returns for a working token set, with the consumer in Basic auth', async () => {
    fake.signIn('ada');
    const consent = await fetch(provider.authorizeUrl('state-2', REDIRECT_URI), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('state-2');
    const before = Date.now();

    const tokens = await provider.exchangeCode(back.searchParams.get('code')!, REDIRECT_URI);
    expect(tokens.scopes).toEqual(['account', 'repository', 'repository:admin', 'webhook']);
    expect(tokens.refreshToken).toEqual(expect.any(String));
    const expiresAt = Date.parse(tokens.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 7_200_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 7_200_000);
    expect(await provider.currentAccount(tokens.accessToken)).toEqual({ login: 'ada', displayName: 'Ada Lovelace' });

    const exchange = fake.requests.filter((request) => request.path === '/site/oauth2/access_token').at(-1)!;
    const basic = Buffer.from(`${fake.oauthClient.clientId}:${fake.oauthClient.clientSecret}`).toString('base64');
    expect(exchange.headers.authorization).toBe(`Basic ${basic}`);
    expect(Object.fromEntries(new URLSearchParams(exchange.body!.toString('utf8')))).toEqual({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code'),
      redirect_uri: REDIRECT_URI,
    });
  });

  it('refuses a reused, unknown or redirect-mismatched code with GIT_CREDENTIAL_INVALID, without repeating it', async () => {
    const code = fake.issueCode('ada', REDIRECT_URI);
    await provider.exchangeCode(code, REDIRECT_URI);
    const reused = await refusal(provider.exchangeCode(code, REDIRECT_URI));
    expect(reused.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(reused)).not.toContain(code);
    expect((await refusal(provider.exchangeCode('not-a-code', REDIRECT_URI))).code).toBe('GIT_CREDENTIAL_INVALID');
    const elsewhere = fake.issueCode('ada', REDIRECT_URI);
    expect((await refusal(provider.exchangeCode(elsewhere, 'https://evil.example.com/cb'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('reports a refused consumer as the platform’s failure, not the user’s', async () => {
    const misconfigured = adapter({ clientSecret: 'wrong-secret' });
    const err = await refusal(misconfigured.exchangeCode(fake.issueCode('ada'), REDIRECT_URI));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(everythingIn(err)).not.toContain('wrong-secret');
  });

  it('refreshes into a new working access token and keeps the refresh token Bitbucket keeps', async () => {
    const grant = fake.issueToken('ada', 1);
    const refreshed = await provider.refresh(grant.refreshToken);
    expect(refreshed.accessToken).not.toBe(grant.accessToken);
    expect(refreshed.refreshToken).toBe(grant.refreshToken);
    expect((await provider.currentAccount(refreshed.accessToken)).login).toBe('ada');
    const form = new URLSearchParams(
      fake.requests
        .filter((request) => request.path === '/site/oauth2/access_token')
        .at(-1)!
        .body!.toString('utf8'),
    );
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'refresh_token', refresh_token: grant.refreshToken });
  });

  it('refuses the refresh of a revoked grant with GIT_CREDENTIAL_INVALID', async () => {
    fake.addUser('leaver');
    const grant = fake.issueToken('leaver');
    fake.revokeGrants('leaver');
    const err = await refusal(provider.refresh(grant.refreshToken));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(grant.refreshToken);
  });

  it('resolves a revocation without calling Bitbucket, which has no revocation endpoint', async () => {
    const before = fake.requests.length;
    await expect(provider.revoke(token)).resolves.toBeUndefined();
    expect(fake.requests.length).toBe(before);
  });
});

describe('Bitbucket adapter: repositories', () => {
  it('lists every repository the user is a member of across pages, mapped', async () => {
    fake.addUser('many');
    const base = Date.parse('2024-01-01T00:00:00Z');
    for (let i = 0; i < 230; i += 1) {
      fake.addRepository(`bulk/repo-${String(i).padStart(3, '0')}`, {
        isPrivate: i % 2 === 0,
        updatedOn: new Date(base + i * 60_000).toISOString().replace('.000Z', '.123456+00:00'),
      });
    }
    fake.addMember('bulk', 'many');
    fake.addRepository('strangers/hidden');
    const own = fake.issueToken('many').accessToken;
    const before = fake.requests.length;

    const repositories = await provider.listRepositories(own);
    // The user's own workspace holds nothing; `bulk` holds 230, newest first as requested.
    expect(repositories).toHaveLength(230);
    expect(repositories[0]).toEqual({
      fullName: 'bulk/repo-229',
      name: 'repo-229',
      owner: 'bulk',
      private: false,
      defaultBranch: 'main',
      description: null,
      updatedAt: new Date(base + 229 * 60_000 + 123).toISOString(),
      webUrl: `${fake.webUrl}/bulk/repo-229`,
    });
    expect(repositories.some((repository) => repository.fullName === 'strangers/hidden')).toBe(false);
    const pages = requestsSince(before).filter((request) => request.path === '/2.0/repositories');
    expect(pages.map((request) => request.query.page ?? '1')).toEqual(['1', '2', '3']);
    expect(pages[0]!.query).toMatchObject({ role: 'member', sort: '-updated_on', pagelen: '100' });
    expect(pages.every((request) => request.headers.authorization === `Bearer ${own}`)).toBe(true);
  });

  it('refuses to follow a next link off the API, so the token never goes there', async () => {
    const elsewhere = await startFakeBitbucket();
    try {
      fake.fail('GET /2.0/repositories', {
        status: 200,
        body: { pagelen: 100, page: 1, values: [], next: `${elsewhere.apiUrl}/repositories?page=2` },
      });
      const err = await refusal(provider.listRepositories(token));
      expect(err.code).toBe('UPSTREAM_ERROR');
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('reads one repository with its description and main branch', async () => {
    fake.addRepository('acme/api', { files: { 'go.mod': 'module api\n' }, mainBranch: 'trunk', isPrivate: false });
    const repository = await provider.getRepository(token, 'acme/api');
    expect(repository).toMatchObject({ fullName: 'acme/api', owner: 'acme', name: 'api', defaultBranch: 'trunk', private: false });
    expect((await provider.getRepository(token, 'acme/web')).description).toBe('The web shop');
  });

  it('answers NOT_FOUND for a repository out of reach, or a name that is no workspace/slug', async () => {
    fake.addRepository('strangers/secret');
    expect((await refusal(provider.getRepository(token, 'strangers/secret'))).code).toBe('NOT_FOUND');
    expect((await refusal(provider.getRepository(token, 'acme/nothing'))).code).toBe('NOT_FOUND');
    const before = fake.requests.length;
    for (const name of ['acme', 'acme/web/extra', '../acme', 'acme/..']) {
      expect((await refusal(provider.getRepository(token, name))).code).toBe('NOT_FOUND');
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe('Bitbucket adapter: contents', () => {
  it('lists the root of the main branch, with directories, files, links and submodules', async () => {
    const entries = await provider.listContents(token, 'acme/web', '');
    expect(entries).toEqual([
      { name: 'docs', path: 'docs', type: 'dir', size: null },
      { name: 'src', path: 'src', type: 'dir', size: null },
      { name: 'README.md', path: 'README.md', type: 'file', size: 6 },
      { name: 'current', path: 'current', type: 'symlink', size: null },
      { name: 'package.json', path: 'package.json', type: 'file', size: 15 },
      { name: 'vendor', path: 'vendor', type: 'submodule', size: null },
    ]);
  });

  it('lists a nested directory, its path from the root', async () => {
    expect(await provider.listContents(token, 'acme/web', 'src/lib')).toEqual([
      { name: 'deep', path: 'src/lib/deep', type: 'dir', size: null },
      { name: 'util.ts', path: 'src/lib/util.ts', type: 'file', size: 11 },
    ]);
    expect(await provider.listContents(token, 'acme/web', '/src/lib/')).toHaveLength(2);
  });

  it('follows the pages of a large directory', async () => {
    const files = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`assets/f${String(i).padStart(3, '0')}.txt`, 'x']));
    fake.addRepository('acme/assets', { files });
    const before = fake.requests.length;
    const entries = await provider.listContents(token, 'acme/assets', 'assets');
    expect(entries).toHaveLength(130);
    expect(entries.at(-1)!.path).toBe('assets/f129.txt');
    expect(requestsSince(before).filter((request) => request.path.includes('/src/')).length).toBe(2);
  });

  it('answers NOT_FOUND for a file path, a missing path and a dot segment', async () => {
    const file = await refusal(provider.listContents(token, 'acme/web', 'src/index.ts'));
    expect(file.code).toBe('NOT_FOUND');
    expect(file.message).toContain('is a file');
    expect((await refusal(provider.listContents(token, 'acme/web', 'nowhere'))).code).toBe('NOT_FOUND');
    const before = fake.requests.length;
    expect((await refusal(provider.listContents(token, 'acme/web', 'src/../../hooks'))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before);
  });

  it('reads at a ref, resolving a branch name with a slash through its commit hash', async () => {
    const hash = fake.addBranch('acme/web', 'feature/new-ui', { 'ui/app.tsx': 'export {};\n' });
    fake.addBranch('acme/web', 'plain', { 'plain.txt': 'plain\n' });
    const before = fake.requests.length;
    expect(await provider.listContents(token, 'acme/web', '', 'feature/new-ui')).toEqual([{ name: 'ui', path: 'ui', type: 'dir', size: null }]);
    expect(requestsSince(before).some((request) => request.path.includes(`/src/${hash}/`))).toBe(true);
    expect(await provider.readFile(token, 'acme/web', 'plain.txt', 'plain')).toBe('plain\n');
    expect(await provider.readFile(token, 'acme/web', 'plain.txt')).toBeNull();
    expect((await refusal(provider.listContents(token, 'acme/web', '', 'feature/missing'))).code).toBe('NOT_FOUND');
  });

  it('lists an empty repository as empty and reads nothing from it', async () => {
    fake.addRepository('acme/empty', { files: null });
    expect(await provider.listContents(token, 'acme/empty', '')).toEqual([]);
    expect(await provider.readFile(token, 'acme/empty', 'README.md')).toBeNull();
    expect((await provider.getRepository(token, 'acme/empty')).defaultBranch).toBe('main');
  });

  it('reads a file as UTF-8 text, and null for a missing file or a directory', async () => {
    expect(await provider.readFile(token, 'acme/web', 'src/index.ts')).toBe('export const greeting = "Grüß Gott";\n');
    expect(await provider.readFile(token, 'acme/web', 'missing.json')).toBeNull();
    expect(await provider.readFile(token, 'acme/web', 'src')).toBeNull();
  });

  it('answers NOT_FOUND, not "no file", when the repository or the ref is gone', async () => {
    expect((await refusal(provider.readFile(token, 'acme/gone', 'README.md'))).code).toBe('NOT_FOUND');
    expect((await refusal(provider.readFile(token, 'acme/web', 'README.md', 'no-such-branch'))).code).toBe('NOT_FOUND');
  });
});

describe('Bitbucket adapter: branches and commits', () => {
  it('pages branches 100 at a time across the boundary', async () => {
    fake.addRepository('acme/branchy');
    for (let i = 0; i < 150; i += 1) fake.addBranch('acme/branchy', `b-${String(i).padStart(3, '0')}`);

    const first = await provider.listBranches(token, 'acme/branchy', 1);
    expect(first.branches).toHaveLength(100);
    expect(first).toMatchObject({ page: 1, nextPage: 2 });
    const second = await provider.listBranches(token, 'acme/branchy', 2);
    expect(second.branches).toHaveLength(51);
    expect(second).toMatchObject({ page: 2, nextPage: null });
    const names = [...first.branches, ...second.branches].map((branch) => branch.name);
    expect(new Set(names).size).toBe(151);
    expect(names).toContain('main');
    const main = [...first.branches, ...second.branches].find((branch) => branch.name === 'main')!;
    expect(main.commitSha).toBe(fake.repository('acme/branchy')!.branches.get('main'));
    const request = fake.requests.filter((r) => r.path === '/2.0/repositories/acme/branchy/refs/branches').at(-1)!;
    expect(request.query).toMatchObject({ pagelen: '100', page: '2' });
  });

  it('refuses a page that is not a whole number from 1', async () => {
    expect((await refusal(provider.listBranches(token, 'acme/web', 0))).code).toBe('VALIDATION_ERROR');
  });

  it('reads the head commit of a branch, with or without a slash in its name', async () => {
    const head = await provider.headCommit(token, 'acme/web', 'main');
    expect(head).toEqual({ sha: fake.repository('acme/web')!.branches.get('main'), message: 'Initial commit', author: 'Ada Lovelace' });
    const hash = fake.addBranch('acme/web', 'release/1.0');
    expect((await provider.headCommit(token, 'acme/web', 'release/1.0')).sha).toBe(hash);
    expect((await refusal(provider.headCommit(token, 'acme/web', 'nope'))).code).toBe('NOT_FOUND');
  });
});

describe('Bitbucket adapter: webhooks', () => {
  it('registers a signed push webhook and deletes it; deleting it again succeeds', async () => {
    const { hookId } = await provider.createWebhook(token, 'acme/web', {
      url: 'https://panel.example.com/v1/integrations/git-host-2/webhook',
      secret: 's3cret',
    });
    const hook = fake.repository('acme/web')!.hooks.get(hookId)!;
    expect(hook).toMatchObject({ url: 'https://panel.example.com/v1/integrations/git-host-2/webhook', secret: 's3cret', events: ['repo:push'], active: true });

    await provider.deleteWebhook(token, 'acme/web', hookId);
    expect(fake.repository('acme/web')!.hooks.has(hookId)).toBe(false);
    await expect(provider.deleteWebhook(token, 'acme/web', hookId)).resolves.toBeUndefined();
  });

  it('answers NOT_FOUND when the account may not manage the repository’s webhooks', async () => {
    fake.addUser('reader');
    fake.addMember('acme', 'reader');
    const reader = fake.issueToken('reader').accessToken;
    const err = await refusal(provider.createWebhook(reader, 'acme/web', { url: 'https://panel.example.com/hook', secret: 'another-secret' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(everythingIn(err)).not.toContain('another-secret');
  });
});

describe('Bitbucket adapter: deployment copies', () => {
  const creations = () => fake.requests.filter((request) => request.method === 'POST' && request.path.startsWith(`/2.0/repositories/${DEPLOY_WORKSPACE}/`));

  it('makes a private repository in the deployment workspace with the platform’s token and mirrors the source into it', async () => {
    fake.addRepository('acme/shop', { isPrivate: false, files: { 'README.md': '# Shop\n', 'app.yaml': 'name: shop\n' } });
    const before = mirrored.length;
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/shop');
    expect(fullName).toMatch(/^platform-deployments\/acme-shop-[0-9a-f]{8}$/);
    expect(fake.repository(fullName)).toMatchObject({ isPrivate: true, workspace: DEPLOY_WORKSPACE });

    const [create] = creations().filter((request) => request.path === `/2.0/repositories/${fullName}`);
    expect(create!.headers.authorization).toBe(`Bearer ${deployToken}`);
    expect(JSON.parse(create!.body!.toString('utf8'))).toEqual({ scm: 'git', is_private: true });

    expect(mirrored.slice(before)).toEqual([
      {
        source: { url: `${fake.webUrl}/acme/shop.git`, credential: { username: 'x-token-auth', token }, name: 'acme/shop' },
        target: { url: `${fake.webUrl}/${fullName}.git`, credential: { username: 'x-token-auth', token: deployToken }, name: fullName },
      },
    ]);
  });

  it('reuses the copy made earlier and brings it up to date', async () => {
    fake.addRepository('acme/blog');
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/blog');
    const made = creations().length;
    const pushed = fake.addBranch('acme/blog', 'release');

    expect(await provider.copyToDeploymentOrganisation(token, 'acme/blog')).toEqual({ fullName });
    expect(creations()).toHaveLength(made);
    expect(mirrored.at(-1)!.target.name).toBe(fullName);
    expect(fake.repository(fullName)!.branches.get('release')).toBe(pushed);
  });

  it('reads a copy with the platform’s token, which the customer’s does not reach', async () => {
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/shop');
    const before = fake.requests.length;
    expect(await provider.deploymentCopies.readFile(fullName, 'app.yaml')).toBe('name: shop\n');
    expect((await provider.deploymentCopies.listContents(fullName, '')).map((entry) => entry.name)).toEqual(['README.md', 'app.yaml']);
    const used = new Set(fake.requests.slice(before).map((request) => request.headers.authorization));
    expect(used).toEqual(new Set([`Bearer ${deployToken}`]));

    expect((await refusal(provider.readFile(token, fullName, 'app.yaml'))).code).toBe('NOT_FOUND');
  });

  it('reads nothing outside the deployment workspace with the platform’s token', async () => {
    const before = fake.requests.length;
    expect((await refusal(provider.deploymentCopies.readFile('acme/web', 'README.md'))).code).toBe('NOT_FOUND');
    expect((await refusal(provider.deploymentCopies.listContents('acme/web', ''))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before);
  });

  it('gives sources whose names read alike copies of their own', async () => {
    fake.addRepository('acme/a-b');
    fake.addMember('acme-a', 'ada');
    fake.addRepository('acme-a/b');
    const first = await provider.copyToDeploymentOrganisation(token, 'acme/a-b');
    const second = await provider.copyToDeploymentOrganisation(token, 'acme-a/b');
    expect(first.fullName).not.toBe(second.fullName);
  });

  it('answers NOT_FOUND for a source the customer does not reach, making nothing', async () => {
    fake.addUser('mallory');
    fake.addRepository('mallory/private-tool');
    const made = creations().length;
    const before = mirrored.length;
    expect((await refusal(provider.copyToDeploymentOrganisation(token, 'mallory/private-tool'))).code).toBe('NOT_FOUND');
    expect(creations()).toHaveLength(made);
    expect(mirrored).toHaveLength(before);
  });

  it('cannot make copies with the customer’s token: the deployment workspace is not theirs', async () => {
    fake.addRepository('acme/kiosk');
    const before = mirrored.length;
    const err = await refusal(adapter({ deployToken: token }).copyToDeploymentOrganisation(token, 'acme/kiosk'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe("Git host 2 refused the platform's deployment credential while making the deployment copy");
    expect(mirrored).toHaveLength(before);
  });

  it('reports a refused platform token as the platform’s failure, never quoting it', async () => {
    const revoked = fake.issueToken('deploy-bot', -1).accessToken;
    const stale = adapter({ deployToken: revoked });
    const copying = await refusal(stale.copyToDeploymentOrganisation(token, 'acme/web'));
    expect(copying.code).toBe('UPSTREAM_ERROR');
    expect(everythingIn(copying)).not.toContain(revoked);
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/web');
    const reading = await refusal(stale.deploymentCopies.readFile(fullName, 'README.md'));
    expect(reading.code).toBe('UPSTREAM_ERROR');
    expect(reading.message).toBe("Git host 2 refused the platform's deployment credential while reading a deployment copy");
    expect(everythingIn(reading)).not.toContain(revoked);
  });

  it('refuses to build from a copy that has become public', async () => {
    fake.addRepository('acme/intranet');
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/intranet');
    fake.repository(fullName)!.isPrivate = false;
    const before = mirrored.length;
    const err = await refusal(provider.copyToDeploymentOrganisation(token, 'acme/intranet'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('is public');
    expect(mirrored).toHaveLength(before);
  });

  it('hands on the mirror’s refusal of the customer’s token', async () => {
    const failing = adapter({
      mirror: async () => {
        throw new AppError('GIT_CREDENTIAL_INVALID', 'refused');
      },
    });
    expect((await refusal(failing.copyToDeploymentOrganisation(token, 'acme/web'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('Bitbucket adapter: failures', () => {
  it('maps an expired token to GIT_CREDENTIAL_INVALID, never quoting it', async () => {
    const expired = fake.issueToken('ada', -1).accessToken;
    const err = await refusal(provider.listRepositories(expired));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(expired);
  });

  it('maps a server error to UPSTREAM_ERROR naming the host and the work', async () => {
    fake.fail('GET /2.0/repositories/:workspace/:slug', { status: 500 });
    const err = await refusal(provider.getRepository(token, 'acme/web'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 2 failed while reading a repository (HTTP 500)');
  });

  it('maps a rate limit to UPSTREAM_ERROR that says so', async () => {
    fake.fail('GET /2.0/user', { status: 429 });
    const err = await refusal(provider.currentAccount(token));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('rate limit');
  });

  it('fails a listing as a whole when a later page fails', async () => {
    fake.addUser('pager');
    fake.addMember('bulk', 'pager');
    fake.fail('GET /2.0/repositories', { status: 503, after: 1 });
    expect((await refusal(provider.listRepositories(fake.issueToken('pager').accessToken))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps a timeout to UPSTREAM_ERROR', async () => {
    fake.fail('GET /2.0/user', { delayMs: 1500 });
    const err = await refusal(provider.currentAccount(token));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 2 did not answer within 400 ms while reading the connected account');
  });

  it('maps an unreadable answer to UPSTREAM_ERROR', async () => {
    fake.fail('GET /2.0/repositories/:workspace/:slug', { status: 200, body: '<html>maintenance</html>' });
    expect((await refusal(provider.getRepository(token, 'acme/web'))).code).toBe('UPSTREAM_ERROR');
    fake.fail('GET /2.0/repositories/:workspace/:slug', { status: 200, body: { full_name: 'acme/web' } });
    expect((await refusal(provider.getRepository(token, 'acme/web'))).code).toBe('UPSTREAM_ERROR');
  });
});

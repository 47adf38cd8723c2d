import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitLab, type FakeGitLab } from '../../../test/fakes/gitlabServer';
import { everythingIn, refusal } from '../../../test/upstreamErrors';
import { AppError } from '../../platform/errors';
import type { MirrorEndpoint, MirrorRepository } from './gitMirror';
import { GITLAB_OAUTH_SCOPES, GitLabProvider, type GitLabOptions } from './gitlab';

const REDIRECT_URI = 'https://panel.example.com/v1/integrations/git-host-3/callback';
const DEPLOY_GROUP = 'platform-deployments';
/** Nested groups, a space and a dot: the project id must reach GitLab encoded exactly once. */
const NESTED = 'demo-group/sub group/my.project';

let fake: FakeGitLab;
let provider: GitLabProvider;
let token: string;
/** The platform's group access token: a bot maintainer of the deployment group, which the customer is not in. */
let deployToken: string;
const mirrored: Array<{ source: MirrorEndpoint; target: MirrorEndpoint }> = [];

/** Git's push as the fake sees it: the copy gets the source's commits and branches. */
const mirror: MirrorRepository = async (source, target) => {
  mirrored.push({ source, target });
  const from = fake.project(source.name);
  const to = fake.project(target.name);
  if (!from || !to) throw new AppError('NOT_FOUND', `${source.name} or ${target.name} not found`);
  to.commits = new Map(from.commits);
  to.branches = new Map(from.branches);
  to.defaultBranch ??= from.defaultBranch;
};

function adapter(options: Partial<GitLabOptions> = {}): GitLabProvider {
  return new GitLabProvider({ baseUrl: fake.baseUrl, ...fake.oauthClient, deployGroup: DEPLOY_GROUP, deployToken, timeoutMs: 400, mirror, ...options });
}

beforeAll(async () => {
  fake = await startFakeGitLab();
  fake.addUser('group_deploy_bot');
  fake.addMember(DEPLOY_GROUP, 'group_deploy_bot', 40);
  deployToken = fake.issueToken('group_deploy_bot').accessToken;
  provider = adapter();
  fake.addUser('grace', 'Grace Hopper');
  fake.addMember('acme', 'grace', 40);
  fake.addMember('demo-group', 'grace', 40);
  fake.addProject('acme/web', {
    description: 'The web shop',
    files: {
      'README.md': '# Web\n',
      'src/index.ts': 'export const greeting = "Grüß Gott";\n',
      'src/lib/util.ts': 'export {};\n',
      'src/lib/deep/x.ts': 'export {};\n',
      current: { symlink: 'src/index.ts' },
      vendor: { submodule: 'https://gitlab.example.com/acme/vendor.git' },
    },
  });
  fake.addProject(NESTED, { files: { 'app/main.py': 'print("hi")\n', Dockerfile: 'FROM python:3.12\n' } });
  token = fake.issueToken('grace').accessToken;
});

afterAll(async () => {
  await fake.close();
});

function lastRequest(method: string, pathEnd: string) {
  const found = fake.requests.filter((request) => request.method === method && request.path.endsWith(pathEnd)).at(-1);
  if (!found) throw new Error(`no ${method} …${pathEnd}`);
  return found;
}

describe('GitLab adapter: OAuth', () => {
  it('asks for API and read_repository access on the consent page', () => {
    const url = new URL(provider.authorizeUrl('state-1', REDIRECT_URI));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: fake.oauthClient.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'state-1',
      scope: 'api read_repository',
    });
    expect(GITLAB_OAUTH_SCOPES).toEqual(['api', 'read_repository']);
    expect(provider.host).toBe('git-host-3');
    expect(provider.kind).toBe('gitlab');
  });

  it('trades the code the consent page returns for a working token set', async () => {
    fake.signIn('grace');
    const consent = await fetch(provider.authorizeUrl('state-2', REDIRECT_URI), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('state-2');
    const before = Date.now();

    const tokens = await provider.exchangeCode(back.searchParams.get('code')!, REDIRECT_URI);
    expect(tokens.scopes).toEqual(['api', 'read_repository']);
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(Date.parse(tokens.expiresAt!)).toBeGreaterThanOrEqual(before + 7_199_000);
    expect(await provider.currentAccount(tokens.accessToken)).toEqual({ login: 'grace', displayName: 'Grace Hopper' });
    const form = new URLSearchParams(lastRequest('POST', '/oauth/token').body!.toString('utf8'));
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code'),
      redirect_uri: REDIRECT_URI,
      client_id: fake.oauthClient.clientId,
      client_secret: fake.oauthClient.clientSecret,
    });
  });

  it('refuses a reused or unknown code with GIT_CREDENTIAL_INVALID, without repeating it', async () => {
    const code = fake.issueCode('grace', REDIRECT_URI);
    await provider.exchangeCode(code, REDIRECT_URI);
    const reused = await refusal(provider.exchangeCode(code, REDIRECT_URI));
    expect(reused.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(reused)).not.toContain(code);
    expect((await refusal(provider.exchangeCode('bogus', REDIRECT_URI))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('reports a refused application as the platform’s failure', async () => {
    const misconfigured = adapter({ clientSecret: 'wrong' });
    expect((await refusal(misconfigured.exchangeCode(fake.issueCode('grace', REDIRECT_URI), REDIRECT_URI))).code).toBe('UPSTREAM_ERROR');
  });

  it('refreshes into a rotated token set; the old refresh token is refused afterwards', async () => {
    const grant = fake.issueToken('grace', { expiresInSeconds: 1 });
    const refreshed = await provider.refresh(grant.refreshToken);
    expect(refreshed.refreshToken).not.toBe(grant.refreshToken);
    expect((await provider.currentAccount(refreshed.accessToken)).login).toBe('grace');
    const err = await refusal(provider.refresh(grant.refreshToken));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(grant.refreshToken);
  });

  it('revokes a grant, and a grant already gone succeeds', async () => {
    const grant = fake.issueToken('grace');
    await provider.revoke(grant.accessToken);
    expect(fake.tokenActive(grant.accessToken)).toBe(false);
    expect((await refusal(provider.currentAccount(grant.accessToken))).code).toBe('GIT_CREDENTIAL_INVALID');
    await expect(provider.revoke(grant.accessToken)).resolves.toBeUndefined();
    const form = new URLSearchParams(lastRequest('POST', '/oauth/revoke').body!.toString('utf8'));
    expect(form.get('client_id')).toBe(fake.oauthClient.clientId);
  });
});

describe('GitLab adapter: projects', () => {
  it('lists every project the user is a member of across pages, mapped', async () => {
    fake.addUser('many');
    fake.addMember('bulk/team', 'many', 30);
    const base = Date.parse('2024-01-01T00:00:00Z');
    for (let i = 0; i < 210; i += 1) {
      fake.addProject(`bulk/team/p-${String(i).padStart(3, '0')}`, {
        visibility: i % 3 === 0 ? 'public' : i % 3 === 1 ? 'internal' : 'private',
        lastActivityAt: new Date(base + i * 60_000).toISOString(),
        description: i === 209 ? '' : 'bulk',
      });
    }
    fake.addProject('strangers/hidden');
    const own = fake.issueToken('many').accessToken;
    const before = fake.requests.length;

    const repositories = await provider.listRepositories(own);
    expect(repositories).toHaveLength(210);
    expect(repositories[0]).toEqual({
      fullName: 'bulk/team/p-209',
      name: 'p-209',
      owner: 'bulk/team',
      private: true,
      defaultBranch: 'main',
      description: null,
      updatedAt: new Date(base + 209 * 60_000).toISOString(),
      webUrl: `${fake.baseUrl}/bulk/team/p-209`,
    });
    expect(repositories.find((repository) => repository.fullName === 'bulk/team/p-000')!.private).toBe(false);
    expect(repositories.find((repository) => repository.fullName === 'bulk/team/p-001')!.private).toBe(true);
    const pages = fake.requests.slice(before).filter((request) => request.path === '/api/v4/projects');
    expect(pages.map((request) => request.query.page ?? '1')).toEqual(['1', '2', '3']);
    expect(pages[0]!.query).toMatchObject({ membership: 'true', order_by: 'last_activity_at', per_page: '100' });
  });

  it('follows a Link header where GitLab leaves X-Next-Page out, but never off the API', async () => {
    fake.fail('GET /api/v4/projects', {
      status: 200,
      body: [],
      headers: { link: `<${fake.baseUrl}/api/v4/projects?membership=true&order_by=last_activity_at&per_page=100&page=2>; rel="next"` },
    });
    const before = fake.requests.length;
    await provider.listRepositories(token);
    expect(fake.requests.slice(before).map((request) => request.query.page ?? '1')).toEqual(['1', '2']);

    fake.fail('GET /api/v4/projects', { status: 200, body: [], headers: { link: '<http://198.51.100.7/api/v4/projects?page=2>; rel="next"' } });
    expect((await refusal(provider.listRepositories(token))).code).toBe('UPSTREAM_ERROR');
  });

  it('reads a project in nested groups by its full path, encoded exactly once', async () => {
    const repository = await provider.getRepository(token, NESTED);
    expect(repository).toMatchObject({ fullName: NESTED, name: 'my.project', owner: 'demo-group/sub group', defaultBranch: 'main' });
    const request = lastRequest('GET', '/api/v4/projects/demo-group%2Fsub%20group%2Fmy.project');
    expect(request.path).toBe('/api/v4/projects/demo-group%2Fsub%20group%2Fmy.project');
  });

  it('answers NOT_FOUND for a project out of reach or a name that is no full path', async () => {
    fake.addProject('strangers/secret');
    expect((await refusal(provider.getRepository(token, 'strangers/secret'))).code).toBe('NOT_FOUND');
    const before = fake.requests.length;
    for (const name of ['acme', 'acme//web', 'acme/../web']) expect((await refusal(provider.getRepository(token, name))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before);
  });
});

describe('GitLab adapter: contents', () => {
  it('lists the root of the default branch with directories, files, links and submodules', async () => {
    expect(await provider.listContents(token, 'acme/web', '')).toEqual([
      { name: 'src', path: 'src', type: 'dir', size: null },
      { name: 'README.md', path: 'README.md', type: 'file', size: null },
      { name: 'current', path: 'current', type: 'symlink', size: null },
      { name: 'vendor', path: 'vendor', type: 'submodule', size: null },
    ]);
    expect(lastRequest('GET', '/repository/tree').query).toMatchObject({ ref: 'main', per_page: '100' });
  });

  it('lists a nested directory of a nested-group project', async () => {
    expect(await provider.listContents(token, NESTED, 'app')).toEqual([{ name: 'main.py', path: 'app/main.py', type: 'file', size: null }]);
    const request = lastRequest('GET', '/repository/tree');
    expect(request.path).toBe('/api/v4/projects/demo-group%2Fsub%20group%2Fmy.project/repository/tree');
    expect(request.query.path).toBe('app');
    expect(await provider.listContents(token, 'acme/web', 'src/lib')).toEqual([
      { name: 'deep', path: 'src/lib/deep', type: 'dir', size: null },
      { name: 'util.ts', path: 'src/lib/util.ts', type: 'file', size: null },
    ]);
  });

  it('follows the pages of a large directory', async () => {
    fake.addProject('acme/assets', { files: Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`assets/f${String(i).padStart(3, '0')}`, 'x'])) });
    const before = fake.requests.length;
    expect(await provider.listContents(token, 'acme/assets', 'assets')).toHaveLength(130);
    expect(fake.requests.slice(before).filter((request) => request.path.endsWith('/repository/tree'))).toHaveLength(2);
  });

  it('answers NOT_FOUND for a file path (404 Tree Not Found), a missing path, and an empty listing below the root', async () => {
    const file = await refusal(provider.listContents(token, 'acme/web', 'src/index.ts'));
    expect(file.code).toBe('NOT_FOUND');
    expect((await refusal(provider.listContents(token, 'acme/web', 'nowhere'))).code).toBe('NOT_FOUND');
    fake.fail('GET /api/v4/projects/:id/repository/tree', { status: 200, body: [] });
    expect((await refusal(provider.listContents(token, 'acme/web', 'src/index.ts', 'main'))).code).toBe('NOT_FOUND');
  });

  it('reads at a ref, a branch name with a slash included', async () => {
    fake.addBranch('acme/web', 'feature/new-ui', { 'ui/app.tsx': 'export const ui = 1;\n' });
    expect(await provider.listContents(token, 'acme/web', '', 'feature/new-ui')).toEqual([{ name: 'ui', path: 'ui', type: 'dir', size: null }]);
    expect(await provider.readFile(token, 'acme/web', 'ui/app.tsx', 'feature/new-ui')).toBe('export const ui = 1;\n');
    expect(lastRequest('GET', '/raw').query.ref).toBe('feature/new-ui');
  });

  it('reads a file with its whole path encoded as one segment, as UTF-8 text', async () => {
    expect(await provider.readFile(token, 'acme/web', 'src/index.ts')).toBe('export const greeting = "Grüß Gott";\n');
    expect(lastRequest('GET', '/raw').path).toBe('/api/v4/projects/acme%2Fweb/repository/files/src%2Findex.ts/raw');
    expect(await provider.readFile(token, NESTED, 'Dockerfile')).toBe('FROM python:3.12\n');
  });

  it('reads null for a missing file or a directory, and NOT_FOUND for a missing project', async () => {
    expect(await provider.readFile(token, 'acme/web', 'missing.txt')).toBeNull();
    expect(await provider.readFile(token, 'acme/web', 'src')).toBeNull();
    expect((await refusal(provider.readFile(token, 'acme/gone', 'README.md'))).code).toBe('NOT_FOUND');
  });

  it('lists an empty project as empty and reads nothing from it', async () => {
    fake.addProject('acme/empty', { files: null });
    expect(await provider.listContents(token, 'acme/empty', '')).toEqual([]);
    expect(await provider.readFile(token, 'acme/empty', 'README.md')).toBeNull();
    expect((await refusal(provider.listContents(token, 'acme/empty', 'src'))).code).toBe('NOT_FOUND');
  });
});

describe('GitLab adapter: branches and commits', () => {
  it('pages branches 100 at a time across the boundary', async () => {
    fake.addProject('acme/branchy');
    for (let i = 0; i < 150; i += 1) fake.addBranch('acme/branchy', `b-${String(i).padStart(3, '0')}`);
    const first = await provider.listBranches(token, 'acme/branchy', 1);
    expect(first.branches).toHaveLength(100);
    expect(first).toMatchObject({ page: 1, nextPage: 2 });
    const second = await provider.listBranches(token, 'acme/branchy', 2);
    expect(second.branches).toHaveLength(51);
    expect(second).toMatchObject({ page: 2, nextPage: null });
    expect(new Set([...first.branches, ...second.branches].map((branch) => branch.name)).size).toBe(151);
    expect(second.branches.find((branch) => branch.name === 'main')!.commitSha).toBe(fake.project('acme/branchy')!.branches.get('main'));
    expect(lastRequest('GET', '/repository/branches').query).toMatchObject({ per_page: '100', page: '2' });
  });

  it('refuses a page that is not a whole number from 1', async () => {
    expect((await refusal(provider.listBranches(token, 'acme/web', 1.5))).code).toBe('VALIDATION_ERROR');
  });

  it('reads the head commit of a branch, its name encoded', async () => {
    expect(await provider.headCommit(token, 'acme/web', 'main')).toEqual({
      sha: fake.project('acme/web')!.branches.get('main'),
      message: 'Initial commit',
      author: 'Grace Hopper',
    });
    const sha = fake.addBranch('acme/web', 'release/2.0');
    expect((await provider.headCommit(token, 'acme/web', 'release/2.0')).sha).toBe(sha);
    expect(lastRequest('GET', '/repository/branches/release%2F2.0').path).toBe('/api/v4/projects/acme%2Fweb/repository/branches/release%2F2.0');
    expect((await refusal(provider.headCommit(token, 'acme/web', 'nope'))).code).toBe('NOT_FOUND');
  });
});

describe('GitLab adapter: webhooks', () => {
  it('registers a push webhook carrying the token and deletes it; deleting it again succeeds', async () => {
    const { hookId } = await provider.createWebhook(token, NESTED, {
      url: 'https://panel.example.com/v1/integrations/git-host-3/webhook',
      secret: 'hook-token',
    });
    const hook = fake.project(NESTED)!.hooks.get(Number(hookId))!;
    expect(hook).toMatchObject({ url: 'https://panel.example.com/v1/integrations/git-host-3/webhook', token: 'hook-token', pushEvents: true });

    await provider.deleteWebhook(token, NESTED, hookId);
    expect(fake.project(NESTED)!.hooks.size).toBe(0);
    await expect(provider.deleteWebhook(token, NESTED, hookId)).resolves.toBeUndefined();
  });

  it('answers NOT_FOUND when the account may not manage hooks, never repeating the hook token', async () => {
    fake.addUser('dev');
    fake.addMember('acme', 'dev', 30);
    const err = await refusal(
      provider.createWebhook(fake.issueToken('dev').accessToken, 'acme/web', { url: 'https://panel.example.com/hook', secret: 'hidden-token' }),
    );
    expect(err.code).toBe('NOT_FOUND');
    expect(everythingIn(err)).not.toContain('hidden-token');
  });
});

describe('GitLab adapter: deployment copies', () => {
  const creations = () => fake.requests.filter((request) => request.method === 'POST' && request.path === '/api/v4/projects');

  it('makes a private project in the deployment group with the platform’s token and mirrors the source into it', async () => {
    const before = mirrored.length;
    const { fullName } = await provider.copyToDeploymentOrganisation(token, NESTED);
    expect(fullName).toMatch(/^platform-deployments\/demo-group-sub-group-my-project-[0-9a-f]{8}$/);
    expect(fake.project(fullName)).toMatchObject({ visibility: 'private', namespace: DEPLOY_GROUP });

    const group = lastRequest('GET', `/api/v4/groups/${DEPLOY_GROUP}`);
    expect(group.headers.authorization).toBe(`Bearer ${deployToken}`);
    const create = creations().at(-1)!;
    expect(create.headers.authorization).toBe(`Bearer ${deployToken}`);
    const path = fullName.split('/')[1];
    expect(JSON.parse(create.body!.toString('utf8'))).toEqual({ name: path, path, namespace_id: expect.any(Number), visibility: 'private' });

    expect(mirrored.slice(before)).toEqual([
      {
        source: { url: `${fake.baseUrl}/demo-group/sub%20group/my.project.git`, credential: { username: 'oauth2', token }, name: NESTED },
        target: { url: `${fake.baseUrl}/${fullName}.git`, credential: { username: 'oauth2', token: deployToken }, name: fullName },
      },
    ]);
  });

  it('reuses the copy made earlier and brings it up to date', async () => {
    const { fullName } = await provider.copyToDeploymentOrganisation(token, NESTED);
    const made = creations().length;
    const pushed = fake.addBranch(NESTED, 'release');
    expect(await provider.copyToDeploymentOrganisation(token, NESTED)).toEqual({ fullName });
    expect(creations()).toHaveLength(made);
    expect(fake.project(fullName)!.branches.get('release')).toBe(pushed);
  });

  it('reads a copy with the platform’s token, which the customer’s does not reach', async () => {
    const { fullName } = await provider.copyToDeploymentOrganisation(token, NESTED);
    const before = fake.requests.length;
    expect(await provider.deploymentCopies.readFile(fullName, 'Dockerfile')).toBe('FROM python:3.12\n');
    expect((await provider.deploymentCopies.listContents(fullName, '', 'release')).map((entry) => entry.name)).toEqual(['app', 'Dockerfile']);
    expect(new Set(fake.requests.slice(before).map((request) => request.headers.authorization))).toEqual(new Set([`Bearer ${deployToken}`]));

    expect((await refusal(provider.readFile(token, fullName, 'Dockerfile'))).code).toBe('NOT_FOUND');
    const before2 = fake.requests.length;
    expect((await refusal(provider.deploymentCopies.readFile(NESTED, 'Dockerfile'))).code).toBe('NOT_FOUND');
    expect(fake.requests.length).toBe(before2);
  });

  it('answers NOT_FOUND for a source the customer does not reach, making nothing', async () => {
    fake.addProject('strangers/tool');
    const made = creations().length;
    expect((await refusal(provider.copyToDeploymentOrganisation(token, 'strangers/tool'))).code).toBe('NOT_FOUND');
    expect(creations()).toHaveLength(made);
  });

  it('cannot make copies with the customer’s token: the deployment group is not theirs', async () => {
    const before = mirrored.length;
    const err = await refusal(adapter({ deployToken: token }).copyToDeploymentOrganisation(token, 'acme/web'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe("Git host 3 refused the platform's deployment credential while finding the deployment group");
    expect(mirrored).toHaveLength(before);
  });

  it('reports a refused platform token as the platform’s failure, never quoting it', async () => {
    const expired = fake.issueToken('group_deploy_bot', { expiresInSeconds: -1 }).accessToken;
    const stale = adapter({ deployToken: expired });
    const copying = await refusal(stale.copyToDeploymentOrganisation(token, 'acme/web'));
    expect(copying.code).toBe('UPSTREAM_ERROR');
    expect(everythingIn(copying)).not.toContain(expired);
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/web');
    const reading = await refusal(stale.deploymentCopies.readFile(fullName, 'README.md'));
    expect(reading.code).toBe('UPSTREAM_ERROR');
    expect(everythingIn(reading)).not.toContain(expired);
  });

  it('refuses to build from a copy that is no longer private', async () => {
    const { fullName } = await provider.copyToDeploymentOrganisation(token, 'acme/web');
    fake.project(fullName)!.visibility = 'internal';
    try {
      const err = await refusal(provider.copyToDeploymentOrganisation(token, 'acme/web'));
      expect(err.code).toBe('UPSTREAM_ERROR');
      expect(err.message).toContain('is internal');
    } finally {
      fake.project(fullName)!.visibility = 'private';
    }
  });
});

describe('GitLab adapter: failures', () => {
  it('maps an expired token to GIT_CREDENTIAL_INVALID, never quoting it', async () => {
    const expired = fake.issueToken('grace', { expiresInSeconds: -1 }).accessToken;
    const err = await refusal(provider.listRepositories(expired));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(everythingIn(err)).not.toContain(expired);
  });

  it('maps a token without the api scope to GIT_CREDENTIAL_INVALID', async () => {
    const narrow = fake.issueToken('grace', { scopes: ['read_user'] }).accessToken;
    expect((await refusal(provider.getRepository(narrow, 'acme/web'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('maps a server error to UPSTREAM_ERROR naming the host and the work', async () => {
    fake.fail('GET /api/v4/projects/:id/repository/branches', { status: 500 });
    const err = await refusal(provider.listBranches(token, 'acme/web', 1));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 3 failed while listing branches (HTTP 500)');
  });

  it('fails a listing as a whole when a later page fails', async () => {
    fake.addUser('pager');
    fake.addMember('bulk/team', 'pager', 30);
    fake.fail('GET /api/v4/projects', { status: 502, after: 1 });
    expect((await refusal(provider.listRepositories(fake.issueToken('pager').accessToken))).code).toBe('UPSTREAM_ERROR');
  });

  it('maps a rate limit to UPSTREAM_ERROR that says so', async () => {
    fake.fail('GET /api/v4/user', { status: 429 });
    expect((await refusal(provider.currentAccount(token))).message).toContain('rate limit');
  });

  it('maps a timeout to UPSTREAM_ERROR', async () => {
    fake.fail('GET /api/v4/projects/:id', { delayMs: 1500 });
    const err = await refusal(provider.getRepository(token, 'acme/web'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 3 did not answer within 400 ms while reading a project');
  });

  it('maps an unreadable answer to UPSTREAM_ERROR', async () => {
    fake.fail('GET /api/v4/projects/:id/repository/branches/:branch', { status: 200, body: 'not json' });
    expect((await refusal(provider.headCommit(token, 'acme/web', 'main'))).code).toBe('UPSTREAM_ERROR');
    fake.fail('GET /api/v4/projects/:id', { status: 200, body: { id: 'seven' } });
    expect((await refusal(provider.getRepository(token, 'acme/web'))).code).toBe('UPSTREAM_ERROR');
  });
});

import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '../../../db';
import { gitSimCopies, gitSimHooks, gitSimTokens } from '../../../db/schema';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { open } from '../../platform/encryption/envelope';
import { AppError } from '../../platform/errors';
import { MONOREPO_BRANCH_COUNT, STOREFRONT_INVALID_LINE, seededCommitSha } from './seed';
import { simulatePush } from './simulatedDeliveries';
import { GitHost1Simulator, OAuthGitHostSimulator, installSimulatedApp, setSimulatedInstallationSuspended } from './simulator';
import {
  actionNotice,
  checkAuthorization,
  handleHostForm,
  hostOverview,
  installPage,
  repositoryOverview,
  submitAuthorizationForm,
  submitInstallForm,
  submitPushForm,
  submitUninstallForm,
} from './simulatorPages';
import { pageOf } from './simulatorRepositories';
import { BRANCHES_PER_PAGE, type GitHost, type GitTokenSet, type OAuthGitHost } from './types';

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function configure(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
}

const appUrl = () => getConfig().APP_URL;
/** Where host 1's deliveries go in these tests: a closed port, so no server of the machine receives them. */
const NOWHERE = 'http://127.0.0.1:9';
const callbackOf = (host: GitHost) => `${appUrl()}/v1/integrations/${host}/callback`;
const clientId = 'cloudpanel-simulator';

/** A consent given on the host's page: the code it sends back to the platform's callback. */
async function consent(host: GitHost, extra: Record<string, string> = {}): Promise<string> {
  const location = await submitAuthorizationForm(host, {
    decision: 'allow',
    client_id: clientId,
    redirect_uri: callbackOf(host),
    state: 'state-1',
    ...(host === 'git-host-1' ? {} : { response_type: 'code' }),
    ...extra,
  });
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** The account's installation, made afresh (any earlier one uninstalled). */
async function freshInstallation(account: string): Promise<string> {
  const host1 = new GitHost1Simulator();
  const { installation, created } = await installSimulatedApp(account);
  if (created) return installation.installationId;
  await host1.uninstall(installation.installationId);
  return (await installSimulatedApp(account)).installation.installationId;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('git host 1 simulator: installations', () => {
  const host1 = new GitHost1Simulator();

  it('sends the browser to the simulated host’s install and consent pages', () => {
    expect(host1.kind).toBe('simulator');
    expect(host1.description).toMatch(/simulated/i);
    expect(host1.installUrl('st/ate+1')).toBe(`${appUrl()}/dev/git-hosts/git-host-1/install?state=st%2Fate%2B1`);
    const authorize = new URL(host1.authorizeUrl('s1', callbackOf('git-host-1')));
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${appUrl()}/dev/git-hosts/git-host-1/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({ client_id: clientId, redirect_uri: callbackOf('git-host-1'), state: 's1' });
  });

  it('numbers installations, keeps one live installation per account and gives a reinstall a new id', async () => {
    const first = await installSimulatedApp('demo-user');
    expect(first.created).toBe(true);
    expect(first.installation).toMatchObject({ accountLogin: 'demo-user', accountType: 'User', suspended: false });
    expect(first.installation.installationId).toMatch(/^\d+$/);
    const again = await installSimulatedApp('DEMO-USER');
    expect(again).toEqual({ installation: first.installation, created: false });

    const org = await installSimulatedApp('acme-labs');
    expect(org.installation.accountType).toBe('Organization');
    expect(Number(org.installation.installationId)).toBe(Number(first.installation.installationId) + 1);

    expect(await host1.getInstallation(first.installation.installationId)).toEqual(first.installation);
    await host1.uninstall(first.installation.installationId);
    expect(await host1.getInstallation(first.installation.installationId)).toBeNull();
    await host1.uninstall(first.installation.installationId);
    await host1.uninstall('99999999');
    expect(await host1.getInstallation('99999999')).toBeNull();

    const reinstalled = await installSimulatedApp('demo-user');
    expect(reinstalled.created).toBe(true);
    expect(reinstalled.installation.installationId).not.toBe(first.installation.installationId);
  });

  it('refuses an account the host does not know', async () => {
    expect((await refusal(installSimulatedApp('nobody-here'))).code).toBe('NOT_FOUND');
  });

  it('refuses reads with an uninstalled, suspended or unknown installation', async () => {
    const installationId = await freshInstallation('acme-labs');
    await setSimulatedInstallationSuspended(installationId, true);
    expect(await host1.getInstallation(installationId)).toMatchObject({ suspended: true });
    for (const call of [
      () => host1.listRepositories({ installationId }),
      () => host1.getRepository({ installationId }, 'acme-labs/storefront'),
      () => host1.listPackages({ installationId }),
    ]) {
      expect((await refusal(call())).code).toBe('GIT_CREDENTIAL_INVALID');
    }
    await setSimulatedInstallationSuspended(installationId, false);
    expect((await host1.getRepository({ installationId }, 'acme-labs/storefront')).fullName).toBe('acme-labs/storefront');

    await host1.uninstall(installationId);
    expect((await refusal(host1.listRepositories({ installationId }))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect((await refusal(setSimulatedInstallationSuspended(installationId, true))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.readFile({ installationId: '123' }, 'acme-labs/storefront', 'README.md'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('git host 1 simulator: repositories', () => {
  const host1 = new GitHost1Simulator();
  let acme: { installationId: string };
  let demo: { installationId: string };

  beforeEach(async () => {
    acme = { installationId: (await installSimulatedApp('acme-labs')).installation.installationId };
    demo = { installationId: (await installSimulatedApp('demo-user')).installation.installationId };
  });

  it('lists only the installation’s account’s repositories, each with a distinct last update', async () => {
    const repositories = await host1.listRepositories(acme);
    expect(repositories.map((repo) => repo.fullName)).toEqual(['acme-labs/docs-site', 'acme-labs/monorepo', 'acme-labs/storefront']);
    expect(new Set(repositories.map((repo) => repo.updatedAt)).size).toBe(3);
    expect(repositories.find((repo) => repo.name === 'docs-site')).toMatchObject({ owner: 'acme-labs', private: false, defaultBranch: 'main' });
    expect((await host1.listRepositories(demo)).map((repo) => repo.fullName)).toEqual(['demo-user/hello-node']);
  });

  it('answers another account’s repository as one that does not exist, and finds its own whatever the case', async () => {
    expect((await refusal(host1.getRepository(acme, 'demo-user/hello-node'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.getRepository(acme, 'globex/website'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.readFile(acme, 'acme-labs/nothing', 'README.md'))).code).toBe('NOT_FOUND');
    const repo = await host1.getRepository(demo, 'Demo-User/Hello-Node');
    expect(repo).toMatchObject({ fullName: 'demo-user/hello-node', name: 'hello-node', owner: 'demo-user', private: false, description: expect.any(String) });
    expect(repo.webUrl).toBe(`${appUrl()}/dev/git-hosts/git-host-1?repository=demo-user%2Fhello-node`);
  });

  it('lists directories with types and sizes, and refuses a file path or an unknown one', async () => {
    const root = await host1.listContents(demo, 'demo-user/hello-node', '');
    expect(root.map((entry) => [entry.name, entry.type])).toEqual([
      ['.cloudpanel', 'dir'],
      ['.gitignore', 'file'],
      ['README.md', 'file'],
      ['package.json', 'file'],
      ['src', 'dir'],
    ]);
    const readme = root.find((entry) => entry.name === 'README.md')!;
    expect(readme.size).toBe(Buffer.byteLength((await host1.readFile(demo, 'demo-user/hello-node', 'README.md'))!, 'utf8'));
    expect(root.find((entry) => entry.name === 'src')).toEqual({ name: 'src', path: 'src', type: 'dir', size: null });
    expect(await host1.listContents(demo, 'demo-user/hello-node', '/.cloudpanel/')).toEqual([
      { name: 'app.yaml', path: '.cloudpanel/app.yaml', type: 'file', size: expect.any(Number) },
    ]);
    expect((await refusal(host1.listContents(demo, 'demo-user/hello-node', 'package.json'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.listContents(demo, 'demo-user/hello-node', 'nowhere'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.listContents(demo, 'demo-user/hello-node', 'sr'))).code).toBe('NOT_FOUND');
  });

  it('walks nested directories and shows symbolic links and submodules as such', async () => {
    const nested = await host1.listContents(acme, 'acme-labs/monorepo', 'apps/web/src');
    expect(nested.map((entry) => [entry.path, entry.type])).toEqual([
      ['apps/web/src/components', 'dir'],
      ['apps/web/src/server.js', 'file'],
    ]);
    const root = await host1.listContents(acme, 'acme-labs/monorepo', '');
    expect(root.find((entry) => entry.name === 'GUIDE.md')).toEqual({ name: 'GUIDE.md', path: 'GUIDE.md', type: 'symlink', size: null });
    expect(await host1.listContents(acme, 'acme-labs/monorepo', 'vendor')).toEqual([
      { name: 'design-tokens', path: 'vendor/design-tokens', type: 'submodule', size: null },
    ]);
    expect(await host1.readFile(acme, 'acme-labs/monorepo', 'GUIDE.md')).toBe(await host1.readFile(acme, 'acme-labs/monorepo', 'docs/guide.md'));
    expect(await host1.readFile(acme, 'acme-labs/monorepo', 'vendor/design-tokens')).toBeNull();
    expect(await host1.readFile(acme, 'acme-labs/monorepo', 'apps')).toBeNull();
  });

  it('serves the valid hello-node template and the invalid storefront one, and null for a missing file', async () => {
    const template = await host1.readFile(demo, 'demo-user/hello-node', '.cloudpanel/app.yaml');
    expect(template).toContain('name: hello-node');
    expect(template).toContain('instanceSize: apps-s-1vcpu-1gb');
    expect(template).toContain('region: nyc');
    expect(await host1.readFile(demo, 'demo-user/hello-node', '.cloudpanel/app.yml')).toBeNull();
    const storefront = await host1.readFile(acme, 'acme-labs/storefront', '.cloudpanel/app.yml');
    expect(storefront!.split('\n')[STOREFRONT_INVALID_LINE - 1]).toBe('  - name: web');
    expect(storefront).toContain('    instances: "three"');
    expect(storefront).not.toContain('region:');
    expect(await host1.readFile(acme, 'acme-labs/docs-site', '.cloudpanel/app.yaml')).toBeNull();
  });

  it('reads at a branch, a tag or a commit, and refuses an unknown ref', async () => {
    const repo = 'demo-user/hello-node';
    expect(await host1.readFile(demo, repo, '.cloudpanel/app.yaml', 'experiment')).toBeNull();
    const experimentSha = seededCommitSha('git-host-1', repo, 'experiment');
    expect(await host1.readFile(demo, repo, '.cloudpanel/app.yaml', experimentSha)).toBeNull();
    expect(await host1.readFile(demo, repo, '.cloudpanel/app.yaml', experimentSha.toUpperCase())).toBeNull();
    expect(await host1.readFile(demo, repo, '.cloudpanel/app.yaml', 'v1.0.0')).toContain('name: hello-node');
    expect(await host1.readFile(demo, repo, '.cloudpanel/app.yaml', seededCommitSha('git-host-1', repo, 'main'))).toContain('name: hello-node');
    for (const ref of ['no-such-branch', 'a'.repeat(40), seededCommitSha('git-host-1', 'acme-labs/storefront', 'main')]) {
      expect((await refusal(host1.readFile(demo, repo, 'README.md', ref))).code).toBe('NOT_FOUND');
      expect((await refusal(host1.listContents(demo, repo, '', ref))).code).toBe('NOT_FOUND');
    }
  });

  it('pages branches 100 at a time, in name order, with an empty page past the end', async () => {
    const first = await host1.listBranches(acme, 'acme-labs/monorepo', 1);
    expect(first.branches).toHaveLength(BRANCHES_PER_PAGE);
    expect(first).toMatchObject({ page: 1, nextPage: 2 });
    const second = await host1.listBranches(acme, 'acme-labs/monorepo', 2);
    expect(second.branches).toHaveLength(MONOREPO_BRANCH_COUNT - BRANCHES_PER_PAGE);
    expect(second).toMatchObject({ page: 2, nextPage: null });
    const names = [...first.branches, ...second.branches].map((branch) => branch.name);
    expect(new Set(names).size).toBe(MONOREPO_BRANCH_COUNT);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('main');
    expect(second.branches.find((branch) => branch.name === 'main')!.commitSha).toBe(seededCommitSha('git-host-1', 'acme-labs/monorepo', 'main'));
    expect(await host1.listBranches(acme, 'acme-labs/monorepo', 3)).toEqual({ branches: [], page: 3, nextPage: null });
    const small = await host1.listBranches(demo, 'demo-user/hello-node', 1);
    expect(small).toEqual({
      branches: [
        { name: 'experiment', commitSha: seededCommitSha('git-host-1', 'demo-user/hello-node', 'experiment') },
        { name: 'main', commitSha: seededCommitSha('git-host-1', 'demo-user/hello-node', 'main') },
      ],
      page: 1,
      nextPage: null,
    });
  });

  it('ends the pages exactly at the last item, and takes a page number below 1 as the first', () => {
    const hundred = Array.from({ length: BRANCHES_PER_PAGE }, (_, i) => i);
    expect(pageOf(hundred, 1)).toMatchObject({ page: 1, nextPage: null });
    expect(pageOf([...hundred, ...hundred], 2)).toMatchObject({ page: 2, nextPage: null });
    expect(pageOf([...hundred, 1], 1)).toMatchObject({ page: 1, nextPage: 2 });
    expect(pageOf([], 1)).toEqual({ items: [], page: 1, nextPage: null });
    expect(pageOf(hundred, 0)).toMatchObject({ page: 1 });
    expect(pageOf(hundred, 1.5)).toMatchObject({ page: 1 });
  });

  it('follows pushes: the head, the branch list, the last update and the new commit as a ref', async () => {
    const repo = 'acme-labs/docs-site';
    const before = await host1.headCommit(acme, repo, 'main');
    expect(before).toEqual({ sha: seededCommitSha('git-host-1', repo, 'main'), message: 'Publish the about page', author: 'Demo User' });
    const updatedBefore = (await host1.getRepository(acme, repo)).updatedAt;

    const { commit } = await simulatePush(
      { host: 'git-host-1', repository: repo, branch: 'main', message: 'Fix a typo', author: 'Ada Lovelace <ada@example.com>' },
      { baseUrl: NOWHERE },
    );
    expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(commit.before).toBe(before.sha);
    expect(await host1.headCommit(acme, repo, 'main')).toEqual({ sha: commit.sha, message: 'Fix a typo', author: 'Ada Lovelace' });
    expect((await host1.listBranches(acme, repo, 1)).branches).toEqual([{ name: 'main', commitSha: commit.sha }]);
    expect((await host1.getRepository(acme, repo)).updatedAt > updatedBefore).toBe(true);
    expect(await host1.readFile(acme, repo, 'index.html', commit.sha)).toContain('Acme Labs docs');

    const next = await simulatePush({ host: 'git-host-1', repository: repo, branch: 'main', message: 'Second' }, { baseUrl: NOWHERE });
    expect(next.commit.before).toBe(commit.sha);
    expect((await host1.headCommit(acme, repo, 'main')).sha).toBe(next.commit.sha);
    expect((await refusal(host1.headCommit(acme, repo, 'gh-pages'))).code).toBe('NOT_FOUND');
  });

  it('lists the account’s container images and their tags, newest first', async () => {
    const packages = await host1.listPackages(acme);
    expect(packages.map((pkg) => pkg.name).sort()).toEqual(['docs-site', 'storefront']);
    expect(packages.find((pkg) => pkg.name === 'storefront')).toMatchObject({
      owner: 'acme-labs',
      visibility: 'private',
      image: 'packages.git-host-1.test/acme-labs/storefront',
    });
    const tags = await host1.listPackageTags(acme, 'acme-labs', 'storefront');
    expect(tags.map((tag) => tag.tag)).toEqual(['latest', 'v1.2.0', 'v1.1.0']);
    expect(tags[0]!.digest).toBe(tags[1]!.digest);
    expect(tags[2]!.digest).not.toBe(tags[0]!.digest);
    expect(tags[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await refusal(host1.listPackageTags(acme, 'acme-labs', 'nothing'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.listPackageTags(acme, 'globex', 'website'))).code).toBe('NOT_FOUND');
    expect((await refusal(host1.listPackageTags(demo, 'acme-labs', 'storefront'))).code).toBe('NOT_FOUND');
    expect((await host1.listPackages(demo)).map((pkg) => pkg.name)).toEqual(['hello-node']);
  });
});

describe('git host 1 simulator: the user’s consent (legacy callback)', () => {
  const host1 = new GitHost1Simulator();

  it('trades a code from the consent page once, for the redirect URI it was issued for', async () => {
    const code = await consent('git-host-1');
    expect((await refusal(host1.exchangeUserCode(code, `${appUrl()}/elsewhere`))).code).toBe('GIT_CREDENTIAL_INVALID');
    const { accessToken } = await host1.exchangeUserCode(code, callbackOf('git-host-1'));
    expect(accessToken).toEqual(expect.any(String));
    const reused = await refusal(host1.exchangeUserCode(code, callbackOf('git-host-1')));
    expect(reused.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(reused.message).not.toContain(code);
    expect((await refusal(host1.exchangeUserCode('made-up', callbackOf('git-host-1')))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('lets a code expire after ten minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const late = await consent('git-host-1');
    const inTime = await consent('git-host-1');
    vi.setSystemTime(start + 9 * 60_000);
    await host1.exchangeUserCode(inTime, callbackOf('git-host-1'));
    vi.setSystemTime(start + 10 * 60_000 + 1);
    expect((await refusal(host1.exchangeUserCode(late, callbackOf('git-host-1')))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('answers the live installations on the accounts the user belongs to', async () => {
    const demoId = await freshInstallation('demo-user');
    const acmeId = await freshInstallation('acme-labs');
    await freshInstallation('globex');
    const { accessToken } = await host1.exchangeUserCode(await consent('git-host-1'), callbackOf('git-host-1'));
    const listed = await host1.listUserInstallations(accessToken);
    expect(listed.map((installation) => installation.installationId).sort()).toEqual([acmeId, demoId].sort());
    expect(listed.map((installation) => installation.accountLogin).sort()).toEqual(['acme-labs', 'demo-user']);

    await host1.uninstall(demoId);
    expect((await host1.listUserInstallations(accessToken)).map((installation) => installation.installationId)).toEqual([acmeId]);
    expect((await refusal(host1.listUserInstallations('sat_unknown'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

const OAUTH_CASES: ReadonlyArray<{
  host: OAuthGitHost;
  reachable: string[];
  unreachable: string;
  withTemplate: string;
  copy: string;
  deploySetting: string;
}> = [
  {
    host: 'git-host-2',
    reachable: ['demo-team/api-service', 'demo-team/legacy-app'],
    unreachable: 'other-team/internal-tools',
    withTemplate: 'demo-team/api-service',
    copy: 'platform-deployments/demo-team-api-service',
    deploySetting: 'GIT_HOST_2_DEPLOY_WORKSPACE',
  },
  {
    host: 'git-host-3',
    reachable: ['demo-group/backend/payments-api', 'demo-group/website'],
    unreachable: 'other-group/secret-project',
    withTemplate: 'demo-group/backend/payments-api',
    copy: 'platform-deployments/demo-group-backend-payments-api',
    deploySetting: 'GIT_HOST_3_DEPLOY_GROUP',
  },
];

describe.each(OAUTH_CASES)('$host simulator', ({ host, reachable, unreachable, withTemplate, copy, deploySetting }) => {
  const sim = new OAuthGitHostSimulator(host);
  const connect = async (extra: Record<string, string> = {}): Promise<GitTokenSet> => sim.exchangeCode(await consent(host, extra), callbackOf(host));

  it('sends the browser to its consent page, asking host 3’s scopes', () => {
    expect(sim.host).toBe(host);
    expect(sim.kind).toBe('simulator');
    const url = new URL(sim.authorizeUrl('s2', callbackOf(host)));
    expect(`${url.origin}${url.pathname}`).toBe(`${appUrl()}/dev/git-hosts/${host}/authorize`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackOf(host));
    expect(url.searchParams.get('state')).toBe('s2');
    expect(url.searchParams.get('scope')).toBe(host === 'git-host-3' ? 'api read_repository' : null);
  });

  it('trades a code once for two-hour tokens and refuses it again or for another redirect URI', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.now();
    const code = await consent(host);
    expect((await refusal(sim.exchangeCode(code, `${callbackOf(host)}x`))).code).toBe('GIT_CREDENTIAL_INVALID');
    const tokens = await sim.exchangeCode(code, callbackOf(host));
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(Date.parse(tokens.expiresAt!)).toBe(now + 2 * 3_600_000);
    expect(tokens.scopes).toEqual(host === 'git-host-3' ? ['api', 'read_repository'] : ['account', 'repository', 'webhook']);
    expect((await refusal(sim.exchangeCode(code, callbackOf(host)))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect(await sim.currentAccount(tokens.accessToken)).toEqual({ login: 'demo-user', displayName: 'Demo User' });
  });

  it('refuses a code after ten minutes and an access token after two hours', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const stale = await consent(host);
    const tokens = await connect();
    vi.setSystemTime(start + 10 * 60_000 + 1);
    expect((await refusal(sim.exchangeCode(stale, callbackOf(host)))).code).toBe('GIT_CREDENTIAL_INVALID');
    vi.setSystemTime(start + 2 * 3_600_000 - 1_000);
    expect((await sim.listRepositories(tokens.accessToken)).length).toBeGreaterThan(0);
    vi.setSystemTime(start + 2 * 3_600_000 + 1);
    const expired = await refusal(sim.listRepositories(tokens.accessToken));
    expect(expired.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(expired.message).not.toContain(tokens.accessToken);
    const renewed = await sim.refresh(tokens.refreshToken!);
    expect((await sim.listRepositories(renewed.accessToken)).length).toBeGreaterThan(0);
  });

  it('rotates both tokens on a refresh', async () => {
    const first = await connect();
    const second = await sim.refresh(first.refreshToken!);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.scopes).toEqual(first.scopes);
    expect((await refusal(sim.refresh(first.refreshToken!))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect((await refusal(sim.currentAccount(first.accessToken))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect((await sim.currentAccount(second.accessToken)).login).toBe('demo-user');
    expect((await refusal(sim.refresh('srt_unknown'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });

  it('withdraws the whole grant on revoke, and a grant already gone is no error', async () => {
    const tokens = await connect();
    const other = await connect();
    await sim.revoke(tokens.accessToken);
    expect((await refusal(sim.listRepositories(tokens.accessToken))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect((await refusal(sim.refresh(tokens.refreshToken!))).code).toBe('GIT_CREDENTIAL_INVALID');
    await sim.revoke(tokens.accessToken);
    await sim.revoke('sat_never_issued');
    expect((await sim.currentAccount(other.accessToken)).login).toBe('demo-user');
  });

  it('keeps only hashes of codes and tokens', async () => {
    const tokens = await connect();
    const db = await getDb();
    const rows = await db.select().from(gitSimTokens).where(eq(gitSimTokens.host, host));
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(tokens.accessToken);
    expect(stored).not.toContain(tokens.refreshToken!);
  });

  it('lists the repositories of the user’s namespaces, newest first, and hides the rest', async () => {
    const { accessToken } = await connect();
    const repositories = await sim.listRepositories(accessToken);
    expect(repositories.map((repo) => repo.fullName).sort()).toEqual([...reachable].sort());
    const updates = repositories.map((repo) => repo.updatedAt);
    expect(updates).toEqual([...updates].sort().reverse());
    expect((await refusal(sim.getRepository(accessToken, unreachable))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.readFile(accessToken, unreachable, 'README.md'))).code).toBe('NOT_FOUND');
    const repo = await sim.getRepository(accessToken, withTemplate.toUpperCase());
    expect(repo.fullName).toBe(withTemplate);
    expect(repo.owner).toBe(withTemplate.slice(0, withTemplate.lastIndexOf('/')));
    expect(await sim.readFile(accessToken, withTemplate, '.cloudpanel/app.yaml')).toContain('services:');
    expect((await refusal(sim.listContents(accessToken, withTemplate, 'README.md'))).code).toBe('NOT_FOUND');
    expect(await sim.readFile(accessToken, withTemplate, 'missing.txt')).toBeNull();
  });

  it('registers webhooks with a sealed secret and deletes them, a gone one included', async () => {
    const { accessToken } = await connect();
    const { hookId } = await sim.createWebhook(accessToken, withTemplate, {
      url: 'https://panel.example.com/v1/integrations/hook?hook=ghk_1',
      secret: 's3cret-value',
    });
    expect(hookId).toMatch(host === 'git-host-2' ? /^\{[0-9a-f-]{36}\}$/ : /^\d+$/);
    const db = await getDb();
    const [row] = await db.select().from(gitSimHooks).where(eq(gitSimHooks.id, hookId));
    expect(row).toMatchObject({ host, repository: withTemplate, url: 'https://panel.example.com/v1/integrations/hook?hook=ghk_1' });
    expect(row!.sealedSecret).not.toContain('s3cret-value');
    expect(open(row!.sealedSecret, hookId)).toBe('s3cret-value');

    await sim.deleteWebhook(accessToken, withTemplate, hookId);
    expect(await db.select().from(gitSimHooks).where(eq(gitSimHooks.id, hookId))).toEqual([]);
    await sim.deleteWebhook(accessToken, withTemplate, hookId);

    expect((await refusal(sim.createWebhook(accessToken, unreachable, { url: 'https://x.example/h', secret: 's' }))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.createWebhook(accessToken, withTemplate, { url: 'ftp://x.example/h', secret: 's' }))).code).toBe('UPSTREAM_ERROR');
    expect((await refusal(sim.createWebhook(accessToken, withTemplate, { url: 'https://x.example/h', secret: '' }))).code).toBe('UPSTREAM_ERROR');
  });

  it('keeps no more webhooks on a repository than the host allows', async () => {
    const { accessToken } = await connect();
    const repository = reachable[1]!;
    const limit = host === 'git-host-2' ? 50 : 100;
    for (let i = 0; i < limit; i += 1) await sim.createWebhook(accessToken, repository, { url: `https://x.example/h${i}`, secret: 'secret' });
    const refused = await refusal(sim.createWebhook(accessToken, repository, { url: 'https://x.example/one-more', secret: 'secret' }));
    expect(refused.code).toBe('UPSTREAM_ERROR');
    expect(refused.message).toContain(String(limit));
    const db = await getDb();
    await db.delete(gitSimHooks).where(and(eq(gitSimHooks.host, host), eq(gitSimHooks.repository, repository)));
  });

  it('copies a repository into the deployment organisation, readable by the platform and in step only when copied again', async () => {
    const { accessToken } = await connect();
    expect(await sim.copyToDeploymentOrganisation(accessToken, withTemplate)).toEqual({ fullName: copy });
    const original = await sim.listContents(accessToken, withTemplate, '');
    expect(await sim.deploymentCopies.listContents(copy, '')).toEqual(original);
    expect(await sim.deploymentCopies.readFile(copy, '.cloudpanel/app.yaml')).toBe(await sim.readFile(accessToken, withTemplate, '.cloudpanel/app.yaml'));

    const { commit } = await simulatePush({ host, repository: withTemplate, branch: 'main', message: 'After the copy' });
    expect((await refusal(sim.deploymentCopies.readFile(copy, 'README.md', commit.sha))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.deploymentCopies.listContents(copy, '', commit.sha))).code).toBe('NOT_FOUND');

    expect(await sim.copyToDeploymentOrganisation(accessToken, withTemplate)).toEqual({ fullName: copy });
    expect(await sim.deploymentCopies.readFile(copy, 'README.md', commit.sha)).toEqual(expect.any(String));
    expect(await sim.deploymentCopies.listContents(copy, '', commit.sha)).toEqual(original);

    expect((await refusal(sim.copyToDeploymentOrganisation(accessToken, unreachable))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.deploymentCopies.readFile(withTemplate, 'README.md'))).code).toBe('NOT_FOUND');
  });

  it('keeps the deployment organisation out of the customer’s reach', async () => {
    const { accessToken } = await connect();
    await sim.copyToDeploymentOrganisation(accessToken, withTemplate);
    expect((await refusal(sim.getRepository(accessToken, copy))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.listContents(accessToken, copy, ''))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.readFile(accessToken, copy, 'README.md'))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.headCommit(accessToken, copy, 'main'))).code).toBe('NOT_FOUND');
    expect((await refusal(sim.createWebhook(accessToken, copy, { url: 'https://x.example/h', secret: 's' }))).code).toBe('NOT_FOUND');
    expect((await sim.listRepositories(accessToken)).map((repository) => repository.fullName)).not.toContain(copy);
  });

  it('names copies after the configured deployment organisation and refuses a name another repository holds', async () => {
    const { accessToken } = await connect();
    const db = await getDb();
    try {
      configure({ [deploySetting]: 'builds-org' });
      const { fullName } = await sim.copyToDeploymentOrganisation(accessToken, reachable[1]!);
      expect(fullName.startsWith('builds-org/')).toBe(true);
      await db.update(gitSimCopies).set({ source: 'someone/else' }).where(eq(gitSimCopies.copy, fullName));
      expect((await refusal(sim.copyToDeploymentOrganisation(accessToken, reachable[1]!))).code).toBe('UPSTREAM_ERROR');
    } finally {
      configure({ [deploySetting]: undefined });
    }
  });
});

describe('simulated hosts: credentials stay with their host', () => {
  it('refuses a token of one host on another', async () => {
    const host2Token = (await new OAuthGitHostSimulator('git-host-2').exchangeCode(await consent('git-host-2'), callbackOf('git-host-2'))).accessToken;
    expect((await refusal(new OAuthGitHostSimulator('git-host-3').listRepositories(host2Token))).code).toBe('GIT_CREDENTIAL_INVALID');
    expect((await refusal(new GitHost1Simulator().listUserInstallations(host2Token))).code).toBe('GIT_CREDENTIAL_INVALID');
    const host1Code = await consent('git-host-1');
    expect((await refusal(new OAuthGitHostSimulator('git-host-2').exchangeCode(host1Code, callbackOf('git-host-1')))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('git host 3 simulator: scopes and nested groups', () => {
  const sim = new OAuthGitHostSimulator('git-host-3');

  it('lists subdirectories first, as the host does', async () => {
    const tokens = await sim.exchangeCode(await consent('git-host-3'), callbackOf('git-host-3'));
    const root = await sim.listContents(tokens.accessToken, 'demo-group/backend/payments-api', '');
    expect(root.map((entry) => entry.name)).toEqual(['.cloudpanel', 'cmd', 'README.md', 'go.mod']);
  });

  it('lets a read-only grant read and copy but not register webhooks or read the account', async () => {
    const tokens = await sim.exchangeCode(await consent('git-host-3', { scope: 'read_repository' }), callbackOf('git-host-3'));
    expect(tokens.scopes).toEqual(['read_repository']);
    expect((await sim.getRepository(tokens.accessToken, 'demo-group/website')).private).toBe(false);
    expect((await refusal(sim.createWebhook(tokens.accessToken, 'demo-group/website', { url: 'https://x.example/h', secret: 's' }))).code).toBe(
      'GIT_CREDENTIAL_INVALID',
    );
    expect(await sim.copyToDeploymentOrganisation(tokens.accessToken, 'demo-group/website')).toEqual({ fullName: 'platform-deployments/demo-group-website' });
    expect((await refusal(sim.currentAccount(tokens.accessToken))).code).toBe('GIT_CREDENTIAL_INVALID');
    const noRead = await sim.exchangeCode(await consent('git-host-3', { scope: 'read_user' }), callbackOf('git-host-3'));
    expect((await refusal(sim.copyToDeploymentOrganisation(noRead.accessToken, 'demo-group/website'))).code).toBe('GIT_CREDENTIAL_INVALID');
  });
});

describe('the simulated hosts’ pages', () => {
  const form = (fields: Record<string, string>, headers: Record<string, string> = { origin: new URL(appUrl()).origin }) =>
    new Request(`${appUrl()}/dev/git-hosts/x`, { method: 'POST', headers, body: new URLSearchParams(fields) });

  it('checks every parameter of an authorize URL before showing consent', () => {
    const good = { client_id: clientId, redirect_uri: callbackOf('git-host-2'), response_type: 'code', state: 'abc' };
    expect(checkAuthorization('git-host-2', good)).toEqual({
      kind: 'ok',
      request: { host: 'git-host-2', clientId, redirectUri: callbackOf('git-host-2'), state: 'abc', scopes: ['account', 'repository', 'webhook'] },
    });
    expect(checkAuthorization('git-host-2', { ...good, client_id: 'other' }).kind).toBe('error-page');
    expect(checkAuthorization('git-host-2', { ...good, redirect_uri: 'https://attacker.example/v1/integrations/git-host-2/callback' }).kind).toBe('error-page');
    expect(checkAuthorization('git-host-2', { ...good, redirect_uri: callbackOf('git-host-3') }).kind).toBe('error-page');
    expect(checkAuthorization('git-host-2', { ...good, redirect_uri: 'not a url' }).kind).toBe('error-page');
    expect(checkAuthorization('git-host-2', { ...good, state: '' }).kind).toBe('error-page');
    expect(checkAuthorization('git-host-2', { ...good, state: ['a', 'b'] }).kind).toBe('error-page');
    const badType = checkAuthorization('git-host-2', { ...good, response_type: 'token' });
    expect(badType.kind).toBe('redirect');
    const location = new URL((badType as { location: string }).location);
    expect(location.searchParams.get('error')).toBe('unsupported_response_type');
    expect(location.searchParams.get('state')).toBe('abc');
    const badScope = checkAuthorization('git-host-3', { ...good, redirect_uri: callbackOf('git-host-3'), scope: 'api sudo' });
    expect(new URL((badScope as { location: string }).location).searchParams.get('error')).toBe('invalid_scope');
    expect(checkAuthorization('git-host-1', { client_id: clientId, state: 'abc' })).toMatchObject({
      kind: 'ok',
      request: { redirectUri: callbackOf('git-host-1') },
    });
  });

  it('returns to the callback with access_denied when the user cancels', async () => {
    const location = await submitAuthorizationForm('git-host-3', {
      decision: 'deny',
      client_id: clientId,
      redirect_uri: callbackOf('git-host-3'),
      response_type: 'code',
      scope: 'api read_repository',
      state: 'xyz',
    });
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(callbackOf('git-host-3'));
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('xyz');
    expect(url.searchParams.get('code')).toBeNull();
    expect((await refusal(submitAuthorizationForm('git-host-3', { decision: 'maybe', client_id: clientId, state: 'xyz' }))).code).toBe('VALIDATION_ERROR');
  });

  it('lists the accounts the user may install on and installs on the chosen one, then configures it', async () => {
    expect(await installPage({})).toMatchObject({ ok: false });
    const page = await installPage({ state: 'st-1' });
    if (!page.ok) throw new Error(page.message);
    expect(page.accounts.map(({ account }) => account.path).sort()).toEqual(['acme-labs', 'demo-user']);

    await freshInstallation('acme-labs').then((id) => new GitHost1Simulator().uninstall(id));
    const first = new URL(await submitInstallForm({ account: 'acme-labs', state: 'st-1' }));
    expect(`${first.origin}${first.pathname}`).toBe(`${appUrl()}/v1/integrations/git-host-1/setup`);
    expect(first.searchParams.get('setup_action')).toBe('install');
    expect(first.searchParams.get('state')).toBe('st-1');
    const installationId = first.searchParams.get('installation_id')!;
    expect(await new GitHost1Simulator().getInstallation(installationId)).toMatchObject({ accountLogin: 'acme-labs' });

    const second = new URL(await submitInstallForm({ account: 'acme-labs', state: 'st-2' }));
    expect(second.searchParams.get('installation_id')).toBe(installationId);
    expect(second.searchParams.get('setup_action')).toBe('update');

    expect((await refusal(submitInstallForm({ account: 'globex', state: 'st-1' }))).code).toBe('FORBIDDEN');
    expect((await refusal(submitInstallForm({ account: 'acme-labs', state: 'has space' }))).code).toBe('VALIDATION_ERROR');
  });

  it('answers form posts with a redirect, refuses other sites’ forms, and 404 for a host that is not simulated', async () => {
    const { POST } = await import('@/app/dev/git-hosts/[host]/installations/route');
    const context = (host: string) => ({ params: Promise.resolve({ host }) });
    const accepted = await POST(form({ account: 'demo-user', state: 'st-9' }), context('git-host-1'));
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toContain('/v1/integrations/git-host-1/setup?installation_id=');

    expect((await POST(form({ account: 'demo-user', state: 'st-9' }, {}), context('git-host-1'))).status).toBe(403);
    expect((await POST(form({ account: 'demo-user', state: 'st-9' }, { origin: 'https://attacker.example' }), context('git-host-1'))).status).toBe(403);
    expect((await POST(form({ account: 'globex', state: 'st-9' }), context('git-host-1'))).status).toBe(403);
    expect((await POST(form({ state: 'st-9' }), context('git-host-1'))).status).toBe(422);
    expect((await POST(form({ account: 'demo-user', state: 'st-9' }), context('git-host-9'))).status).toBe(404);
    expect((await POST(form({ account: 'demo-user', state: 'st-9' }), context('git-host-2'))).status).toBe(404);

    const consentRoute = await import('@/app/dev/git-hosts/[host]/authorizations/route');
    const allow = { decision: 'allow', client_id: clientId, redirect_uri: callbackOf('git-host-2'), response_type: 'code', state: 'st-3' };
    const granted = await consentRoute.POST(form(allow), context('git-host-2'));
    expect(granted.status).toBe(303);
    expect(new URL(granted.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
    try {
      configure({ GIT_HOST_2_PROVIDER: 'bitbucket', GIT_HOST_2_CLIENT_ID: 'id', GIT_HOST_2_CLIENT_SECRET: 'secret', GIT_HOST_2_DEPLOY_TOKEN: 'deploy' });
      expect((await consentRoute.POST(form(allow), context('git-host-2'))).status).toBe(404);
    } finally {
      configure({ GIT_HOST_2_PROVIDER: undefined, GIT_HOST_2_CLIENT_ID: undefined, GIT_HOST_2_CLIENT_SECRET: undefined, GIT_HOST_2_DEPLOY_TOKEN: undefined });
    }
  });

  it('shows the host’s accounts, repositories, webhooks and copies, and one repository’s page', async () => {
    const overview = await hostOverview('git-host-3');
    expect(overview.namespaces.map(({ namespace }) => namespace.path)).toEqual(['demo-user', 'demo-group', 'demo-group/backend', 'other-group']);
    expect(overview.namespaces.find(({ namespace }) => namespace.path === 'demo-group/backend')!.repositories.map((repo) => repo.fullName)).toEqual([
      'demo-group/backend/payments-api',
    ]);
    expect(overview.installations).toEqual([]);
    const host1 = await hostOverview('git-host-1');
    expect(host1.hooks).toEqual([]);
    expect(host1.installations.every((installation) => ['demo-user', 'acme-labs', 'globex'].includes(installation.accountLogin))).toBe(true);

    const page = await repositoryOverview('git-host-1', 'acme-labs/monorepo');
    expect(page.repository.fullName).toBe('acme-labs/monorepo');
    expect(page.branches).toMatchObject({ page: 1, nextPage: 2 });
    expect(page.root.map((entry) => entry.name)).toContain('apps');
    for (const name of ['nothing/here', ['a', 'b'], undefined, 'x'.repeat(301)]) {
      expect((await refusal(repositoryOverview('git-host-1', name))).code).toBe('NOT_FOUND');
    }
  });

  it('pushes from a repository’s page and says what was delivered', async () => {
    const location = await submitPushForm('git-host-2', { repository: 'demo-team/legacy-app', branch: 'main', message: 'From the page' });
    const url = new URL(location, appUrl());
    expect(url.pathname).toBe('/dev/git-hosts/git-host-2');
    expect(url.searchParams.get('repository')).toBe('demo-team/legacy-app');
    expect(url.searchParams.get('delivered')).toBe('0/0');
    const sha = url.searchParams.get('pushed')!;
    expect(actionNotice(Object.fromEntries(url.searchParams))).toBe(`Pushed ${sha.slice(0, 7)}: no webhook receives it.`);
    expect(actionNotice({ pushed: sha, delivered: '1/2' })).toBe(`Pushed ${sha.slice(0, 7)}: 1 of 2 webhook deliveries accepted.`);
    expect(actionNotice({ pushed: '<script>', delivered: '1/2' })).toBeNull();
    expect(actionNotice({})).toBeNull();
    expect((await refusal(submitPushForm('git-host-2', { repository: 'demo-team/legacy-app', branch: 'main', message: ' ' }))).code).toBe('VALIDATION_ERROR');
    expect((await refusal(submitPushForm('git-host-2', { repository: 'demo-team/legacy-app', branch: 'nope', message: 'x' }))).code).toBe('NOT_FOUND');
    expect((await refusal(submitUninstallForm('git-host-2', { installationId: '1' }))).code).toBe('NOT_FOUND');
    expect((await refusal(submitUninstallForm('git-host-1', { installationId: 'abc' }))).code).toBe('VALIDATION_ERROR');
    expect((await refusal(submitUninstallForm('git-host-1', { installationId: '1' }))).code).toBe('NOT_FOUND');
  });

  it('refuses a form without its fields through the shared handler', async () => {
    const answer = await handleHostForm(form({}), 'git-host-1', async () => {
      throw new AppError('VALIDATION_ERROR', 'missing');
    });
    expect(answer.status).toBe(422);
    expect(await answer.text()).toContain('missing');
  });
});

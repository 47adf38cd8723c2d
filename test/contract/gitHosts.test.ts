import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { hmacSignatureHeader } from '../../server/domains/integrations/gitHosts/signatures';
import { host1DefaultReturnProject, watchRepository } from '../../server/domains/integrations';
import { open } from '../../server/platform/encryption/envelope';
import { getLogger } from '../../server/platform/logger';
import { simulatedGitHost1WebhookSecret } from '../../server/providers/gitHosts';
import { MONOREPO_BRANCH_COUNT, STOREFRONT_INVALID_LINE } from '../../server/providers/gitHosts/seed';
import { simulatePush, simulateUninstall } from '../../server/providers/gitHosts/simulatedDeliveries';
import { installSimulatedApp } from '../../server/providers/gitHosts/simulator';
import { createApp, deploymentsOf } from '../appsFixtures';
import { addCard, CARDS } from '../billingHelpers';
import { queryRows } from '../db';
import { connectOAuthHost, consent, installHost1, locationOf, pathOf, startHost1Connect, startWebhookReceiver } from '../gitHostFixtures';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { submitInstallForm } from '../../server/providers/gitHosts/simulatorPages';

const base = (projectId: string, host: string) => `/v1/projects/${projectId}/integrations/${host}`;

let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  owner = await createUser('Git Owner');
  ({ projectId } = await createProject(owner, 'Git hosts'));
});

describe('git host 1: connecting through the installation round trip', () => {
  it('redirects to the host’s installation page with a signed state, and links the account the user installs on', async () => {
    const res = await api('GET', `${base(projectId, 'git-host-1')}/connect?redirect=/projects/${projectId}/integrations`, { cookie: owner.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toMatch(/\/dev\/git-hosts\/git-host-1\/install\?state=[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/);

    expect(await installHost1(owner, projectId, 'demo-user')).toBe(`/projects/${projectId}/integrations?git-host-1=connected`);
    const status = await api<{ connected: boolean; accounts: { accountLogin: string; accountType: string }[] }>(
      'GET',
      `${base(projectId, 'git-host-1')}/status`,
      {
        cookie: owner.cookie,
      },
    );
    expect(status.data).toMatchObject({ connected: true, accounts: [{ accountLogin: 'demo-user', accountType: 'User' }] });
  });

  it('files the connections the public returns make in the project’s audit log, as the user the state was issued to', async () => {
    const user = await createUser('Audited');
    const { projectId: project } = await createProject(user, 'Audited');
    await installHost1(user, project, 'demo-user');
    await connectOAuthHost(user, project, 'git-host-3');
    await connectOAuthHost(user, project, 'git-host-2', 'deny');
    const entries = await queryRows<{ action: string; actor_user_id: string; outcome: string; transport: string }>(
      sql`select action, actor_user_id, outcome, transport from audit_entries where project_id = ${project} and action like 'gitHost%' order by created_at`,
    );
    expect(entries).toEqual([
      { action: 'gitHost1.connect', actor_user_id: user.id, outcome: 'ok', transport: 'rest' },
      { action: 'gitHost3.connect', actor_user_id: user.id, outcome: 'ok', transport: 'rest' },
    ]);
  });

  it('defaults the return to /en/controlpanel and refuses foreign-origin redirects', async () => {
    for (const redirect of [undefined, 'https://evil.example/steal', '//evil.example', '/\\evil.example', 'javascript:alert(1)']) {
      const query = redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`;
      const location = locationOf(await api('GET', `${base(projectId, 'git-host-1')}/connect${query}`, { cookie: owner.cookie }));
      const state = new URL(location).searchParams.get('state')!;
      const back = await submitInstallForm({ account: 'demo-user', state });
      const final = locationOf(await api('GET', pathOf(back)));
      expect(final).toBe('/en/controlpanel?git-host-1=connected');
    }
  });

  it('knows which project a round trip that ended on the default return came from, for the panel page there to forward to', async () => {
    const user = await createUser('Default return');
    const { projectId: first } = await createProject(user, 'First');
    const { projectId: second } = await createProject(user, 'Second');
    await installHost1(user, first, 'demo-user');
    expect(await host1DefaultReturnProject(user.id)).toBeNull();

    const defaultReturn = async (project: string) => {
      const state = new URL(locationOf(await api('GET', `${base(project, 'git-host-1')}/connect`, { cookie: user.cookie }))).searchParams.get('state')!;
      let location = await submitInstallForm({ account: 'acme-labs', state });
      while (!pathOf(location).startsWith('/en/')) {
        location = pathOf(location).startsWith('/dev/') ? await consent('git-host-1', location) : locationOf(await api('GET', pathOf(location)));
      }
      return pathOf(location);
    };
    const begun = await defaultReturn(first);
    expect(begun).toBe('/en/controlpanel?git-host-1=connected');
    expect(await host1DefaultReturnProject(user.id)).toBe(first);
    await defaultReturn(second);
    expect(await host1DefaultReturnProject(user.id)).toBe(second);
    expect(await host1DefaultReturnProject((await createUser('Stranger')).id)).toBeNull();
    expect(await host1DefaultReturnProject(user.id, new Date(Date.now() + 11 * 60_000))).toBeNull();
  });

  it('accepts a state once, and refuses a forged, reused or expired one', async () => {
    const state = await startHost1Connect(owner, projectId);
    const back = pathOf(await submitInstallForm({ account: 'demo-user', state }));
    expect((await api('GET', back)).status).toBe(302);
    expectError(await api('GET', back), 400, 'LINK_EXPIRED');
    const forged = back.replace(/state=[^&]+/, `state=${state.slice(0, -2)}xx`);
    expectError(await api('GET', forged), 400, 'LINK_EXPIRED');

    const late = await startHost1Connect(owner, projectId);
    await queryRows(sql`update oauth_states set expires_at = now() - interval '1 second' where used_at is null`);
    expectError(await api('GET', pathOf(await submitInstallForm({ account: 'demo-user', state: late }))), 400, 'LINK_EXPIRED');
  });

  it('does not take the installation_id of the setup URL on its word: an older installation is proved through the host’s consent', async () => {
    const other = await createUser('Other');
    const { projectId: otherProject } = await createProject(other, 'Other project');
    const installedEarlier = await installSimulatedApp('acme-labs');
    await queryRows(sql`update git_sim_installations set created_at = now() - interval '1 hour' where id = ${installedEarlier.installation.installationId}`);
    const state = await startHost1Connect(other, otherProject);
    const setup = pathOf(await submitInstallForm({ account: 'acme-labs', state }));
    const proof = locationOf(await api('GET', setup));
    expect(pathOf(proof)).toMatch(/^\/dev\/git-hosts\/git-host-1\/authorize\?/);
    expect(await installHost1(other, otherProject, 'acme-labs')).toBe(`/projects/${otherProject}/integrations?git-host-1=connected`);
    const status = await api<{ accounts: { installationId: string }[] }>('GET', `${base(otherProject, 'git-host-1')}/status`, { cookie: other.cookie });
    expect(status.data.accounts.map((a) => a.installationId)).toContain(installedEarlier.installation.installationId);
  });

  it('refuses an installation id the setup URL was edited to name', async () => {
    const state = await startHost1Connect(owner, projectId);
    const setup = new URL(await submitInstallForm({ account: 'demo-user', state }));
    setup.searchParams.set('installation_id', '999999999');
    expect(locationOf(await api('GET', pathOf(setup.toString())))).toBe(`/projects/${projectId}/integrations?git-host-1=error`);
  });
});

describe('git host 1: repositories, contents, template, branches and packages', () => {
  let user: TestUser;
  let project: string;

  beforeAll(async () => {
    user = await createUser('Reader');
    ({ projectId: project } = await createProject(user, 'Reader project'));
    await installHost1(user, project, 'acme-labs');
    await installHost1(user, project, 'demo-user');
  });

  it('lists the linked accounts’ repositories, most recently updated first', async () => {
    const repos = await api<{ fullName: string; updatedAt: string }[]>('GET', `${base(project, 'git-host-1')}/repos`, { cookie: user.cookie });
    const names = repos.data.map((r) => r.fullName);
    expect(names).toEqual(expect.arrayContaining(['demo-user/hello-node', 'acme-labs/storefront', 'acme-labs/monorepo', 'acme-labs/docs-site']));
    expect(names).not.toContain('globex/website');
    const times = repos.data.map((r) => r.updatedAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('lists a directory with folders first, then files, alphabetically; nested paths and refs work', async () => {
    const root = await api<{ name: string; type: string; path: string }[]>('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents/`, {
      cookie: user.cookie,
    });
    const kinds = root.data.map((e) => e.type === 'dir');
    expect(kinds).toEqual([...kinds].sort((a, b) => Number(b) - Number(a)));
    const dirs = root.data.filter((e) => e.type === 'dir').map((e) => e.name);
    expect(dirs).toEqual([...dirs].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    expect(root.data.map((e) => e.name)).toEqual(expect.arrayContaining(['.cloudpanel', 'src', 'package.json']));
    const bare = await api('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents`, { cookie: user.cookie });
    expect(bare.data).toEqual(root.data);

    const nested = await api<{ path: string }[]>('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents/src?ref=main`, {
      cookie: user.cookie,
    });
    expect(nested.data.every((e) => e.path.startsWith('src/'))).toBe(true);

    expectError(await api('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents/package.json`, { cookie: user.cookie }), 404, 'NOT_FOUND');
    expectError(
      await api('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents/src?ref=no-such-ref`, { cookie: user.cookie }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api('GET', `${base(project, 'git-host-1')}/repos/demo-user/hello-node/contents/src/..%2F..`, { cookie: user.cookie }),
      422,
      'VALIDATION_ERROR',
    );
  });

  it('answers the app template: valid, invalid with its line and field, and not found', async () => {
    const valid = await api<{ found: boolean; valid: boolean; path: string; services: { name: string; instances: number; envVars: unknown[] }[] }>(
      'GET',
      `${base(project, 'git-host-1')}/repos/demo-user/hello-node/app-template`,
      { cookie: user.cookie },
    );
    expect(valid.data).toMatchObject({ found: true, valid: true, path: '.cloudpanel/app.yaml' });
    expect(valid.data.services.length).toBeGreaterThan(0);

    const invalid = await api<{ found: boolean; valid: boolean; path: string; error: string }>(
      'GET',
      `${base(project, 'git-host-1')}/repos/acme-labs/storefront/app-template`,
      {
        cookie: user.cookie,
      },
    );
    expect(invalid.data).toMatchObject({ found: true, valid: false, path: '.cloudpanel/app.yml' });
    expect(invalid.data.error).toBe(`line ${STOREFRONT_INVALID_LINE}: services[0].region is required`);

    const none = await api('GET', `${base(project, 'git-host-1')}/repos/acme-labs/docs-site/app-template`, { cookie: user.cookie });
    expect(none.data).toEqual({ found: false });
  });

  it('pages branches 100 at a time', async () => {
    const first = await api<{ branches: unknown[]; page: number; perPage: number; nextPage: number | null }>(
      'GET',
      `${base(project, 'git-host-1')}/repos/acme-labs/monorepo/branches`,
      {
        cookie: user.cookie,
      },
    );
    expect(first.data).toMatchObject({ page: 1, perPage: 100, nextPage: 2 });
    expect(first.data.branches).toHaveLength(100);
    const second = await api<{ branches: unknown[]; nextPage: number | null }>(
      'GET',
      `${base(project, 'git-host-1')}/repos/acme-labs/monorepo/branches?page=2`,
      { cookie: user.cookie },
    );
    expect(second.data.branches).toHaveLength(MONOREPO_BRANCH_COUNT - 100);
    expect(second.data.nextPage).toBeNull();
    expectError(await api('GET', `${base(project, 'git-host-1')}/repos/acme-labs/monorepo/branches?page=0`, { cookie: user.cookie }), 422, 'VALIDATION_ERROR');
  });

  it('answers 404 for an account no linked installation reaches', async () => {
    expectError(await api('GET', `${base(project, 'git-host-1')}/repos/globex/website/contents/`, { cookie: user.cookie }), 404, 'NOT_FOUND');
  });

  it('lists the accounts’ container images and an image’s tags', async () => {
    const packages = await api<{ owner: string; name: string; image: string }[]>('GET', `${base(project, 'git-host-1')}/packages`, { cookie: user.cookie });
    expect(packages.data.length).toBeGreaterThan(0);
    const first = packages.data[0]!;
    const tags = await api<{ tag: string }[]>('GET', `${base(project, 'git-host-1')}/package-tags?owner=${first.owner}&package=${first.name}`, {
      cookie: user.cookie,
    });
    expect(tags.data.length).toBeGreaterThan(0);
    expectError(await api('GET', `${base(project, 'git-host-1')}/package-tags?owner=globex&package=x`, { cookie: user.cookie }), 404, 'NOT_FOUND');
  });

  it('answers 400 GIT_HOST_NOT_CONNECTED for a project without a link', async () => {
    const { projectId: bare } = await createProject(user, 'Unlinked');
    expectError(await api('GET', `${base(bare, 'git-host-1')}/repos`, { cookie: user.cookie }), 400, 'GIT_HOST_NOT_CONNECTED');
    expect((await api('GET', `${base(bare, 'git-host-1')}/status`, { cookie: user.cookie })).data).toEqual({ connected: false, accounts: [] });
  });
});

describe('git host 1: linking, disconnecting and uninstallation', () => {
  it('offers the user’s installations of other projects, links one after checking it, and refuses anything else', async () => {
    const user = await createUser('Linker');
    const { projectId: first } = await createProject(user, 'First');
    const { projectId: second } = await createProject(user, 'Second');
    await installHost1(user, first, 'demo-user');
    const linkable = await api<{ installationId: string; accountLogin: string }[]>('GET', `${base(second, 'git-host-1')}/linkable-installations`, {
      cookie: user.cookie,
    });
    expect(linkable.data.map((i) => i.accountLogin)).toContain('demo-user');
    const { installationId } = linkable.data.find((i) => i.accountLogin === 'demo-user')!;

    const stranger = await createUser('Stranger');
    const { projectId: theirs } = await createProject(stranger, 'Theirs');
    expect((await api<unknown[]>('GET', `${base(theirs, 'git-host-1')}/linkable-installations`, { cookie: stranger.cookie })).data).toEqual([]);
    expectError(await api('POST', `${base(theirs, 'git-host-1')}/link`, { cookie: stranger.cookie, body: { installationId } }), 404, 'NOT_FOUND');

    const linked = await api<{ accounts: { installationId: string }[] }>('POST', `${base(second, 'git-host-1')}/link`, {
      cookie: user.cookie,
      body: { installationId },
    });
    expect(linked.data.accounts.map((a) => a.installationId)).toContain(installationId);
    expect((await api<unknown[]>('GET', `${base(second, 'git-host-1')}/linkable-installations`, { cookie: user.cookie })).data).not.toContainEqual(
      expect.objectContaining({ installationId }),
    );
  });

  it('rejects and forgets an installation removed on the host since', async () => {
    const user = await createUser('Late linker');
    const { projectId: first } = await createProject(user, 'First');
    const { projectId: second } = await createProject(user, 'Second');
    await installHost1(user, first, 'acme-labs');
    const { accounts } = (await api<{ accounts: { installationId: string }[] }>('GET', `${base(first, 'git-host-1')}/status`, { cookie: user.cookie })).data;
    const installationId = accounts[0]!.installationId;
    await simulateUninstall(installationId, { baseUrl: 'http://127.0.0.1:9' });
    expectError(await api('POST', `${base(second, 'git-host-1')}/link`, { cookie: user.cookie, body: { installationId } }), 404, 'NOT_FOUND');
    expect((await api('GET', `${base(first, 'git-host-1')}/status`, { cookie: user.cookie })).data).toEqual({ connected: false, accounts: [] });
  });

  it('disconnect unlinks, and uninstalls only what no other project links', async () => {
    const user = await createUser('Disconnecter');
    const { projectId: a } = await createProject(user, 'A');
    const { projectId: b } = await createProject(user, 'B');
    await installHost1(user, a, 'demo-user');
    const installationId = (await api<{ accounts: { installationId: string }[] }>('GET', `${base(a, 'git-host-1')}/status`, { cookie: user.cookie })).data
      .accounts[0]!.installationId;
    await api('POST', `${base(b, 'git-host-1')}/link`, { cookie: user.cookie, body: { installationId } });
    // The account's one installation serves every test; here only these two projects link it.
    await queryRows(sql`delete from git_host1_links where installation_id = ${installationId} and project_id not in (${a}, ${b})`);

    expect((await api('DELETE', `${base(a, 'git-host-1')}/disconnect`, { cookie: user.cookie })).data).toEqual({ connected: false, accounts: [] });
    const live = await queryRows<{ uninstalled_at: Date | null }>(sql`select uninstalled_at from git_sim_installations where id = ${installationId}`);
    expect(live[0]!.uninstalled_at).toBeNull();

    await api('DELETE', `${base(b, 'git-host-1')}/disconnect`, { cookie: user.cookie });
    const gone = await queryRows<{ uninstalled_at: Date | null }>(sql`select uninstalled_at from git_sim_installations where id = ${installationId}`);
    expect(gone[0]!.uninstalled_at).not.toBeNull();
  });

  it('an uninstallation event from the host detaches the installation from every project', async () => {
    const user = await createUser('Uninstalled');
    const { projectId: a } = await createProject(user, 'A');
    const { projectId: b } = await createProject(user, 'B');
    await installHost1(user, a, 'acme-labs');
    const installationId = (await api<{ accounts: { installationId: string }[] }>('GET', `${base(a, 'git-host-1')}/status`, { cookie: user.cookie })).data
      .accounts[0]!.installationId;
    await api('POST', `${base(b, 'git-host-1')}/link`, { cookie: user.cookie, body: { installationId } });
    const receiver = await startWebhookReceiver();
    try {
      const { deliveries } = await simulateUninstall(installationId, { baseUrl: receiver.baseUrl });
      expect(deliveries.map((d) => d.status)).toEqual([200]);
    } finally {
      await receiver.close();
    }
    for (const project of [a, b])
      expect((await api('GET', `${base(project, 'git-host-1')}/status`, { cookie: user.cookie })).data).toEqual({ connected: false, accounts: [] });
  });
});

describe('git host 1: webhook signatures and replays', () => {
  const hook = '/v1/integrations/git-host-1/webhook';
  const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  const send = (body: string, headers: Record<string, string>) => api('POST', hook, { rawBody: body, headers });
  const signed = (body: string, deliveryId = randomUUID(), secret = simulatedGitHost1WebhookSecret()) => ({
    'x-github-event': 'ping',
    'x-github-delivery': deliveryId,
    'x-hub-signature-256': hmacSignatureHeader(body, secret),
  });

  it('accepts a valid signature (200 for an event that deploys nothing)', async () => {
    const res = await send(ping, signed(ping));
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ queued: 0 });
  });

  it('refuses a body one byte off, a wrong secret and a missing header with 401 SIGNATURE_INVALID', async () => {
    const headers = signed(ping);
    expectError(await send(`${ping.slice(0, -1)} }`, headers), 401, 'SIGNATURE_INVALID');
    expectError(await send(ping, signed(ping, randomUUID(), 'not the secret')), 401, 'SIGNATURE_INVALID');
    const { 'x-hub-signature-256': _dropped, ...unsigned } = headers;
    expectError(await send(ping, unsigned), 401, 'SIGNATURE_INVALID');
  });

  it('processes a delivery id once: the replay is answered, not acted on', async () => {
    const deliveryId = randomUUID();
    expect((await send(ping, signed(ping, deliveryId))).data).toEqual({ queued: 0 });
    const replay = await send(ping, signed(ping, deliveryId));
    expect(replay.status).toBe(200);
    expect(replay.data).toEqual({ queued: 0, duplicate: true });
    const rows = await queryRows(sql`select 1 from git_webhook_deliveries where host = 'git-host-1' and delivery_id = ${deliveryId}`);
    expect(rows).toHaveLength(1);
  });
});

describe('git hosts 2 and 3: OAuth connections', () => {
  for (const host of ['git-host-2', 'git-host-3'] as const) {
    it(`${host}: connects through the consent page, stores the tokens sealed, and never answers them`, async () => {
      const user = await createUser(`${host} user`);
      const { projectId: project } = await createProject(user, host);
      expect(await connectOAuthHost(user, project, host)).toBe(`/projects/${project}/integrations?${host}=connected`);
      const status = await api<{ connected: boolean; accountLogin: string; scopes: string[] }>('GET', `${base(project, host)}/status`, { cookie: user.cookie });
      expect(status.data).toMatchObject({ connected: true, accountLogin: 'demo-user' });
      const [row] = await queryRows<{ sealed_access_token: string; sealed_refresh_token: string }>(
        sql`select sealed_access_token, sealed_refresh_token from git_oauth_connections where project_id = ${project} and host = ${host}`,
      );
      expect(row!.sealed_access_token).toMatch(/^v1\./);
      expect(JSON.stringify(status.body)).not.toContain(row!.sealed_access_token);

      const repos = await api<{ fullName: string }[]>('GET', `${base(project, host)}/repos`, { cookie: user.cookie });
      expect(repos.data.length).toBeGreaterThan(0);
    });

    it(`${host}: a refusal on the consent page returns with ${host}=denied and connects nothing`, async () => {
      const user = await createUser(`${host} denier`);
      const { projectId: project } = await createProject(user, `${host} denied`);
      expect(await connectOAuthHost(user, project, host, 'deny')).toBe(`/projects/${project}/integrations?${host}=denied`);
      expect((await api<{ connected: boolean }>('GET', `${base(project, host)}/status`, { cookie: user.cookie })).data.connected).toBe(false);
      expectError(await api('GET', `${base(project, host)}/repos`, { cookie: user.cookie }), 400, 'GIT_HOST_NOT_CONNECTED');
    });
  }

  it('git-host-3: addresses a project by its URL-encoded full path with nested groups, decoded once', async () => {
    const user = await createUser('Nested');
    const { projectId: project } = await createProject(user, 'Nested groups');
    await connectOAuthHost(user, project, 'git-host-3');
    const encoded = encodeURIComponent('demo-group/backend/payments-api');
    const template = await api<{ found: boolean; valid: boolean }>('GET', `${base(project, 'git-host-3')}/repos/${encoded}/app-template`, {
      cookie: user.cookie,
    });
    expect(template.data).toMatchObject({ found: true, valid: true });
    const root = await api<{ name: string }[]>('GET', `${base(project, 'git-host-3')}/repos/${encoded}/contents/`, { cookie: user.cookie });
    expect(root.data.length).toBeGreaterThan(0);
    const doubly = encodeURIComponent(encoded);
    expectError(await api('GET', `${base(project, 'git-host-3')}/repos/${doubly}/contents/`, { cookie: user.cookie }), 404, 'NOT_FOUND');
    const invalid = await api<{ found: boolean; valid: boolean; error: string }>(
      'GET',
      `${base(project, 'git-host-3')}/repos/${encodeURIComponent('demo-group/website')}/app-template`,
      {
        cookie: user.cookie,
      },
    );
    expect(invalid.data).toMatchObject({ found: true, valid: false });
    expect(invalid.data.error).toMatch(/^line \d+: /);
  });

  it('git-host-2: addresses a repository by workspace and name', async () => {
    const user = await createUser('Workspace');
    const { projectId: project } = await createProject(user, 'Workspace');
    await connectOAuthHost(user, project, 'git-host-2');
    const template = await api<{ found: boolean; valid: boolean }>('GET', `${base(project, 'git-host-2')}/repos/demo-team/api-service/app-template`, {
      cookie: user.cookie,
    });
    expect(template.data).toMatchObject({ found: true, valid: true });
    const branches = await api<{ branches: { name: string }[]; nextPage: number | null }>(
      'GET',
      `${base(project, 'git-host-2')}/repos/demo-team/api-service/branches`,
      {
        cookie: user.cookie,
      },
    );
    expect(branches.data.branches.map((b) => b.name)).toContain('main');
    expectError(await api('GET', `${base(project, 'git-host-2')}/repos/other-team/internal-tools/contents/`, { cookie: user.cookie }), 404, 'NOT_FOUND');
  });

  it('the callback refuses a forged or reused state', async () => {
    const user = await createUser('Replayer');
    const { projectId: project } = await createProject(user, 'Replay');
    const authorize = locationOf(await api('GET', `${base(project, 'git-host-2')}/connect`, { cookie: user.cookie }));
    const back = pathOf(await consent('git-host-2', authorize));
    expect((await api('GET', back)).status).toBe(302);
    expectError(await api('GET', back), 400, 'LINK_EXPIRED');
    expectError(await api('GET', back.replace(/state=[^&]+/, 'state=forged.state')), 400, 'LINK_EXPIRED');
  });
});

describe('git hosts 2 and 3: repository webhooks', () => {
  const cases = [
    {
      host: 'git-host-2' as const,
      repository: 'demo-team/api-service',
      body: (branch: string) =>
        JSON.stringify({
          repository: { full_name: 'demo-team/api-service' },
          push: { changes: [{ new: { type: 'branch', name: branch, target: { hash: 'a'.repeat(40), message: 'Ship it' } } }] },
        }),
      headers: (body: string, secret: string, deliveryId: string) => ({
        'x-event-key': 'repo:push',
        'x-request-uuid': deliveryId,
        'x-hub-signature': hmacSignatureHeader(body, secret),
      }),
      authHeader: 'x-hub-signature',
    },
    {
      host: 'git-host-3' as const,
      repository: 'demo-group/backend/payments-api',
      body: (branch: string) =>
        JSON.stringify({
          object_kind: 'push',
          ref: `refs/heads/${branch}`,
          checkout_sha: 'b'.repeat(40),
          project: { path_with_namespace: 'demo-group/backend/payments-api' },
          commits: [{ id: 'b'.repeat(40), message: 'Ship it' }],
        }),
      headers: (_body: string, secret: string, deliveryId: string) => ({
        'x-gitlab-event': 'Push Hook',
        'x-gitlab-event-uuid': deliveryId,
        'x-gitlab-token': secret,
      }),
      authHeader: 'x-gitlab-token',
    },
  ];

  for (const c of cases) {
    it(`${c.host}: checks the repository-scoped secret, processes a delivery once, and disconnect removes the hooks before the grant`, async () => {
      const user = await createUser(`${c.host} hooks`);
      const { projectId: project } = await createProject(user, `${c.host} hooks`);
      await connectOAuthHost(user, project, c.host);
      await watchRepository(project, c.host, c.repository);
      await watchRepository(project, c.host, c.repository);
      const [hook] = await queryRows<{ id: string; sealed_secret: string; upstream_hook_id: string }>(
        sql`select id, sealed_secret, upstream_hook_id from git_repository_webhooks where project_id = ${project} and host = ${c.host}`,
      );
      const upstream = await queryRows<{ url: string }>(sql`select url from git_sim_hooks where id = ${hook!.upstream_hook_id}`);
      expect(upstream).toHaveLength(1);
      expect(upstream[0]!.url).toBe(`http://localhost:3000/v1/integrations/${c.host}/webhook?hook=${hook!.id}`);
      const secret = open(hook!.sealed_secret, hook!.id);
      const url = `/v1/integrations/${c.host}/webhook?hook=${hook!.id}`;
      const send = (body: string, headers: Record<string, string>, path = url) => api('POST', path, { rawBody: body, headers });

      const body = c.body('feature/no-app');
      const deliveryId = randomUUID();
      const accepted = await send(body, c.headers(body, secret, deliveryId));
      expect(accepted.status).toBe(200);
      expect(accepted.data).toEqual({ queued: 0 });
      expect((await send(body, c.headers(body, secret, deliveryId))).data).toEqual({ queued: 0, duplicate: true });

      const fresh = randomUUID();
      if (c.host === 'git-host-2') expectError(await send(`${body} `, c.headers(body, secret, fresh)), 401, 'SIGNATURE_INVALID');
      expectError(await send(body, c.headers(body, `${secret}x`, fresh)), 401, 'SIGNATURE_INVALID');
      const { [c.authHeader]: _dropped, ...unsigned } = c.headers(body, secret, fresh) as Record<string, string>;
      expectError(await send(body, unsigned), 401, 'SIGNATURE_INVALID');
      expectError(await send(body, c.headers(body, secret, fresh), `/v1/integrations/${c.host}/webhook?hook=ghk_unknown`), 401, 'SIGNATURE_INVALID');
      expectError(await send(body, c.headers(body, secret, fresh), `/v1/integrations/${c.host}/webhook`), 401, 'SIGNATURE_INVALID');
      const otherHost = c.host === 'git-host-2' ? 'git-host-3' : 'git-host-2';
      expectError(await send(body, c.headers(body, secret, fresh), `/v1/integrations/${otherHost}/webhook?hook=${hook!.id}`), 401, 'SIGNATURE_INVALID');

      expect((await api('DELETE', `${base(project, c.host)}/disconnect`, { cookie: user.cookie })).data).toMatchObject({ connected: false });
      expect(await queryRows(sql`select 1 from git_repository_webhooks where project_id = ${project}`)).toHaveLength(0);
      expect(await queryRows(sql`select 1 from git_sim_hooks where id = ${hook!.upstream_hook_id}`)).toHaveLength(0);
      expect(await queryRows(sql`select 1 from git_oauth_connections where project_id = ${project}`)).toHaveLength(0);
      expectError(await send(body, c.headers(body, secret, randomUUID())), 401, 'SIGNATURE_INVALID');
    });
  }
});

describe('push events deploy apps', () => {
  const cases = [
    { host: 'git-host-1' as const, repository: 'demo-user/hello-node', otherBranch: 'experiment' },
    { host: 'git-host-2' as const, repository: 'demo-team/api-service', otherBranch: 'develop' },
    { host: 'git-host-3' as const, repository: 'demo-group/backend/payments-api', otherBranch: 'release/1.x' },
  ];
  for (const c of cases) {
    it(`${c.host}: a signed push to the deployed branch queues a deployment (202); another branch, auto-deploy off and a replay queue none`, async () => {
      const user = await createUser(`${c.host} pusher`);
      const { projectId: project } = await createProject(user, `${c.host} push`);
      await addCard(user, project, CARDS.ok);
      if (c.host === 'git-host-1') await installHost1(user, project, 'demo-user');
      else await connectOAuthHost(user, project, c.host);
      const app = await createApp(user, project, { name: 'pushed', gitHost: c.host, repository: c.repository, branch: 'main', fromTemplate: true });
      const receiver = await startWebhookReceiver();
      try {
        const pushed = await simulatePush({ host: c.host, repository: c.repository, branch: 'main', message: 'Deploy me' }, { baseUrl: receiver.baseUrl });
        expect(pushed.deliveries.map((d) => d.status)).toContain(202);
        const deployments = await deploymentsOf(user, project, app.id);
        expect(deployments[0]).toMatchObject({ trigger: 'PUSH', status: 'QUEUED', commitSha: pushed.commit.sha, commitMessage: 'Deploy me', branch: 'main' });

        const other = await simulatePush(
          { host: c.host, repository: c.repository, branch: c.otherBranch, message: 'Not deployed' },
          { baseUrl: receiver.baseUrl },
        );
        expect(other.deliveries.every((d) => d.status === 200)).toBe(true);

        await api('PATCH', `/v1/projects/${project}/apps/${app.id}`, { cookie: user.cookie, body: { autoDeploy: false } });
        const off = await simulatePush(
          { host: c.host, repository: c.repository, branch: 'main', message: 'Auto-deploy is off' },
          { baseUrl: receiver.baseUrl },
        );
        expect(off.deliveries.every((d) => d.status === 200)).toBe(true);
        expect(await deploymentsOf(user, project, app.id)).toHaveLength(deployments.length);
      } finally {
        await receiver.close();
      }
    });
  }
});

describe('tokens and secrets', () => {
  it('never appear in answers, the audit log or the logs: grants, refreshed tokens, hook secrets, the hub token', async () => {
    const logged: string[] = [];
    const logger = getLogger();
    for (const level of ['info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(logger, level).mockImplementation(((...args: unknown[]) => void logged.push(JSON.stringify(args))) as never);
    }
    const answers: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await api(method, path, { cookie: user.cookie, ...(body === undefined ? {} : { body }) });
      answers.push(JSON.stringify(res.body), JSON.stringify(Object.fromEntries(res.headers)));
      return res;
    };
    const user = await createUser('Secretive');
    const { projectId: project } = await createProject(user, 'Secretive');
    const secrets: string[] = [];
    const tokensOf = async () => {
      const [row] = await queryRows<{ id: string; sealed_access_token: string; sealed_refresh_token: string }>(
        sql`select id, sealed_access_token, sealed_refresh_token from git_oauth_connections where project_id = ${project} and host = 'git-host-2'`,
      );
      secrets.push(open(row!.sealed_access_token, row!.id), open(row!.sealed_refresh_token, row!.id));
    };
    try {
      await connectOAuthHost(user, project, 'git-host-2');
      await tokensOf();
      await queryRows(sql`update git_oauth_connections set access_token_expires_at = now() - interval '1 minute' where project_id = ${project}`);
      await call('GET', `${base(project, 'git-host-2')}/repos`);
      await tokensOf();
      expect(new Set(secrets).size, 'the refresh rotated both tokens').toBe(4);
      await watchRepository(project, 'git-host-2', 'demo-team/api-service');
      const [hook] = await queryRows<{ id: string; sealed_secret: string }>(
        sql`select id, sealed_secret from git_repository_webhooks where project_id = ${project}`,
      );
      secrets.push(open(hook!.sealed_secret, hook!.id));
      const body = JSON.stringify({ repository: { full_name: 'demo-team/api-service' }, push: { changes: [] } });
      await api('POST', `/v1/integrations/git-host-2/webhook?hook=${hook!.id}`, {
        rawBody: body,
        headers: { 'x-event-key': 'repo:push', 'x-request-uuid': randomUUID(), 'x-hub-signature': hmacSignatureHeader(body, `${secrets.at(-1)}x`) },
      });
      await call('POST', `${base(project, 'image-hub')}/connect`, { username: 'demo', accessToken: 'dckr_pat_demo_simulator' });
      secrets.push('dckr_pat_demo_simulator');
      await call('GET', `${base(project, 'git-host-2')}/status`);
      await call('GET', `${base(project, 'image-hub')}/status`);
      await call('DELETE', `${base(project, 'git-host-2')}/disconnect`);
    } finally {
      vi.restoreAllMocks();
    }
    const audit = JSON.stringify(await queryRows(sql`select * from audit_entries where project_id = ${project}`));
    const events = JSON.stringify(await queryRows(sql`select payload from events where project_id = ${project}`));
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(10);
      for (const [where, text] of [
        ['logs', logged.join('\n')],
        ['answers', answers.join('\n')],
        ['audit', audit],
        ['events', events],
      ] as const) {
        expect(text.includes(secret), `${where} hold a secret`).toBe(false);
      }
    }
  });
});

describe('who may connect and read', () => {
  it('a viewer reads but may not connect or disconnect; a key needs integrations scopes', async () => {
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expect((await api('GET', `${base(projectId, 'git-host-1')}/status`, { cookie: viewer.cookie })).status).toBe(200);
    expectError(await api('GET', `${base(projectId, 'git-host-1')}/connect`, { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', `${base(projectId, 'git-host-2')}/disconnect`, { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    const { key: readOnly } = await createApiKey(owner, projectId, ['integrations:read']);
    expect((await api('GET', `${base(projectId, 'git-host-1')}/status`, { key: readOnly })).status).toBe(200);
    expectError(await api('GET', `${base(projectId, 'git-host-1')}/connect`, { key: readOnly }), 403, 'FORBIDDEN');
    const { key: noScope } = await createApiKey(owner, projectId, ['servers:read']);
    expectError(await api('GET', `${base(projectId, 'git-host-1')}/status`, { key: noScope }), 403, 'FORBIDDEN');
  });
});

describe('image hub', () => {
  it('connects with a checked username and token, never answers the token, lists repositories and tags, and disconnects', async () => {
    const user = await createUser('Hub');
    const { projectId: project } = await createProject(user, 'Hub');
    const hub = base(project, 'image-hub');
    expectError(await api('GET', `${hub}/repositories`, { cookie: user.cookie }), 400, 'IMAGE_HUB_NOT_CONNECTED');
    const refused = await api('POST', `${hub}/connect`, { cookie: user.cookie, body: { username: 'demo', accessToken: 'dckr_pat_wrong' } });
    expectError(refused, 422, 'VALIDATION_ERROR');
    expect(JSON.stringify(refused.body)).not.toContain('dckr_pat_wrong');

    const connected = await api('POST', `${hub}/connect`, { cookie: user.cookie, body: { username: 'demo', accessToken: 'dckr_pat_demo_simulator' } });
    expect(connected.data).toMatchObject({ connected: true, username: 'demo' });
    expect(JSON.stringify(connected.body)).not.toContain('dckr_pat_demo_simulator');
    const [row] = await queryRows<{ sealed_access_token: string }>(sql`select sealed_access_token from image_hub_connections where project_id = ${project}`);
    expect(row!.sealed_access_token).not.toContain('dckr_pat_demo_simulator');

    const repos = await api<{ namespace: string; name: string }[]>('GET', `${hub}/repositories`, { cookie: user.cookie });
    expect(repos.data).toContainEqual(expect.objectContaining({ namespace: 'demo', name: 'hello-node' }));
    const tags = await api<{ name: string }[]>('GET', `${hub}/tags?namespace=demo&repository=hello-node`, { cookie: user.cookie });
    expect(tags.data.map((t) => t.name)).toContain('latest');
    expectError(await api('GET', `${hub}/tags?namespace=globex&repository=anything`, { cookie: user.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', `${hub}/tags?namespace=Bad%20Name&repository=x`, { cookie: user.cookie }), 422, 'VALIDATION_ERROR');

    expect((await api('DELETE', `${hub}/disconnect`, { cookie: user.cookie })).data).toEqual({ connected: false, username: null, connectedAt: null });
    expectError(await api('GET', `${hub}/repositories`, { cookie: user.cookie }), 400, 'IMAGE_HUB_NOT_CONNECTED');
  });
});

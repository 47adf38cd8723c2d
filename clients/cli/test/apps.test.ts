import type { Schema } from '@cloudpanel/sdk';
import { describe, expect, it } from 'vitest';
import { newWorld, type World } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor } from './cli.ts';

/** A form of the simulated git host's own pages, sent as the browser sends it: answers where the host redirects. */
async function submitHostForm(world: World, form: string, fields: Record<string, string>): Promise<string> {
  const res = await fetch(`${world.baseUrl}/dev/git-hosts/git-host-1/${form}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: world.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const location = res.headers.get('location');
  if (res.status !== 303 || !location) throw new Error(`${form}: HTTP ${res.status} ${await res.text()}`);
  return location;
}

/**
 * Connects the project to git host 1 over HTTP, as a person's browser does: the connect redirect,
 * the simulated host's install page (installing on demo-user), then the redirects back to the
 * platform; when demo-user already had the app from another project, the host's consent page comes
 * in between, and is allowed.
 */
async function connectGitHost1(world: World): Promise<void> {
  const start = await world.client.get('/projects/{projectId}/integrations/git-host-1/connect', {
    params: { path: { projectId: world.projectId }, query: { redirect: '/integrations' } },
  });
  const state = new URL(start.location).searchParams.get('state')!;
  let location = await submitHostForm(world, 'installations', { account: 'demo-user', state });
  for (let hop = 0; hop < 5 && !location.startsWith('/integrations'); hop += 1) {
    const url = new URL(location, world.baseUrl);
    if (url.pathname === '/dev/git-hosts/git-host-1/authorize') {
      location = await submitHostForm(world, 'authorizations', { ...Object.fromEntries(url.searchParams), decision: 'allow' });
    } else {
      const res = await fetch(url, { redirect: 'manual' });
      location = res.headers.get('location') ?? `HTTP ${res.status}`;
    }
  }
  expect(location).toBe('/integrations?git-host-1=connected');
}

type App = Schema<'App'>;
type Deployment = Schema<'Deployment'>;

describe('cloud apps', () => {
  it('prices an app, needs a git host, builds one from its template and one by hand, deploys, follows the log, updates and deletes', async () => {
    const world = await newWorld('apps');
    const env = envFor(world);
    const appsPath = { params: { path: { projectId: world.projectId } } };
    const appNamed = async (name: string) => (await world.client.get('/projects/{projectId}/apps', appsPath)).find((a) => a.name === name)!;

    const sized = await cloud(['apps', 'preview', '--size', 'apps-s-1vcpu-1gb', '--instances', '2', '--json'], { env });
    expect(sized.code, sized.stderr).toBe(0);
    expect(sized.json()).toMatchObject({ monthly: 2400 });
    const bothForms = await cloud(['apps', 'preview', '--size', 'apps-s-1vcpu-1gb', '--repository', 'demo-user/hello-node', '--branch', 'main'], { env });
    expect(bothForms.code).toBe(EXIT.usage);
    const unconnected = await cloud(['apps', 'preview', '--repository', 'demo-user/hello-node', '--branch', 'main'], { env });
    expect(unconnected.code).toBe(EXIT.rejected);
    expect(unconnected.stderr).toMatch(/^Error: GIT_HOST_NOT_CONNECTED: /);
    const none = await cloud(['apps', 'list'], { env });
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'Nothing here yet.\n' });

    await connectGitHost1(world);
    const templated = await cloud(['apps', 'preview', '--repository', 'demo-user/hello-node', '--branch', 'main'], { env });
    expect(templated.stdout).toMatch(/^Then monthly:\s+\$12\.00$/m);

    // From the repository's template, waiting for its first deployment.
    const hello = await cloud(['apps', 'create', 'hello', '--repository', 'demo-user/hello-node', '--branch', 'main', '--from-template', '--wait'], { env });
    expect(hello.code, hello.stderr).toBe(0);
    expect(hello.stderr).toMatch(/^Charged \$\d+\.\d\d today, then \$12\.00 a month$/m);
    expect(hello.stderr).toMatch(/^Deployment dpl_\w+ of hello is LIVE$/m);
    expect(hello.stdout).toMatch(/^Template:\s+\.cloudpanel\/app\.yaml$/m);
    expect(hello.stdout).toMatch(/^Services:\s+web \(WEB, apps-s-1vcpu-1gb × 1, port 443\)$/m);
    const created = await appNamed('hello');
    expect(hello.stdout).toMatch(new RegExp(`^Live deployment:\\s+${created.liveDeploymentId}$`, 'm'));
    expect(created).toMatchObject({ repository: 'demo-user/hello-node', branch: 'main', region: 'nyc', templatePath: '.cloudpanel/app.yaml' });

    // By hand, with a secret read from stdin; hello-node has no Dockerfile, so the DOCKERFILE build fails and --wait says why.
    const broken = await cloud(
      [
        'apps',
        'create',
        'broken',
        '--repository',
        'demo-user/hello-node',
        '-b',
        'main',
        '-s',
        'apps-s-1vcpu-0.5gb',
        '-r',
        'fra',
        '--build-strategy',
        'dockerfile',
        '--internal-port',
        '3000',
        '-e',
        'NODE_ENV=production',
        '--secret-env-file',
        '-',
        '--no-auto-deploy',
        '--wait',
      ],
      { env, stdin: '# the session key\nSESSION_SECRET="s3cret-value"\n' },
    );
    expect(broken.code).toBe(EXIT.waitFailed);
    expect(broken.stderr).toMatch(/^Error: WAIT_FAILED: Deployment dpl_\w+ of broken FAILED: \S.*$/m);
    expect(broken.stdout + broken.stderr).not.toContain('s3cret-value');
    const brokenApp = await appNamed('broken');
    expect(brokenApp).toMatchObject({ autoDeploy: false, region: 'fra', templatePath: null });
    expect(brokenApp.services).toEqual([
      expect.objectContaining({
        name: 'web',
        buildStrategy: 'DOCKERFILE',
        internalPort: 3000,
        instanceSize: 'apps-s-1vcpu-0.5gb',
        envVars: [
          { key: 'NODE_ENV', value: 'production', secret: false },
          { key: 'SESSION_SECRET', value: null, secret: true },
        ],
      }),
    ]);
    const brokenLog = await cloud(['apps', 'logs', 'broken'], { env });
    expect(brokenLog.code, brokenLog.stderr).toBe(0);
    expect(brokenLog.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}\S/);
    expect(brokenLog.stderr).toMatch(/^Deployment dpl_\w+ is FAILED: \S/);
    expect(brokenLog.stdout).not.toContain('s3cret-value');

    // Refusals: mixed forms (the command line), a taken name (409), a branch that does not exist (422).
    const mixed = await cloud(['apps', 'create', 'x', '--repository', 'demo-user/hello-node', '-b', 'main', '--from-template', '-s', 'apps-s-1vcpu-1gb'], {
      env,
    });
    expect(mixed.code).toBe(EXIT.usage);
    const taken = await cloud(['apps', 'create', 'hello', '--repository', 'demo-user/hello-node', '-b', 'main', '--from-template'], { env });
    expect(taken.code).toBe(EXIT.rejected);
    expect(taken.stderr).toMatch(/^Error: CONFLICT: /);
    const noBranch = await cloud(
      ['apps', 'create', 'other', '--repository', 'demo-user/hello-node', '-b', 'no-such-branch', '-s', 'apps-s-1vcpu-1gb', '-r', 'nyc', '--json'],
      {
        env,
      },
    );
    expect(noBranch.code).toBe(EXIT.rejected);
    expect(JSON.parse(noBranch.stderr)).toMatchObject({ error: { status: 422, code: 'VALIDATION_ERROR', fields: { branch: expect.any(String) } } });

    // A manual deploy, waited for: the one it replaces is SUPERSEDED.
    const deployed = await cloud(['apps', 'deploy', 'hello', '--wait'], { env });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/^Status:\s+LIVE$/m);
    expect(deployed.stdout).toMatch(/^Trigger:\s+MANUAL$/m);
    const history = await cloud(['apps', 'deployments', 'hello', '--json'], { env });
    expect(history.json<Deployment[]>().map((d) => [d.trigger, d.status])).toEqual([
      ['MANUAL', 'LIVE'],
      ['CREATE', 'SUPERSEDED'],
    ]);
    const table = await cloud(['apps', 'deployments', 'hello'], { env });
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+TRIGGER\s+BRANCH\s+COMMIT\s+QUEUED\s+FINISHED\n/);
    expect(table.stdout).toMatch(/ 84ad5a0 Add the deployment template /);

    // Queued without waiting, then followed: every log line once, in order, until it is live.
    const queued = await cloud(['apps', 'deploy', 'hello', '--json'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const deployment = queued.json<Deployment>();
    expect(deployment).toMatchObject({ status: 'QUEUED', trigger: 'MANUAL', branch: 'main' });
    const followed = await cloud(['apps', 'logs', 'hello', deployment.id, '--follow'], { env });
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stderr).toBe(`Deployment ${deployment.id} is LIVE\n`);
    const { log } = await world.client.get('/projects/{projectId}/apps/{appId}/deployments/{deploymentId}', {
      params: { path: { projectId: world.projectId, appId: created.id, deploymentId: deployment.id } },
    });
    expect(
      followed.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.slice(21)),
    ).toEqual(log.map((entry) => entry.line));
    expect(log.at(-1)!.line).toContain('is live');

    const updated = await cloud(['apps', 'update', 'hello', '--branch', 'experiment', '--no-auto-deploy', '--json'], { env });
    expect(updated.json<App>()).toMatchObject({ branch: 'experiment', autoDeploy: false });
    expect(await appNamed('hello')).toMatchObject({ branch: 'experiment', autoDeploy: false });
    expect((await cloud(['apps', 'update', 'hello'], { env })).code).toBe(EXIT.usage);
    const getJson = await cloud(['apps', 'get', created.id, '--json'], { env });
    expect(getJson.json()).toMatchObject({ id: created.id, name: 'hello', branch: 'experiment' });

    // A key that may only read apps cannot delete one; without --yes nothing is deleted either.
    const readOnly = await world.keyWith(['apps:read']);
    const forbidden = await cloud(['apps', 'delete', 'hello', '--yes'], { env: { ...env, CLOUD_API_KEY: readOnly } });
    expect(forbidden.code).toBe(EXIT.auth);
    expect(forbidden.stderr).toMatch(/^Error: FORBIDDEN: /);
    expect((await cloud(['apps', 'delete', 'hello'], { env })).code).toBe(EXIT.usage);
    const deleted = await cloud(['apps', 'delete', 'hello', '--yes', '--json'], { env });
    expect(deleted.json()).toEqual({ deleted: true });
    const gone = await cloud(['apps', 'get', 'hello'], { env });
    expect(gone.code).toBe(EXIT.notFound);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
    expect((await cloud(['apps', 'delete', 'broken', '--yes'], { env })).code).toBe(0);
    expect(await world.client.get('/projects/{projectId}/apps', appsPath)).toEqual([]);
  });
});

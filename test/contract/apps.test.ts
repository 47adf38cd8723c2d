import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { runDunning } from '../../server/billing/dunning';
import { closeMonthForProject } from '../../server/billing/monthlyClose';
import { billingPeriodOf } from '../../server/billing/period';
import type { Preview } from '../../server/billing/preview';
import { appRepositories, queuePushDeployments } from '../../server/domains/apps';
import { BUILD_TIMEOUT_MS, recoverBuilds, REQUEUE_AFTER_MS } from '../../server/domains/apps/builds';
import { BUILD_APP } from '../../server/domains/apps/jobs';
import { SUSPENDED_REASON } from '../../server/domains/apps/queue';
import type { AppView, DeploymentView } from '../../server/domains/apps/schema';
import { open } from '../../server/platform/encryption/envelope';
import { seededCommitSha } from '../../server/providers/gitHosts/seed';
import { simulatePush } from '../../server/providers/gitHosts/simulatedDeliveries';
import { addCard, CARDS, ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import {
  appsPath,
  connectGitHost1,
  connectOAuthGitHost,
  createApp,
  createAppCall,
  deploymentOf,
  deploymentsOf,
  HELLO_NODE,
  runBuildJob,
  serviceBody,
  useScriptedBuilds,
  useSimulatedBuilds,
} from '../appsFixtures';
import { paidProject } from './serverFixtures';

const HELLO_NODE_HEAD = seededCommitSha('git-host-1', 'demo-user/hello-node', 'main');

beforeEach(() => useSimulatedBuilds());

/** A project with a card and git host 1 connected. */
async function connectedProject(card: string = CARDS.ok): Promise<{ owner: TestUser; projectId: string }> {
  const project = await paidProject(card);
  await connectGitHost1(project.owner, project.projectId);
  return project;
}

async function getApp(user: TestUser, projectId: string, appId: string) {
  return api<AppView>('GET', `${appsPath(projectId)}/${appId}`, { cookie: user.cookie });
}

function deploy(user: TestUser, projectId: string, appId: string) {
  return api<DeploymentView>('POST', `${appsPath(projectId)}/${appId}/deployments`, { cookie: user.cookie });
}

async function billingItemOf(appId: string) {
  const [item] = await queryRows<{ monthly: number; ended_at: string | null; category: string }>(
    sql`select monthly, ended_at, category from billing_items where resource_type = 'app' and resource_id = ${appId}`,
  );
  return item;
}

async function eventsOf(projectId: string, prefix: string) {
  return queryRows<{ type: string; payload: Record<string, unknown> }>(
    sql`select type, payload from events where project_id = ${projectId} and type like ${`${prefix}%`} order by created_at, id`,
  );
}

function fieldsOf(res: { body: unknown }): Record<string, string> {
  return (res.body as { error: { fields: Record<string, string> } }).error.fields;
}

describe('creating an app', () => {
  it('takes services and region from the template, answers 201 without secret values, and queues the first deployment', async () => {
    const { owner, projectId } = await connectedProject();
    const res = await createAppCall(owner, projectId, { name: 'hello', fromTemplate: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.data).toMatchObject({
      name: 'hello',
      gitHost: 'git-host-1',
      repository: 'demo-user/hello-node',
      branch: 'main',
      region: 'nyc',
      status: 'ACTIVE',
      autoDeploy: true,
      templatePath: '.cloudpanel/app.yaml',
      monthly: 1200,
      liveDeploymentId: null,
    });
    expect(res.data.services).toEqual([
      {
        name: 'web',
        appType: 'WEB',
        sourceDir: '.',
        buildStrategy: 'BUILDPACK',
        buildCommand: 'npm run build',
        runCommand: 'npm start',
        outputDir: null,
        publicPort: 443,
        internalPort: 3000,
        instanceSize: 'apps-s-1vcpu-1gb',
        instances: 1,
        envVars: [
          { key: 'NODE_ENV', value: 'production', secret: false },
          { key: 'SESSION_SECRET', value: null, secret: true },
        ],
      },
    ]);

    const [deployment] = await deploymentsOf(owner, projectId, res.data.id);
    expect(deployment).toMatchObject({
      status: 'QUEUED',
      trigger: 'CREATE',
      branch: 'main',
      commitSha: HELLO_NODE_HEAD,
      commitMessage: 'Add the deployment template',
    });
    expect(deployment!.startedAt).toBeNull();
    const jobs = await queryRows<{ data: { appId: string } }>(sql`select data from pgboss.job where name = ${BUILD_APP} and data->>'appId' = ${res.data.id}`);
    expect(jobs).toHaveLength(1);
    expect((await eventsOf(projectId, 'app.')).map((e) => e.type)).toEqual(['app.created']);
    expect((await eventsOf(projectId, 'deployment.')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ appId: res.data.id, deploymentId: deployment!.id, trigger: 'CREATE', commitSha: HELLO_NODE_HEAD }),
    ]);
    expect(await billingItemOf(res.data.id)).toMatchObject({ monthly: 1200, ended_at: null, category: 'apps' });
  });

  it('takes one service from the body with the template’s defaults, and seals secret values, never answering them', async () => {
    const { owner, projectId } = await connectedProject();
    const secret = 'tok_live_do-not-leak-4242';
    const app = await createApp(owner, projectId, {
      ...serviceBody('api', {
        sourceDir: './src/',
        envVars: [
          { key: 'API_TOKEN', value: secret, secret: true },
          { key: 'MODE', value: 'plain' },
        ],
      }),
    });
    expect(app).toMatchObject({ templatePath: null, region: 'nyc', autoDeploy: true });
    expect(app.services[0]).toEqual({
      name: 'web',
      appType: 'WEB',
      sourceDir: 'src',
      buildStrategy: 'BUILDPACK',
      buildCommand: '',
      runCommand: '',
      outputDir: null,
      publicPort: 443,
      internalPort: 8080,
      instanceSize: 'apps-s-1vcpu-1gb',
      instances: 1,
      envVars: [
        { key: 'API_TOKEN', value: null, secret: true },
        { key: 'MODE', value: 'plain', secret: false },
      ],
    });
    const reads = [
      await getApp(owner, projectId, app.id),
      await api('GET', appsPath(projectId), { cookie: owner.cookie }),
      await api('PATCH', `${appsPath(projectId)}/${app.id}`, { cookie: owner.cookie, body: { autoDeploy: false } }),
    ];
    for (const read of reads) expect(JSON.stringify(read.body)).not.toContain(secret);
    const [stored] = await queryRows<{ services: Array<{ envVars: Array<{ key: string; value: string }> }> }>(
      sql`select services from apps where id = ${app.id}`,
    );
    const sealed = stored!.services[0]!.envVars.find((v) => v.key === 'API_TOKEN')!.value;
    expect(sealed).not.toContain(secret);
    expect(open(sealed, app.id)).toBe(secret);

    const worker = await createApp(owner, projectId, serviceBody('jobs', { name: 'jobs', appType: 'WORKER', instances: 2 }));
    expect(worker.services[0]).toMatchObject({ appType: 'WORKER', publicPort: 0, internalPort: 8080, instances: 2 });
    expect(worker.monthly).toBe(2400);
  });

  it('charges exactly the preview, for one service and for a template', async () => {
    const { owner, projectId } = await connectedProject();
    const bySize = await api<Preview>('GET', `${appsPath(projectId)}/preview?instanceSize=apps-s-1vcpu-1gb&instances=3`, { cookie: owner.cookie });
    expect(bySize.data.monthly).toBe(3600);
    const app = await createApp(owner, projectId, serviceBody('three', { instances: 3 }));
    expect(app.monthly).toBe(3600);
    expect((await ledgerIntents(owner.id)).map((i) => i.amount)).toEqual([bySize.data.dueToday]);

    const query = new URLSearchParams({ gitHost: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main' });
    const byTemplate = await api<Preview>('GET', `${appsPath(projectId)}/preview?${query}`, { cookie: owner.cookie });
    expect(byTemplate.data.monthly).toBe(1200);
    await createApp(owner, projectId, { name: 'templated', fromTemplate: true });
    expect((await ledgerIntents(owner.id)).map((i) => i.amount)).toEqual([bySize.data.dueToday, byTemplate.data.dueToday]);
  });

  it('refuses previews that are not one form or the other, and names what is not sold', async () => {
    const { owner, projectId } = await connectedProject();
    const preview = (query: string) => api('GET', `${appsPath(projectId)}/preview${query}`, { cookie: owner.cookie });
    expectError(await preview(''), 422, 'VALIDATION_ERROR');
    expectError(await preview('?instanceSize=apps-s-1vcpu-1gb&gitHost=git-host-1'), 422, 'VALIDATION_ERROR');
    const unknownSize = await preview('?instanceSize=apps-huge');
    expectError(unknownSize, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(unknownSize).instanceSize).toContain('apps-huge is not an app size');
    const noBranch = await preview('?gitHost=git-host-1&repository=demo-user/hello-node');
    expectError(noBranch, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(noBranch).branch).toContain('required');
    const noTemplate = await preview('?gitHost=git-host-1&repository=demo-user/hello-node&branch=experiment');
    expectError(noTemplate, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(noTemplate).branch).toContain('has no template');
  });

  it('answers 402 without a card, to the biller and to another member, and CARD_DECLINED, buying nothing', async () => {
    const owner = await createUser('Owner');
    const { projectId } = await createProject(owner);
    await connectGitHost1(owner, projectId);
    expectError(await createAppCall(owner, projectId, { name: 'hello', fromTemplate: true }), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    const admin = await createUser('Admin');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin')`);
    expectError(await createAppCall(admin, projectId, { name: 'hello', fromTemplate: true }), 402, 'BILLER_PAYMENT_METHOD_REQUIRED');

    const declining = await connectedProject(CARDS.declinesOnCharge);
    expectError(await createAppCall(declining.owner, declining.projectId, { name: 'hello', fromTemplate: true }), 402, 'CARD_DECLINED');
    for (const id of [projectId, declining.projectId]) {
      expect(await queryRows(sql`select id from apps where project_id = ${id}`)).toEqual([]);
      expect(await queryRows(sql`select id from deployments where project_id = ${id}`)).toEqual([]);
    }
  });

  it('answers 409 for a name in use (free again once that app is deleted), and charges once for a repeated Idempotency-Key', async () => {
    const { owner, projectId } = await connectedProject();
    const headers = { 'idempotency-key': 'create-hello-1' };
    const body = { ...HELLO_NODE, name: 'hello', fromTemplate: true };
    const first = await api<AppView>('POST', appsPath(projectId), { cookie: owner.cookie, body, headers });
    const again = await api<AppView>('POST', appsPath(projectId), { cookie: owner.cookie, body, headers });
    expect(again.data.id).toBe(first.data.id);
    expect(await ledgerIntents(owner.id)).toHaveLength(1);

    const clash = await createAppCall(owner, projectId, { name: 'hello', fromTemplate: true });
    expectError(clash, 409, 'CONFLICT');
    expect(fieldsOf(clash)).toHaveProperty('name');
    await api('DELETE', `${appsPath(projectId)}/${first.data.id}`, { cookie: owner.cookie }).then((r) => r.data);
    expect((await createAppCall(owner, projectId, { name: 'hello', fromTemplate: true })).status).toBe(201);
  });

  it('answers 422 naming the field for an unknown repository, branch, size or region, and for a missing or invalid template', async () => {
    const { owner, projectId } = await connectedProject();
    await connectGitHost1(owner, projectId, 'acme-labs');
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...serviceBody('a'), repository: 'demo-user/nope' }, 'repository', 'was not found'],
      [{ ...serviceBody('a'), branch: 'nope' }, 'branch', 'has no branch "nope"'],
      [serviceBody('a', { instanceSize: 'apps-huge' }), 'service.instanceSize', 'apps-huge is not an app size'],
      [serviceBody('a', { region: 'mars' }), 'service.region', 'mars is not an app region'],
      [serviceBody('a', { appType: 'STATIC' }), 'service.outputDir', 'outputDir is required'],
      [serviceBody('a', { sourceDir: '../elsewhere' }), 'service.sourceDir', 'inside the repository'],
      [{ name: 'a' }, 'service', 'service is required'],
      [{ ...serviceBody('a'), fromTemplate: true }, 'service', 'leave out service'],
      [{ name: 'a', fromTemplate: true, branch: 'experiment' }, 'fromTemplate', 'has no template'],
      [{ name: 'a', fromTemplate: true, repository: 'acme-labs/storefront' }, 'fromTemplate', '.cloudpanel/app.yml: line 3: services[0].region is required'],
      [{ ...serviceBody('Not A Name') }, 'name', 'lowercase letters'],
    ];
    for (const [body, field, message] of cases) {
      const res = await createAppCall(owner, projectId, body);
      expectError(res, 422, 'VALIDATION_ERROR');
      expect(fieldsOf(res)[field], `${field} of ${JSON.stringify(body)}`).toContain(message);
    }
    expect(await ledgerIntents(owner.id)).toEqual([]);
    expect(await queryRows(sql`select id from apps where project_id = ${projectId}`)).toEqual([]);
  });

  it('answers 400 GIT_HOST_NOT_CONNECTED when the project has no connection to the host', async () => {
    const { owner, projectId } = await paidProject();
    expectError(await createAppCall(owner, projectId, { name: 'hello', fromTemplate: true }), 400, 'GIT_HOST_NOT_CONNECTED');
    expect(await ledgerIntents(owner.id)).toEqual([]);
  });
});

describe('reading, changing and deleting apps', () => {
  it('lists newest first and gets one; changes autoDeploy and branch (which must exist) without deploying', async () => {
    const { owner, projectId } = await connectedProject();
    const first = await createApp(owner, projectId, serviceBody('first'));
    const second = await createApp(owner, projectId, serviceBody('second'));
    const listed = await api<AppView[]>('GET', appsPath(projectId), { cookie: owner.cookie });
    expect(listed.data.map((a) => a.name)).toEqual(['second', 'first']);
    expect((await getApp(owner, projectId, first.id)).data).toEqual(first);

    const patch = (body: unknown) => api<AppView>('PATCH', `${appsPath(projectId)}/${second.id}`, { cookie: owner.cookie, body });
    expectError(await patch({}), 422, 'VALIDATION_ERROR');
    const unknown = await patch({ branch: 'nope' });
    expectError(unknown, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(unknown)).toHaveProperty('branch');
    const changed = await patch({ branch: 'experiment', autoDeploy: false });
    expect(changed.data).toMatchObject({ branch: 'experiment', autoDeploy: false });
    expect((await getApp(owner, projectId, second.id)).data).toMatchObject({ branch: 'experiment', autoDeploy: false });
    expect((await deploymentsOf(owner, projectId, second.id)).map((d) => d.trigger)).toEqual(['CREATE']);
    const [updated] = (await eventsOf(projectId, 'app.updated')).map((e) => e.payload);
    expect(updated).toMatchObject({ appId: second.id, changes: { branch: { from: 'main', to: 'experiment' }, autoDeploy: { from: true, to: false } } });
    expectError(await getApp(owner, projectId, 'app_unknown'), 404, 'NOT_FOUND');
  });

  it('deletes an app: billing stops, queued builds fail, _count.apps drops, and it answers 404', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('doomed'));
    const countOfApps = async () => (await api<{ _count: { apps: number } }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data._count.apps;
    expect(await countOfApps()).toBe(1);

    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(JSON.stringify(refused.body)).toContain('1 app');

    const deleted = await api('DELETE', `${appsPath(projectId)}/${app.id}`, { cookie: owner.cookie });
    expect(deleted.data).toEqual({ deleted: true });
    expect((await billingItemOf(app.id))!.ended_at).not.toBeNull();
    const [deployment] = await queryRows<{ status: string; failure_reason: string }>(
      sql`select status, failure_reason from deployments where app_id = ${app.id}`,
    );
    expect(deployment).toEqual({ status: 'FAILED', failure_reason: 'app deleted' });
    expect(await countOfApps()).toBe(0);
    expectError(await getApp(owner, projectId, app.id), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${appsPath(projectId)}/${app.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expect(await runBuildJob(app.id)).toBe(0);
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);
  });
});

describe('deployments', () => {
  it('walk QUEUED → BUILDING → LIVE with their timestamps, and the app goes live on it', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, { name: 'hello', fromTemplate: true });
    const [queued] = await deploymentsOf(owner, projectId, app.id);
    expect(queued).toMatchObject({ status: 'QUEUED', startedAt: null, finishedAt: null });
    const seen: string[] = [];
    useScriptedBuilds(
      async (request) => {
        const during = await deploymentOf(owner, projectId, app.id, request.deploymentId);
        seen.push(during.status);
        expect(during.startedAt).not.toBeNull();
        expect(during.finishedAt).toBeNull();
      },
      () => ({ status: 'LIVE' }),
    );
    expect(await runBuildJob(app.id)).toBe(1);
    expect(seen).toEqual(['BUILDING', 'BUILDING']);
    const live = await deploymentOf(owner, projectId, app.id, queued!.id);
    expect(live.status).toBe('LIVE');
    expect(Date.parse(live.createdAt)).toBeLessThanOrEqual(Date.parse(live.startedAt!));
    expect(Date.parse(live.startedAt!)).toBeLessThanOrEqual(Date.parse(live.finishedAt!));
    expect(live.log.map((l) => l.seq)).toEqual(live.log.map((_, i) => i + 1));
    expect(live.log.map((l) => l.line)).toEqual(expect.arrayContaining(['Build started', `building ${HELLO_NODE_HEAD}`]));
    expect((await getApp(owner, projectId, app.id)).data.liveDeploymentId).toBe(queued!.id);
    expect((await eventsOf(projectId, 'deployment.live')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ deploymentId: queued!.id, supersededDeploymentId: null }),
    ]);
  });

  it('builds a real app with the build simulator, logging env keys but never their values', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, {
      ...serviceBody('sim', { buildCommand: 'npm run build', envVars: [{ key: 'DB_PASSWORD', value: 'hunter2-secret', secret: true }] }),
    });
    await runBuildJob(app.id);
    const [deployment] = await deploymentsOf(owner, projectId, app.id);
    const detailed = await deploymentOf(owner, projectId, app.id, deployment!.id);
    expect(detailed.status, JSON.stringify(detailed)).toBe('LIVE');
    const log = detailed.log.map((l) => l.line).join('\n');
    expect(log).toContain('Node.js');
    expect(log).toContain('DB_PASSWORD');
    expect(log).not.toContain('hunter2-secret');
  });

  it('hands the build the opened secret values, and nothing else sees them', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('keys', { envVars: [{ key: 'API_KEY', value: 'k-123', secret: true }] }));
    const requests = useScriptedBuilds(
      async () => undefined,
      () => ({ status: 'LIVE' }),
    );
    await runBuildJob(app.id);
    expect(requests[0]!.services[0]!.envVars).toEqual([{ key: 'API_KEY', value: 'k-123', secret: true }]);
    expect(requests[0]!.source.label).toBe(`git-host-1:demo-user/hello-node@${HELLO_NODE_HEAD}`);
  });

  it('ends a failing build FAILED with its reason, keeping the live deployment', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('broken', { sourceDir: 'services/missing' }));
    await runBuildJob(app.id);
    const [failed] = await deploymentsOf(owner, projectId, app.id);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('services/missing') });
    expect(failed!.finishedAt).not.toBeNull();
    expect((await getApp(owner, projectId, app.id)).data.liveDeploymentId).toBeNull();
    expect((await eventsOf(projectId, 'deployment.failed')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ deploymentId: failed!.id, reason: failed!.failureReason }),
    ]);
  });

  it('deploys the branch’s new head by hand; the new deployment goes live and supersedes the old one', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, { ...serviceBody('manual'), branch: 'experiment' });
    await runBuildJob(app.id);
    const [first] = await deploymentsOf(owner, projectId, app.id);
    expect(first!.status).toBe('LIVE');

    const { commit } = await simulatePush(
      { host: 'git-host-1', repository: 'demo-user/hello-node', branch: 'experiment', message: 'Ship it' },
      { baseUrl: 'http://127.0.0.1:9' },
    );
    const manual = await deploy(owner, projectId, app.id);
    expect(manual.status, JSON.stringify(manual.body)).toBe(202);
    expect(manual.data).toMatchObject({ status: 'QUEUED', trigger: 'MANUAL', branch: 'experiment', commitSha: commit.sha, commitMessage: 'Ship it' });
    await runBuildJob(app.id);
    const statuses = Object.fromEntries((await deploymentsOf(owner, projectId, app.id)).map((d) => [d.id, d.status]));
    expect(statuses).toEqual({ [first!.id]: 'SUPERSEDED', [manual.data.id]: 'LIVE' });
    expect((await getApp(owner, projectId, app.id)).data.liveDeploymentId).toBe(manual.data.id);
    const lives = (await eventsOf(projectId, 'deployment.live')).map((e) => e.payload);
    expect(lives.at(-1)).toMatchObject({ deploymentId: manual.data.id, supersededDeploymentId: first!.id });
  });

  it('builds one deployment of an app at a time, in the order they were queued, each once', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('queue'));
    const second = (await deploy(owner, projectId, app.id)).data;
    const third = (await deploy(owner, projectId, app.id)).data;
    const building: Array<{ id: string; others: string[] }> = [];
    const requests = useScriptedBuilds(
      async (request, phase) => {
        if (phase !== 'building') return;
        const all = await deploymentsOf(owner, projectId, app.id);
        building.push({ id: request.deploymentId, others: all.filter((d) => d.id !== request.deploymentId).map((d) => d.status) });
      },
      () => ({ status: 'LIVE' }),
    );
    // Two workers take the app's jobs at once: between them, every deployment is built once.
    const built = await Promise.all([runBuildJob(app.id), runBuildJob(app.id)]);
    expect(built.reduce((a, b) => a + b, 0)).toBe(3);
    const [created] = (await deploymentsOf(owner, projectId, app.id)).filter((d) => d.trigger === 'CREATE');
    expect(requests.map((r) => r.deploymentId)).toEqual([created!.id, second.id, third.id]);
    for (const { others } of building) expect(others).not.toContain('BUILDING');
    const statuses = Object.fromEntries((await deploymentsOf(owner, projectId, app.id)).map((d) => [d.id, d.status]));
    expect(statuses).toEqual({ [created!.id]: 'SUPERSEDED', [second.id]: 'SUPERSEDED', [third.id]: 'LIVE' });
  });
});

describe('the recovery job', () => {
  it('fails a build whose worker went away, and sends a build job for deployments left waiting', async () => {
    const { owner, projectId } = await connectedProject();
    const stuck = await createApp(owner, projectId, serviceBody('stuck'));
    const waiting = await createApp(owner, projectId, serviceBody('waiting'));
    const now = new Date();
    const longAgo = new Date(now.getTime() - BUILD_TIMEOUT_MS - 60_000).toISOString();
    await queryRows(sql`update deployments set status = 'BUILDING', started_at = ${longAgo} where app_id = ${stuck.id}`);
    await queryRows(sql`update deployments set created_at = ${new Date(now.getTime() - REQUEUE_AFTER_MS - 1000).toISOString()} where app_id = ${waiting.id}`);
    const jobsOf = async (appId: string) => (await queryRows(sql`select id from pgboss.job where name = ${BUILD_APP} and data->>'appId' = ${appId}`)).length;
    expect(await jobsOf(waiting.id)).toBe(1);

    expect(await recoverBuilds(now)).toBe(1);
    const [abandoned] = await deploymentsOf(owner, projectId, stuck.id);
    expect(abandoned).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('stopped responding') });
    expect(await jobsOf(waiting.id)).toBe(2);
    expect(await jobsOf(stuck.id)).toBe(1);
    expect(await recoverBuilds(now)).toBe(0);
  });

  it('fails the queued deployments of an app found suspended instead of building them', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('held'));
    await queryRows(sql`update apps set status = 'SUSPENDED' where id = ${app.id}`);
    expect(await runBuildJob(app.id)).toBe(0);
    const [deployment] = await deploymentsOf(owner, projectId, app.id);
    expect(deployment).toMatchObject({ status: 'FAILED', failureReason: SUSPENDED_REASON, startedAt: null });
  });
});

describe('push deployments', () => {
  it('queue a deployment of every app on the pushed branch with auto-deploy on, and none elsewhere', async () => {
    const { owner, projectId } = await connectedProject();
    const other = await connectedProject();
    const matching = await createApp(owner, projectId, { ...serviceBody('matching'), branch: 'experiment' });
    const manualOnly = await createApp(owner, projectId, { ...serviceBody('manual-only', { autoDeploy: false }), branch: 'experiment' });
    const onMain = await createApp(owner, projectId, serviceBody('on-main'));
    const deleted = await createApp(owner, projectId, { ...serviceBody('deleted'), branch: 'experiment' });
    await api('DELETE', `${appsPath(projectId)}/${deleted.id}`, { cookie: owner.cookie }).then((r) => r.data);
    expect(manualOnly.autoDeploy).toBe(false);

    const push = {
      host: 'git-host-1' as const,
      repository: 'Demo-User/Hello-Node',
      branch: 'experiment',
      commitSha: 'a'.repeat(40),
      commitMessage: 'Pushed',
      deliveryId: 'delivery-1',
    };
    expect(await queuePushDeployments([other.projectId], push)).toBe(0);
    expect(await queuePushDeployments([projectId], { ...push, branch: 'elsewhere' })).toBe(0);
    expect(await queuePushDeployments([], push)).toBe(0);
    expect(await queuePushDeployments([projectId, other.projectId], push)).toBe(1);

    const pushed = (await deploymentsOf(owner, projectId, matching.id)).filter((d) => d.trigger === 'PUSH');
    expect(pushed).toEqual([expect.objectContaining({ status: 'QUEUED', branch: 'experiment', commitSha: 'a'.repeat(40), commitMessage: 'Pushed' })]);
    for (const app of [manualOnly, onMain]) expect((await deploymentsOf(owner, projectId, app.id)).map((d) => d.trigger)).toEqual(['CREATE']);
    const [row] = await queryRows<{ delivery_id: string }>(sql`select delivery_id from deployments where id = ${pushed[0]!.id}`);
    expect(row!.delivery_id).toBe('delivery-1');
  });

  it('lists the repositories the project’s live apps build', async () => {
    const { owner, projectId } = await connectedProject();
    await connectGitHost1(owner, projectId, 'acme-labs');
    await createApp(owner, projectId, serviceBody('one'));
    await createApp(owner, projectId, { ...serviceBody('two'), branch: 'experiment' });
    const gone = await createApp(owner, projectId, { ...serviceBody('three'), repository: 'acme-labs/docs-site', branch: 'main' });
    expect(await appRepositories(projectId, 'git-host-1')).toEqual(['acme-labs/docs-site', 'demo-user/hello-node']);
    await api('DELETE', `${appsPath(projectId)}/${gone.id}`, { cookie: owner.cookie }).then((r) => r.data);
    expect(await appRepositories(projectId, 'git-host-1')).toEqual(['demo-user/hello-node']);
    expect(await appRepositories(projectId, 'git-host-2')).toEqual([]);
  });
});

describe('an app on git host 2', () => {
  it('registers the repository’s push webhook once, builds from the deployment copy, and removes the hook with the last app', async () => {
    const { owner, projectId } = await paidProject();
    await connectOAuthGitHost(owner, projectId, 'git-host-2');
    const body = { gitHost: 'git-host-2', repository: 'demo-team/api-service', branch: 'main', fromTemplate: true };
    const first = await createApp(owner, projectId, { ...body, name: 'api' });
    expect(first).toMatchObject({ region: 'fra', monthly: 2400, services: [expect.objectContaining({ buildStrategy: 'DOCKERFILE', instances: 2 })] });
    const second = await createApp(owner, projectId, { ...body, name: 'api-develop', branch: 'develop' });
    const hooks = () => queryRows(sql`select repository from git_repository_webhooks where project_id = ${projectId}`);
    expect(await hooks()).toEqual([{ repository: 'demo-team/api-service' }]);

    await runBuildJob(first.id);
    const [deployment] = await queryRows<{ status: string; source_copy: string | null }>(
      sql`select status, source_copy from deployments where app_id = ${first.id}`,
    );
    expect(deployment!.status).toBe('LIVE');
    expect(deployment!.source_copy).toMatch(/^platform-deployments\//);

    await api('DELETE', `${appsPath(projectId)}/${first.id}`, { cookie: owner.cookie }).then((r) => r.data);
    expect(await hooks()).toHaveLength(1);
    await api('DELETE', `${appsPath(projectId)}/${second.id}`, { cookie: owner.cookie }).then((r) => r.data);
    expect(await hooks()).toEqual([]);
  });
});

describe('a suspended project', () => {
  const DAY = 24 * 3_600_000;

  /** An app bought last month whose month's invoice the card then declines. */
  async function appWithUnpaidInvoice() {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, { ...serviceBody('dunned'), branch: 'experiment' });
    await queryRows(sql`update billing_items set started_at = started_at - interval '40 days' where project_id = ${projectId}`);
    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'
      where customer_id = (select payment_customer_id from users where id = ${owner.id})`);
    const close = new Date(billingPeriodOf(new Date()).end.getTime() + 5 * 60_000);
    const invoice = await closeMonthForProject(projectId, close);
    expect(invoice?.status).toBe('failed');
    return { owner, projectId, app, invoiceId: invoice!.id, graceOver: new Date(close.getTime() + 7 * DAY) };
  }

  it('suspends its apps: deploys are refused with 402, pushes queue nothing, queued builds fail; paying brings them back', async () => {
    const { owner, projectId, app, invoiceId, graceOver } = await appWithUnpaidInvoice();
    await runDunning(graceOver);
    expect((await getApp(owner, projectId, app.id)).data.status).toBe('SUSPENDED');
    const [queued] = await deploymentsOf(owner, projectId, app.id);
    expect(queued).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('suspended') });

    const refused = await deploy(owner, projectId, app.id);
    expectError(refused, 402, 'PROJECT_SUSPENDED');
    const push = {
      host: 'git-host-1' as const,
      repository: 'demo-user/hello-node',
      branch: 'experiment',
      commitSha: 'b'.repeat(40),
      commitMessage: 'x',
      deliveryId: 'd-2',
    };
    expect(await queuePushDeployments([projectId], push)).toBe(0);
    expect((await eventsOf(projectId, 'app.')).map((e) => e.type)).toEqual(['app.created', 'app.suspended']);

    const card = (await addCard(owner, projectId, '5555 5555 5555 4444')).data;
    await api('POST', `/v1/projects/${projectId}/billing/payment-methods/${card.id}/default`, { cookie: owner.cookie }).then((r) => r.data);
    expect((await api<{ status: string }>('POST', `/v1/projects/${projectId}/billing/invoices/${invoiceId}/pay`, { cookie: owner.cookie })).data.status).toBe(
      'paid',
    );
    expect((await getApp(owner, projectId, app.id)).data.status).toBe('ACTIVE');
    expect((await deploy(owner, projectId, app.id)).status).toBe(202);
    expect(await queuePushDeployments([projectId], { ...push, deliveryId: 'd-3' })).toBe(1);
  });
});

describe('who may do what', () => {
  it('lets a viewer and a read-only key read, and neither write; a key with apps:write deploys', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('guarded'));
    const viewer = await createUser('Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${viewer.id}, 'viewer')`);
    expect((await api('GET', appsPath(projectId), { cookie: viewer.cookie })).status).toBe(200);
    expectError(await createAppCall(viewer, projectId, serviceBody('nope')), 403, 'FORBIDDEN');
    expectError(await deploy(viewer, projectId, app.id), 403, 'FORBIDDEN');

    const reader = await createApiKey(owner, projectId, ['apps:read']);
    expect((await api('GET', `${appsPath(projectId)}/${app.id}/deployments`, { key: reader.key })).status).toBe(200);
    expectError(await api('POST', `${appsPath(projectId)}/${app.id}/deployments`, { key: reader.key }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', `${appsPath(projectId)}/${app.id}`, { key: reader.key }), 403, 'FORBIDDEN');
    const writer = await createApiKey(owner, projectId, ['apps:read', 'apps:write']);
    expect((await api('POST', `${appsPath(projectId)}/${app.id}/deployments`, { key: writer.key })).status).toBe(202);
    expectError(await api('GET', appsPath(projectId), { key: (await createApiKey(owner, projectId, ['servers:read'])).key }), 403, 'FORBIDDEN');
  });

  it('answers 404 for an app or deployment of another project, even the caller’s own, and changes nothing', async () => {
    const { owner, projectId } = await connectedProject();
    const app = await createApp(owner, projectId, serviceBody('mine'));
    const [firstDeployment] = await deploymentsOf(owner, projectId, app.id);
    const { projectId: other } = await createProject(owner, 'Other of the same owner');
    const otherApp = await api<AppView>('GET', `${appsPath(other)}/${app.id}`, { cookie: owner.cookie });
    expectError(otherApp, 404, 'NOT_FOUND');
    expectError(await api('PATCH', `${appsPath(other)}/${app.id}`, { cookie: owner.cookie, body: { autoDeploy: false } }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${appsPath(other)}/${app.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await deploy(owner, other, app.id), 404, 'NOT_FOUND');
    expectError(await api('GET', `${appsPath(other)}/${app.id}/deployments/${firstDeployment!.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    const sibling = await createApp(owner, projectId, serviceBody('sibling'));
    expectError(await api('GET', `${appsPath(projectId)}/${sibling.id}/deployments/${firstDeployment!.id}`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expect((await getApp(owner, projectId, app.id)).data).toMatchObject({ id: app.id, autoDeploy: app.autoDeploy });
    expect(await deploymentsOf(owner, projectId, app.id)).toHaveLength(1);
  });
});

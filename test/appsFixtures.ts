import { expect } from 'vitest';
import type { AppView, DeploymentView, DeploymentWithLogView } from '../server/domains/apps/schema';
import { runBuilds } from '../server/domains/apps/builds';
import { resetConfigForTests } from '../server/platform/config';
import { resetBuildProviderForTests } from '../server/providers/builds';
import type { BuildOutcome, BuildProvider, BuildReporter, BuildRequest } from '../server/providers/builds/types';
import { connectOAuthHost, installHost1 } from './gitHostFixtures';
import { api, type TestUser } from './helpers';

/**
 * Apps need a project connected to a git host. These walk the integrations' own connect flow over
 * HTTP, doing on the simulated host's pages what the person in the browser would: install the app
 * on an account (host 1), or allow access (hosts 2 and 3).
 */

export const HELLO_NODE = { gitHost: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main' } as const;

/** Links the simulated installation of git host 1 on `account` to the project, as its owner would. */
export async function connectGitHost1(user: TestUser, projectId: string, account: 'demo-user' | 'acme-labs' = 'demo-user'): Promise<void> {
  expect(await installHost1(user, projectId, account), 'git-host-1 connection outcome').toMatch(/[?&]git-host-1=connected$/);
}

/** Grants the project access to `demo-user`'s account on git host 2 or 3. */
export async function connectOAuthGitHost(user: TestUser, projectId: string, host: 'git-host-2' | 'git-host-3'): Promise<void> {
  expect(await connectOAuthHost(user, projectId, host), `${host} connection outcome`).toMatch(new RegExp(`[?&]${host}=connected$`));
}

export const appsPath = (projectId: string) => `/v1/projects/${projectId}/apps`;

export function createAppCall(user: TestUser, projectId: string, body: Record<string, unknown>) {
  return api<AppView>('POST', appsPath(projectId), { cookie: user.cookie, body: { ...HELLO_NODE, ...body } });
}

/** A one-service app of hello-node (apps-s-1vcpu-1gb in nyc unless `service` says otherwise). */
export function serviceBody(name: string, service: Record<string, unknown> = {}) {
  return { name, service: { name: 'web', instanceSize: 'apps-s-1vcpu-1gb', region: 'nyc', ...service } };
}

export async function createApp(user: TestUser, projectId: string, body: Record<string, unknown>): Promise<AppView> {
  const res = await createAppCall(user, projectId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.data;
}

export async function deploymentsOf(user: TestUser, projectId: string, appId: string): Promise<DeploymentView[]> {
  return (await api<DeploymentView[]>('GET', `${appsPath(projectId)}/${appId}/deployments`, { cookie: user.cookie })).data;
}

export async function deploymentOf(user: TestUser, projectId: string, appId: string, deploymentId: string): Promise<DeploymentWithLogView> {
  return (await api<DeploymentWithLogView>('GET', `${appsPath(projectId)}/${appId}/deployments/${deploymentId}`, { cookie: user.cookie })).data;
}

/** Runs the app's build job to the end, as a worker would: every queued deployment, oldest first. */
export function runBuildJob(appId: string): Promise<number> {
  return runBuilds(appId);
}

/** The real build simulator, without pauses between its steps. */
export function useSimulatedBuilds(): void {
  process.env.BUILD_SIM_STEP_MS = '0';
  resetConfigForTests();
  resetBuildProviderForTests();
}

/**
 * A build that stops at each phase to let the test look (through `observe`), then ends as
 * `outcome` says; it records the requests it was given.
 */
export function useScriptedBuilds(
  observe: (request: BuildRequest, phase: 'building' | 'built') => Promise<void>,
  outcome: (request: BuildRequest) => BuildOutcome,
) {
  const requests: BuildRequest[] = [];
  const provider: BuildProvider = {
    kind: 'simulator',
    description: 'Scripted builds of the apps tests',
    async build(request: BuildRequest, reporter: BuildReporter) {
      requests.push(request);
      await reporter.building();
      await observe(request, 'building');
      await reporter.log(`building ${request.commitSha}`);
      await observe(request, 'built');
      return outcome(request);
    },
  };
  resetBuildProviderForTests(provider);
  return requests;
}

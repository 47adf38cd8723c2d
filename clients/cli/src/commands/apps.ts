import { readFileSync } from 'node:fs';
import { ApiError, type operations, type Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { CHARGE_FIELDS, chargeNote } from '../charges.ts';
import { integer, oneOf, upperCase } from '../parse.ts';
import { action, collect, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readStdin, type Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type App = Schema<'App'>;
type Deployment = Schema<'Deployment'>;
type DeploymentWithLog = Schema<'DeploymentWithLog'>;
type GitHost = App['gitHost'];
type CreateBody = operations['apps-create']['requestBody']['content']['application/json'];
type Service = NonNullable<CreateBody['service']>;
type EnvVar = NonNullable<Service['envVars']>[number];
type AppType = NonNullable<Service['appType']>;
type BuildStrategy = NonNullable<Service['buildStrategy']>;

// Records rather than arrays, so the compiler checks that each list is exactly what the API accepts.
const GIT_HOSTS = Object.keys({ 'git-host-1': 0, 'git-host-2': 0, 'git-host-3': 0 } satisfies Record<GitHost, 0>) as GitHost[];
const APP_TYPES = Object.keys({ WEB: 0, WORKER: 0, STATIC: 0 } satisfies Record<AppType, 0>) as AppType[];
const BUILD_STRATEGIES = Object.keys({ BUILDPACK: 0, DOCKERFILE: 0 } satisfies Record<BuildStrategy, 0>) as BuildStrategy[];

const commit = (d: Pick<Deployment, 'commitSha' | 'commitMessage'>) =>
  d.commitSha ? `${d.commitSha.slice(0, 7)} ${(d.commitMessage ?? '').split('\n')[0]}`.trim() : null;

const COLUMNS: Column<App>[] = [
  { header: 'id', value: (a) => a.id },
  { header: 'name', value: (a) => a.name },
  { header: 'repository', value: (a) => `${a.gitHost}:${a.repository}@${a.branch}` },
  { header: 'region', value: (a) => a.region },
  { header: 'status', value: (a) => a.status },
  { header: 'auto-deploy', value: (a) => a.autoDeploy },
  { header: 'monthly', value: (a) => money(a.monthly) },
];

const FIELDS: Column<App>[] = [
  { header: 'Id', value: (a) => a.id },
  { header: 'Name', value: (a) => a.name },
  { header: 'Status', value: (a) => a.status },
  { header: 'Repository', value: (a) => `${a.repository} on ${a.gitHost}` },
  { header: 'Branch', value: (a) => a.branch },
  { header: 'Auto-deploy', value: (a) => a.autoDeploy },
  { header: 'Region', value: (a) => a.region },
  {
    header: 'Services',
    value: (a) =>
      a.services.map((s) => `${s.name} (${s.appType}, ${s.instanceSize} × ${s.instances}${s.publicPort ? `, port ${s.publicPort}` : ''})`).join('; '),
  },
  { header: 'Template', value: (a) => a.templatePath ?? 'none (services given at creation)' },
  { header: 'Monthly', value: (a) => money(a.monthly) },
  { header: 'Live deployment', value: (a) => a.liveDeploymentId ?? 'none yet' },
  { header: 'Created', value: (a) => when(a.createdAt) },
];

const DEPLOYMENT_COLUMNS: Column<Deployment>[] = [
  { header: 'id', value: (d) => d.id },
  { header: 'status', value: (d) => d.status },
  { header: 'trigger', value: (d) => d.trigger },
  { header: 'branch', value: (d) => d.branch },
  { header: 'commit', value: commit },
  { header: 'queued', value: (d) => when(d.createdAt) },
  { header: 'finished', value: (d) => when(d.finishedAt) },
];

const DEPLOYMENT_FIELDS: Column<Deployment>[] = [
  { header: 'Id', value: (d) => d.id },
  { header: 'Status', value: (d) => (d.failureReason ? `${d.status}: ${d.failureReason}` : d.status) },
  { header: 'Trigger', value: (d) => d.trigger },
  { header: 'Branch', value: (d) => d.branch },
  { header: 'Commit', value: commit },
  { header: 'Queued', value: (d) => when(d.createdAt) },
  { header: 'Started', value: (d) => when(d.startedAt) },
  { header: 'Finished', value: (d) => when(d.finishedAt) },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const appPath = (ctx: Context, appId: string) => ({ params: { path: { projectId: ctx.project(), appId } } });

/** An app by id or name (names are unique among the project's live apps). */
async function findApp(ctx: Context, ref: string): Promise<App> {
  const app = (await ctx.client.get('/projects/{projectId}/apps', projectPath(ctx))).find((a) => a.id === ref || a.name === ref);
  if (!app) throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No app ${ref} in this project; see \`cloud apps list\`` });
  return app;
}

const readDeployment = (ctx: Context, appId: string, deploymentId: string) =>
  ctx.client.get('/projects/{projectId}/apps/{appId}/deployments/{deploymentId}', {
    params: { path: { projectId: ctx.project(), appId, deploymentId } },
  });

/** Follows a deployment until it is LIVE; FAILED ends the wait with its reason. */
async function waitUntilLive(ctx: Context, app: App, deploymentId: string, timeout: string | undefined): Promise<DeploymentWithLog> {
  const progress = startProgress(ctx.io, `Waiting for deployment ${deploymentId} of ${app.name} to go live…`);
  try {
    const deployment = await ctx.client.waitFor(() => readDeployment(ctx, app.id, deploymentId), {
      // SUPERSEDED: it went live and a newer one has already replaced it.
      until: (d) => d.status === 'LIVE' || d.status === 'SUPERSEDED',
      failWhen: (d) => d.status === 'FAILED' && `Deployment ${d.id} of ${app.name} FAILED: ${d.failureReason ?? 'no reason given'}`,
      onPoll: (d) => progress.update(`Deployment ${d.id} is ${d.status}…`),
      timeoutMs: timeoutMs(timeout, 1800),
      intervalMs: 1000,
    });
    progress.stop(`Deployment ${deployment.id} of ${app.name} is ${deployment.status}`);
    return deployment;
  } catch (err) {
    progress.stop();
    throw err;
  }
}

/** `KEY=VALUE` lines of a .env file: blank lines and # comments skipped, one pair of surrounding quotes removed. */
function parseEnvFile(text: string, source: string): Array<{ key: string; value: string }> {
  const pairs: Array<{ key: string; value: string }> = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new UsageError(`${source}, line ${index + 1}: expected KEY=VALUE`);
    const value = match[2]!;
    const quoted = /^(['"])(.*)\1$/.exec(value);
    pairs.push({ key: match[1]!, value: quoted ? quoted[2]! : value });
  }
  return pairs;
}

async function envVarsOf(ctx: Context, plain: string[], secretFile: string | undefined): Promise<EnvVar[]> {
  const vars: EnvVar[] = plain.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--env takes KEY=VALUE, not "${pair}"`);
    return { key: pair.slice(0, at), value: pair.slice(at + 1), secret: false };
  });
  if (secretFile !== undefined) {
    const text = secretFile === '-' ? await readStdin(ctx.io) : readFileSync(secretFile, 'utf8');
    for (const { key, value } of parseEnvFile(text, secretFile === '-' ? 'stdin' : secretFile)) vars.push({ key, value, secret: true });
  }
  return vars;
}

interface CreateOptions {
  repository: string;
  branch: string;
  gitHost: GitHost;
  fromTemplate?: boolean;
  service: string;
  type?: AppType;
  sourceDir?: string;
  buildStrategy?: BuildStrategy;
  buildCommand?: string;
  runCommand?: string;
  outputDir?: string;
  publicPort?: number;
  internalPort?: number;
  size?: string;
  instances?: number;
  region?: string;
  env: string[];
  secretEnvFile?: string;
  autoDeploy?: boolean;
  wait?: boolean;
  timeout: string;
}

/** The service options given: with --from-template none may be, since the template describes the services. */
const SERVICE_OPTIONS = [
  'type',
  'sourceDir',
  'buildStrategy',
  'buildCommand',
  'runCommand',
  'outputDir',
  'publicPort',
  'internalPort',
  'size',
  'instances',
  'region',
] as const;

async function serviceOf(ctx: Context, options: CreateOptions): Promise<Service> {
  if (!options.size || !options.region)
    throw new UsageError('Give --size and --region for the app’s service, or --from-template to take them from the repository’s template');
  const envVars = await envVarsOf(ctx, options.env, options.secretEnvFile);
  return {
    name: options.service,
    instanceSize: options.size,
    region: options.region,
    ...(options.type ? { appType: options.type } : {}),
    ...(options.sourceDir !== undefined ? { sourceDir: options.sourceDir } : {}),
    ...(options.buildStrategy ? { buildStrategy: options.buildStrategy } : {}),
    ...(options.buildCommand !== undefined ? { buildCommand: options.buildCommand } : {}),
    ...(options.runCommand !== undefined ? { runCommand: options.runCommand } : {}),
    ...(options.outputDir !== undefined ? { outputDir: options.outputDir } : {}),
    ...(options.publicPort !== undefined ? { publicPort: options.publicPort } : {}),
    ...(options.internalPort !== undefined ? { internalPort: options.internalPort } : {}),
    ...(options.instances !== undefined ? { instances: options.instances } : {}),
    ...(envVars.length > 0 ? { envVars } : {}),
  };
}

export function registerApps(program: Command, io: Io): void {
  const apps = program.command('apps').description('apps built and run from a branch of a connected git repository, and their deployments');
  examples(
    apps,
    'cloud apps create hello --repository demo-user/hello-node --branch main --from-template --wait',
    'cloud apps deploy hello --wait',
    'cloud apps logs hello --follow',
  );

  examples(
    apps
      .command('list')
      .description('list the project’s apps')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/apps', projectPath(ctx)), COLUMNS);
        }),
      ),
    'cloud apps list',
  );

  examples(
    apps
      .command('get')
      .description('show an app, its services and what is live (secret environment values are never shown)')
      .argument('<app>', 'the app’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          ctx.out.item(await findApp(ctx, ref!), FIELDS);
        }),
      ),
    'cloud apps get hello',
  );

  examples(
    apps
      .command('preview')
      .description('what creating an app would charge today and monthly: of one service’s size, or of a repository’s template')
      .option('-s, --size <slug>', 'an app size (GET /v1/catalog/apps/sizes), for an app of one service')
      .option('--instances <n>', 'instances of that size', integer(1))
      .option('--repository <name>', 'price the template of this repository (owner/repo; group/subgroup/project on git-host-3)')
      .option('--branch <branch>', 'the template’s branch')
      .option('--git-host <host>', GIT_HOSTS.join(', '), oneOf('The git host', GIT_HOSTS), 'git-host-1')
      .action(
        action<{ size?: string; instances?: number; repository?: string; branch?: string; gitHost: GitHost }>(io, async (ctx, _args, options) => {
          const template = options.repository !== undefined || options.branch !== undefined;
          if (template === (options.size !== undefined))
            throw new UsageError('Give either --size (and --instances), or --repository and --branch for a template');
          if (template && (!options.repository || !options.branch)) throw new UsageError('A template is priced from --repository and --branch together');
          if (template && options.instances !== undefined) throw new UsageError('A template says its own instances: leave out --instances');
          const query = template
            ? { gitHost: options.gitHost, repository: options.repository, branch: options.branch }
            : { instanceSize: options.size, ...(options.instances !== undefined ? { instances: options.instances } : {}) };
          const preview = await ctx.client.get('/projects/{projectId}/apps/preview', { params: { path: { projectId: ctx.project() }, query } });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud apps preview --size apps-s-1vcpu-1gb --instances 2',
    'cloud apps preview --repository demo-user/hello-node --branch main',
  );

  examples(
    apps
      .command('create')
      .description('buy an app that builds and runs a branch: the saved card is charged the prorated month now, and the first deployment is queued')
      .argument('<name>', '1–40 lower-case letters, digits and hyphens, starting with a letter; unique in the project')
      .requiredOption('--repository <name>', 'owner/repo (git-host-1), workspace/repo (git-host-2), group/subgroup/project (git-host-3)')
      .requiredOption('-b, --branch <branch>', 'the branch to build and deploy')
      .option('--git-host <host>', `${GIT_HOSTS.join(', ')}; connect it first under Integrations`, oneOf('The git host', GIT_HOSTS), 'git-host-1')
      .option('--from-template', 'take the services and region from the branch’s .cloudpanel/app.yaml')
      .option('--service <name>', 'without a template: the service’s name', 'web')
      .option('-s, --size <slug>', 'without a template: the app size (GET /v1/catalog/apps/sizes)')
      .option('-r, --region <slug>', 'without a template: the region (GET /v1/catalog/apps/regions)')
      .option('--instances <n>', 'instances of the service (default 1)', integer(1))
      .option('--type <type>', `${APP_TYPES.join(', ')} (default WEB)`, oneOf('The type', APP_TYPES, upperCase))
      .option('--source-dir <dir>', 'the service’s folder in the repository (default the root)')
      .option('--build-strategy <strategy>', `${BUILD_STRATEGIES.join(', ')} (default BUILDPACK)`, oneOf('The build strategy', BUILD_STRATEGIES, upperCase))
      .option('--build-command <command>', 'instead of the strategy’s default')
      .option('--run-command <command>', 'instead of the strategy’s default')
      .option('--output-dir <dir>', 'STATIC: the folder the build writes the site to')
      .option('--public-port <port>', 'WEB and STATIC: the public port (default 443)', integer(0, 65535))
      .option('--internal-port <port>', 'WEB and WORKER: the port the service listens on (default 8080)', integer(0, 65535))
      .option('-e, --env <KEY=VALUE>', 'a plain environment variable (repeatable); secrets go in --secret-env-file', collect, [])
      .option('--secret-env-file <file>', 'KEY=VALUE lines set as secret variables, sealed and never shown again; - reads stdin')
      .option('--auto-deploy', 'pushes to the branch deploy (default: what the service or template says)')
      .option('--no-auto-deploy', 'pushes to the branch deploy nothing')
      .option('-w, --wait', 'wait until the first deployment is LIVE')
      .option('--timeout <seconds>', 'how long --wait waits', '1800')
      .action(
        action<CreateOptions>(io, async (ctx, [name], options) => {
          const projectId = ctx.project();
          if (options.fromTemplate) {
            const given = SERVICE_OPTIONS.filter((option) => options[option] !== undefined);
            if (given.length > 0 || options.env.length > 0 || options.secretEnvFile !== undefined) {
              throw new UsageError('--from-template takes the services from the template: leave out the service options');
            }
          }
          const service = options.fromTemplate ? undefined : await serviceOf(ctx, options);
          const preview = await ctx.client.get('/projects/{projectId}/apps/preview', {
            params: {
              path: { projectId },
              query: service
                ? { instanceSize: service.instanceSize, instances: service.instances ?? 1 }
                : { gitHost: options.gitHost, repository: options.repository, branch: options.branch },
            },
          });
          const app = await ctx.client.post('/projects/{projectId}/apps', {
            params: { path: { projectId } },
            body: {
              name: name!,
              gitHost: options.gitHost,
              repository: options.repository,
              branch: options.branch,
              ...(service ? { service } : { fromTemplate: true }),
              ...(options.autoDeploy !== undefined ? { autoDeploy: options.autoDeploy } : {}),
            },
          });
          ctx.out.note(chargeNote(preview));
          if (options.wait) {
            const [first] = await ctx.client.get('/projects/{projectId}/apps/{appId}/deployments', appPath(ctx, app.id));
            if (first) await waitUntilLive(ctx, app, first.id, options.timeout);
            return ctx.out.item(await ctx.client.get('/projects/{projectId}/apps/{appId}', appPath(ctx, app.id)), FIELDS);
          }
          ctx.out.item(app, FIELDS);
          ctx.out.note(`The first deployment is queued: \`cloud apps logs ${app.name} --follow\` shows its build`);
        }),
      ),
    'cloud apps create hello --repository demo-user/hello-node --branch main --from-template --wait',
    'cloud apps create api --repository acme-labs/api -b main -s apps-s-1vcpu-1gb -r fra --internal-port 3000 -e NODE_ENV=production --secret-env-file prod.env',
  );

  examples(
    apps
      .command('update')
      .description('change the deployed branch or whether pushes deploy; a new branch is built by the next deployment')
      .argument('<app>', 'the app’s id or name')
      .option('-b, --branch <branch>', 'another existing branch')
      .option('--auto-deploy', 'pushes to the branch deploy')
      .option('--no-auto-deploy', 'pushes to the branch deploy nothing')
      .action(
        action<{ branch?: string; autoDeploy?: boolean }>(io, async (ctx, [ref], options) => {
          if (options.branch === undefined && options.autoDeploy === undefined) throw new UsageError('Give --branch, --auto-deploy or --no-auto-deploy');
          const { id } = await findApp(ctx, ref!);
          const app = await ctx.client.patch('/projects/{projectId}/apps/{appId}', {
            ...appPath(ctx, id),
            body: {
              ...(options.branch !== undefined ? { branch: options.branch } : {}),
              ...(options.autoDeploy !== undefined ? { autoDeploy: options.autoDeploy } : {}),
            },
          });
          ctx.out.done(`App ${app.name} deploys ${app.branch}; pushes ${app.autoDeploy ? 'deploy' : 'deploy nothing'}`, app);
        }),
      ),
    'cloud apps update hello --branch experiment',
    'cloud apps update hello --no-auto-deploy',
  );

  examples(
    apps
      .command('deploy')
      .description('deploy the head of the app’s branch now')
      .argument('<app>', 'the app’s id or name')
      .option('-w, --wait', 'wait until the deployment is LIVE (a FAILED one ends the wait with its reason)')
      .option('--timeout <seconds>', 'how long --wait waits', '1800')
      .action(
        action<{ wait?: boolean; timeout: string }>(io, async (ctx, [ref], options) => {
          const app = await findApp(ctx, ref!);
          const queued = await ctx.client.post('/projects/{projectId}/apps/{appId}/deployments', appPath(ctx, app.id));
          if (!options.wait) {
            ctx.out.item(queued, DEPLOYMENT_FIELDS);
            ctx.out.note(`Queued; \`cloud apps logs ${app.name} ${queued.id} --follow\` shows its build`);
            return;
          }
          ctx.out.item(await waitUntilLive(ctx, app, queued.id, options.timeout), DEPLOYMENT_FIELDS);
        }),
      ),
    'cloud apps deploy hello',
    'cloud apps deploy hello --wait --timeout 600',
  );

  examples(
    apps
      .command('deployments')
      .description('an app’s deployments, newest first')
      .argument('<app>', 'the app’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const app = await findApp(ctx, ref!);
          ctx.out.list(await ctx.client.get('/projects/{projectId}/apps/{appId}/deployments', appPath(ctx, app.id)), DEPLOYMENT_COLUMNS);
        }),
      ),
    'cloud apps deployments hello',
  );

  examples(
    apps
      .command('logs')
      .description('the build and release log of a deployment (the newest unless one is named)')
      .argument('<app>', 'the app’s id or name')
      .argument('[deployment]', 'the deployment’s id')
      .option('-f, --follow', 'keep printing new lines until the deployment ends; a FAILED one exits 9 with its reason')
      .option('--timeout <seconds>', 'how long --follow follows', '1800')
      .action(
        action<{ follow?: boolean; timeout: string }>(io, async (ctx, [ref, deploymentId], options) => {
          const app = await findApp(ctx, ref!);
          let id = deploymentId;
          if (id === undefined) {
            const [newest] = await ctx.client.get('/projects/{projectId}/apps/{appId}/deployments', appPath(ctx, app.id));
            if (!newest) throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `App ${app.name} has no deployments yet` });
            id = newest.id;
          }
          let printed = 0;
          const print = (d: DeploymentWithLog) => {
            if (ctx.out.json) return;
            for (const entry of d.log.filter((e) => e.seq > printed)) ctx.io.stdout.write(`${entry.at.slice(0, 19).replace('T', ' ')}  ${entry.line}\n`);
            printed = Math.max(printed, ...d.log.map((e) => e.seq));
          };
          if (!options.follow) {
            const deployment = await readDeployment(ctx, app.id, id);
            if (ctx.out.json) return ctx.out.done('', deployment);
            print(deployment);
            ctx.out.note(`Deployment ${deployment.id} is ${deployment.status}${deployment.failureReason ? `: ${deployment.failureReason}` : ''}`);
            return;
          }
          const ended = await ctx.client.waitFor(() => readDeployment(ctx, app.id, id), {
            until: (d) => d.status === 'LIVE' || d.status === 'SUPERSEDED',
            failWhen: (d) => d.status === 'FAILED' && `Deployment ${d.id} of ${app.name} FAILED: ${d.failureReason ?? 'no reason given'}`,
            onPoll: print,
            timeoutMs: timeoutMs(options.timeout, 1800),
            intervalMs: 1000,
          });
          // The read that found it live carries its last lines too.
          print(ended);
          if (ctx.out.json) return ctx.out.done('', ended);
          ctx.out.note(`Deployment ${ended.id} is ${ended.status}`);
        }),
      ),
    'cloud apps logs hello',
    'cloud apps logs hello dpl_01h… --follow',
  );

  examples(
    apps
      .command('delete')
      .description('delete an app: billing stops (no refund of the month) and queued builds end FAILED')
      .argument('<app>', 'the app’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const app = await findApp(ctx, ref!);
          await confirm(ctx, `Delete app ${app.name} (${app.id})? It stops running and its deployments go with it.`, options.yes);
          const deleted = await ctx.client.delete('/projects/{projectId}/apps/{appId}', appPath(ctx, app.id));
          ctx.out.done(`Deleted app ${app.name}`, deleted);
        }),
      ),
    'cloud apps delete hello --yes',
  );
}

import { z } from 'zod';
import { APP_STATUSES, APP_TYPES, BUILD_STRATEGIES, DEPLOYMENT_STATUSES, DEPLOYMENT_TRIGGERS } from '../../../db/schema/apps';
import { GIT_HOSTS } from '../../../db/schema/gitIntegrations';
import { isoDateTime } from '../../platform/schemas';
import { APP_TEMPLATE_PATHS } from './template';

/**
 * The API's shapes of apps and deployments. A service given in the body follows the template's
 * rules and defaults (template.ts), so an app reads the same whether it came from a file or a form.
 */

export const MAX_INSTANCES = 20;
const MAX_ENV_VARS = 100;
const MAX_COMMAND_LENGTH = 1000;
const MAX_PATH_LENGTH = 255;
const DEFAULT_PUBLIC_PORT = 443;
const DEFAULT_INTERNAL_PORT = 8080;

const NAME_RULE = '1 to 40 lowercase letters, digits and hyphens, starting with a letter';
const NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
const SIZE_PATTERN = /^[a-z0-9][a-z0-9.-]{0,63}$/;
const REGION_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;
/** Full names of every host: `owner/repo`, `workspace/repo`, `group/subgroup/project`. */
const REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;

export const appNameSchema = z
  .string({ error: 'name is required' })
  .regex(NAME_PATTERN, `name must be ${NAME_RULE}`)
  .describe(`${NAME_RULE}; unique among the project's live apps (409 otherwise)`);

export const gitHostSchema = z.enum(GIT_HOSTS, { error: `gitHost must be one of ${GIT_HOSTS.join(', ')}` });

export const repositorySchema = z
  .string({ error: 'repository is required' })
  .max(MAX_PATH_LENGTH, `repository must be at most ${MAX_PATH_LENGTH} characters`)
  .regex(REPOSITORY_PATTERN, 'repository must be the host’s full name: owner/repo, workspace/repo or group/subgroup/project')
  .refine((name) => !name.split('/').some((segment) => segment === '.' || segment === '..'), 'repository must not hold . or .. segments')
  .describe('The repository’s full name on the host: `owner/repo` (git-host-1), `workspace/repo` (git-host-2), `group/subgroup/project` (git-host-3)');

function hasControlCharacter(text: string): boolean {
  return [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);
}

/** What git accepts as a branch name, in short: no spaces, control characters or `~^:?*[\`, no `..`, no leading or trailing `/`. */
export const branchSchema = z
  .string({ error: 'branch is required' })
  .min(1, 'branch is required')
  .max(MAX_PATH_LENGTH, `branch must be at most ${MAX_PATH_LENGTH} characters`)
  .refine(
    (branch) => !/[\s~^:?*[\\]/.test(branch) && !hasControlCharacter(branch) && !branch.includes('..') && !/^[-/]|\/$|\.lock$|\.$/.test(branch),
    'branch is not a valid git branch name',
  )
  .describe('A branch of the repository; it must exist (422 otherwise)');

/** A path that stays inside the repository, `./api/` written as `api`; null when it would leave it. */
export function normaliseRepositoryPath(raw: string): string | null {
  if (raw.includes('\\') || raw.startsWith('/') || hasControlCharacter(raw)) return null;
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return null;
  return segments.length ? segments.join('/') : '.';
}

const repositoryPath = (field: string) =>
  z
    .string()
    .min(1, `${field} must not be empty`)
    .max(MAX_PATH_LENGTH, `${field} must be at most ${MAX_PATH_LENGTH} characters`)
    .refine((raw) => normaliseRepositoryPath(raw) !== null, `${field} must be a relative path inside the repository: no "..", no leading "/", no backslash`)
    .transform((raw) => normaliseRepositoryPath(raw) ?? '.');

const command = (field: string) => z.string().max(MAX_COMMAND_LENGTH, `${field} must be at most ${MAX_COMMAND_LENGTH} characters`).default('');
const port = (field: string) => z.int(`${field} must be a whole number from 0 to 65535`).min(0).max(65535).optional();

const envVarInput = z.object({
  key: z.string().regex(ENV_KEY_PATTERN, 'key must be 1 to 128 upper-case letters, digits and underscores, not starting with a digit'),
  value: z.string().max(10_000, 'value must be at most 10,000 characters'),
  secret: z.boolean().default(false).describe('Sealed at rest and never answered again (reads give null)'),
});

export const serviceInputSchema = z
  .object({
    name: z.string({ error: 'name is required' }).regex(NAME_PATTERN, `name must be ${NAME_RULE}`),
    appType: z.enum(APP_TYPES).default('WEB').describe('WEB serves HTTP, WORKER runs in the background, STATIC serves built files'),
    sourceDir: repositoryPath('sourceDir').default('.').describe('The service’s folder from the repository root; "./api/" is stored as "api"'),
    buildStrategy: z.enum(BUILD_STRATEGIES).default('BUILDPACK').describe('BUILDPACK detects the language; DOCKERFILE builds sourceDir/Dockerfile'),
    buildCommand: command('buildCommand').describe('Empty for the strategy’s default'),
    runCommand: command('runCommand').describe('Empty for the strategy’s default'),
    outputDir: repositoryPath('outputDir').nullable().default(null).describe('Required for STATIC (the folder the build writes the site to); null otherwise'),
    publicPort: port('publicPort').describe(`WEB and STATIC: 1 to 65535, default ${DEFAULT_PUBLIC_PORT}. WORKER: 0 or absent`),
    internalPort: port('internalPort').describe(`WEB and WORKER: 1 to 65535, default ${DEFAULT_INTERNAL_PORT}. STATIC: 0 or absent`),
    instanceSize: z
      .string({ error: 'instanceSize is required' })
      .regex(SIZE_PATTERN, 'instanceSize must be a size slug')
      .describe('An app size slug from GET /v1/catalog/apps/sizes'),
    instances: z.int(`instances must be a whole number from 1 to ${MAX_INSTANCES}`).min(1).max(MAX_INSTANCES).default(1),
    region: z
      .string({ error: 'region is required' })
      .regex(REGION_PATTERN, 'region must be a region slug')
      .describe('A region slug from GET /v1/catalog/apps/regions; the app runs there'),
    autoDeploy: z.boolean().default(true).describe('Whether a push to the branch deploys (the body’s own autoDeploy wins)'),
    envVars: z.array(envVarInput).max(MAX_ENV_VARS, `envVars holds at most ${MAX_ENV_VARS} variables`).default([]),
  })
  .superRefine((service, ctx) => {
    const { appType } = service;
    const problem = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (appType === 'WORKER' && service.publicPort) problem(['publicPort'], 'publicPort must be 0 or absent for a WORKER, which serves no public port');
    if (appType !== 'WORKER' && service.publicPort === 0) problem(['publicPort'], `publicPort must be 1 to 65535 for a ${appType} service`);
    if (appType === 'STATIC' && service.internalPort) problem(['internalPort'], 'internalPort must be 0 or absent for a STATIC service, which runs no process');
    if (appType !== 'STATIC' && service.internalPort === 0) problem(['internalPort'], `internalPort must be 1 to 65535 for a ${appType} service`);
    if (appType === 'STATIC' && service.outputDir === null) problem(['outputDir'], 'outputDir is required for a STATIC service');
    if (appType !== 'STATIC' && service.outputDir !== null) problem(['outputDir'], `outputDir must be null for a ${appType} service`);
    const seen = new Set<string>();
    service.envVars.forEach(({ key }, index) => {
      if (seen.has(key)) problem(['envVars', index, 'key'], `"${key}" is set twice`);
      seen.add(key);
    });
  })
  .transform(({ publicPort, internalPort, ...service }) => ({
    ...service,
    publicPort: service.appType === 'WORKER' ? 0 : (publicPort ?? DEFAULT_PUBLIC_PORT),
    internalPort: service.appType === 'STATIC' ? 0 : (internalPort ?? DEFAULT_INTERNAL_PORT),
  }));
export type ServiceInput = z.output<typeof serviceInputSchema>;

export const createAppInput = z
  .object({
    name: appNameSchema,
    gitHost: gitHostSchema,
    repository: repositorySchema,
    branch: branchSchema,
    fromTemplate: z
      .boolean()
      .default(false)
      .describe(`Take the services and the region from the template at the branch’s head (${APP_TEMPLATE_PATHS.join(' or ')}); leave out service then`),
    service: serviceInputSchema.optional().describe('The one service of the app, required unless fromTemplate is true'),
    autoDeploy: z.boolean().optional().describe('Whether a push to the branch deploys; by default what the service (or every template service) says'),
  })
  .superRefine((input, ctx) => {
    if (input.fromTemplate && input.service) ctx.addIssue({ code: 'custom', path: ['service'], message: 'leave out service when fromTemplate is true' });
    if (!input.fromTemplate && !input.service) ctx.addIssue({ code: 'custom', path: ['service'], message: 'service is required unless fromTemplate is true' });
  });
export type CreateAppInput = z.output<typeof createAppInput>;

export const updateAppInput = z
  .object({
    autoDeploy: z.boolean().optional().describe('Whether pushes to the branch deploy'),
    branch: branchSchema.optional().describe('Another existing branch; the app is not deployed by the change, the next deployment builds it'),
  })
  .refine((input) => input.autoDeploy !== undefined || input.branch !== undefined, 'send autoDeploy, branch or both');
export type UpdateAppInput = z.output<typeof updateAppInput>;

export const previewAppQuery = z.object({
  instanceSize: z.string().regex(SIZE_PATTERN, 'instanceSize must be a size slug').optional().describe('One service of this size…'),
  instances: z
    .int(`instances must be a whole number from 1 to ${MAX_INSTANCES}`)
    .min(1)
    .max(MAX_INSTANCES)
    .optional()
    .describe('…running this many instances (default 1)'),
  gitHost: gitHostSchema.optional().describe('Or the services of the template of this repository and branch'),
  repository: repositorySchema.optional(),
  branch: branchSchema.optional(),
});
export type PreviewAppQuery = z.output<typeof previewAppQuery>;

const envVarSchema = z.object({
  key: z.string(),
  value: z.string().nullable().describe('Null for a secret: its value is never answered after it was set'),
  secret: z.boolean(),
});

export const appServiceSchema = z
  .object({
    name: z.string(),
    appType: z.enum(APP_TYPES),
    sourceDir: z.string(),
    buildStrategy: z.enum(BUILD_STRATEGIES),
    buildCommand: z.string(),
    runCommand: z.string(),
    outputDir: z.string().nullable(),
    publicPort: z.int().describe('0 for a WORKER'),
    internalPort: z.int().describe('0 for a STATIC service'),
    instanceSize: z.string(),
    instances: z.int(),
    envVars: z.array(envVarSchema),
  })
  .meta({ id: 'AppService' });

export const appSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    gitHost: z.enum(GIT_HOSTS),
    repository: z.string(),
    branch: z.string(),
    autoDeploy: z.boolean(),
    region: z.string(),
    status: z
      .enum(APP_STATUSES)
      .describe('SUSPENDED while an invoice stays unpaid past its grace period: deploys are refused (402 PROJECT_SUSPENDED) and pushes deploy nothing'),
    services: z.array(appServiceSchema),
    templatePath: z.string().nullable().describe('The template file the services came from; null when they were given in the body'),
    monthly: z.int().describe('What the app is billed each month, in minor units: Σ size price × instances over its services'),
    liveDeploymentId: z.string().nullable().describe('The deployment serving now; null until one went LIVE'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'App' });
export type AppView = z.infer<typeof appSchema>;

export const deploymentSchema = z
  .object({
    id: z.string(),
    appId: z.string(),
    status: z.enum(DEPLOYMENT_STATUSES).describe('QUEUED → BUILDING → LIVE or FAILED; a LIVE deployment becomes SUPERSEDED when a newer one goes live'),
    trigger: z.enum(DEPLOYMENT_TRIGGERS).describe('CREATE: the app’s first; MANUAL: POST …/deployments; PUSH: a push to the branch with autoDeploy on'),
    branch: z.string(),
    commitSha: z.string().nullable(),
    commitMessage: z.string().nullable(),
    failureReason: z.string().nullable().describe('Why a FAILED deployment failed'),
    createdAt: isoDateTime,
    startedAt: isoDateTime.nullable().describe('When it left the queue and began building'),
    finishedAt: isoDateTime.nullable().describe('When it went LIVE or FAILED'),
  })
  .meta({ id: 'Deployment' });
export type DeploymentView = z.infer<typeof deploymentSchema>;

export const deploymentWithLogSchema = deploymentSchema
  .extend({
    log: z
      .array(z.object({ seq: z.int(), at: isoDateTime, line: z.string() }))
      .describe('The build and release log so far, in order; environment values never appear in it'),
  })
  .meta({ id: 'DeploymentWithLog' });
export type DeploymentWithLogView = z.infer<typeof deploymentWithLogSchema>;

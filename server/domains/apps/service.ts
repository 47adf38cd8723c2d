import { and, desc, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { apps, type StoredAppService } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { GitHost } from '../../../db/schema/gitIntegrations';
import type { Preview } from '../../billing/preview';
import { endBillingItem, previewPurchase, purchaseCreation } from '../../billing/purchases';
import { seal } from '../../platform/encryption/envelope';
import { AppError, invalidField, type FieldErrors } from '../../platform/errors';
import { emit } from '../../platform/events';
import type { GitCommit } from '../../providers/gitHosts/types';
import { watchRepository, type ProjectRepository } from '../integrations';
import { appCatalogue, catalogueProblems, sizeProblems, type AppCatalogue } from './catalogue';
import { appMonthlyPrice } from './pricing';
import { enqueueBuild, failDeployments, queueDeployment } from './queue';
import { branchHead, reachableRepository, releaseRepository } from './repositories';
import { APP_RESOURCE_TYPE, liveApp, pricedApps, toPricedApp, type PricedApp } from './rows';
import type { AppView, CreateAppInput, PreviewAppQuery, ServiceInput, UpdateAppInput } from './schema';
import { APP_TEMPLATE_PATHS, findAppTemplate, type AppTemplateService } from './template';

/** A service as the template or the body gives it: plain env values, its own region and autoDeploy. */
type PlannedService = Omit<StoredAppService, 'envVars'> & {
  region: string;
  autoDeploy: boolean;
  envVars: { key: string; value: string; secret: boolean }[];
};

/** What an app would be made of. */
interface AppPlan {
  services: PlannedService[];
  region: string;
  /** Whether pushes deploy when the body does not say: only when every service asks for it. */
  autoDeploy: boolean;
  templatePath: string | null;
}

export async function listApps(projectId: string): Promise<AppView[]> {
  const db = await getDb();
  const rows = await pricedApps(db)
    .where(and(eq(apps.projectId, projectId), isNull(apps.deletedAt)))
    .orderBy(desc(apps.createdAt), desc(apps.id));
  return rows.map((row) => toAppView(toPricedApp(row)));
}

export async function getApp(projectId: string, appId: string): Promise<AppView> {
  return toAppView(await liveApp(projectId, appId));
}

/**
 * What creating an app would charge now and monthly: one service of `instanceSize` × `instances`,
 * or the services of the template at the head of `branch` (422 on `branch` when there is none or
 * it is invalid, or its sizes or region are not sold).
 */
export async function previewApp(projectId: string, query: PreviewAppQuery): Promise<Preview> {
  const bySize = query.instanceSize !== undefined || query.instances !== undefined;
  const byTemplate = query.gitHost !== undefined || query.repository !== undefined || query.branch !== undefined;
  if (bySize === byTemplate) {
    throw new AppError('VALIDATION_ERROR', 'Preview either instanceSize (with instances) or the template of gitHost, repository and branch', {
      fields: { instanceSize: 'give instanceSize, or gitHost, repository and branch' },
    });
  }
  const catalogue = await appCatalogue();
  if (bySize) {
    if (query.instanceSize === undefined) throw invalidField('instanceSize', 'instanceSize is required with instances');
    const services = [{ instanceSize: query.instanceSize, instances: query.instances ?? 1 }];
    const [problem] = sizeProblems(services, catalogue);
    if (problem) throw invalidField('instanceSize', problem.message);
    return previewPurchase(projectId, appMonthlyPrice(services, catalogue.sizes));
  }
  const { gitHost, repository: fullName, branch } = query;
  const required = (field: string) => invalidField(field, `${field} is required to preview a template`);
  if (gitHost === undefined) throw required('gitHost');
  if (fullName === undefined) throw required('repository');
  if (branch === undefined) throw required('branch');
  const { repository, head } = await repositoryAtBranch(projectId, gitHost, fullName, branch);
  const plan = await templatePlan(repository, head, 'branch');
  assertSellable(plan, catalogue, 'branch');
  return previewPurchase(projectId, appMonthlyPrice(plan.services, catalogue.sizes));
}

/**
 * Buys an app. Before anything is charged: the repository and branch must be reachable with the
 * project's connection (422 naming the field), the services (from the body or the template at the
 * branch's head) must be sold in the region (422), and the name free in the project (409). Then
 * the billing engine charges the prorated monthly price, the repository's push webhook is
 * registered (a host failure refunds the charge and answers its error), and the app, its billing
 * item and its first deployment are written in one transaction; the build job follows.
 */
export async function createApp(projectId: string, actorUserId: string, input: CreateAppInput): Promise<AppView> {
  const { repository, head } = await repositoryAtBranch(projectId, input.gitHost, input.repository, input.branch);
  const plan = input.fromTemplate ? await templatePlan(repository, head, 'fromTemplate') : servicePlan(input.service!);
  const catalogue = await appCatalogue();
  assertSellable(plan, catalogue, 'fromTemplate');
  const db = await getDb();
  await assertNameFree(db, projectId, input.name);
  const appId = newId('app');
  const monthly = appMonthlyPrice(plan.services, catalogue.sizes);
  const autoDeploy = input.autoDeploy ?? plan.autoDeploy;
  try {
    const { result } = await purchaseCreation({
      projectId,
      actorUserId,
      resourceType: APP_RESOURCE_TYPE,
      resourceKey: input.name,
      category: 'apps',
      description: `App ${input.name} (${plan.services.map((s) => `${s.name}: ${s.instances} × ${s.instanceSize}`).join(', ')}, ${plan.region})`,
      monthly,
      assertAvailable: (tx) => assertNameFree(tx, projectId, input.name),
      // No undo: a webhook whose repository no app builds queues nothing, and another app of the
      // project may already rely on it. Deleting the last app of the repository removes it.
      provision: () => watchRepository(projectId, repository.host, repository.fullName),
      fulfil: async (tx, { billingItemId }) => {
        const [app] = await tx
          .insert(apps)
          .values({
            id: appId,
            projectId,
            name: input.name,
            region: plan.region,
            gitHost: repository.host,
            repository: repository.fullName,
            branch: input.branch,
            autoDeploy,
            services: plan.services.map((service) => storedService(service, appId)),
            templatePath: plan.templatePath,
            billingItemId,
            createdBy: actorUserId,
          })
          .returning();
        await emit(tx, projectId, 'app.created', {
          appId,
          name: input.name,
          gitHost: repository.host,
          repository: repository.fullName,
          branch: input.branch,
          region: plan.region,
          services: plan.services.map((s) => s.name),
          monthly,
          by: actorUserId,
        });
        await queueDeployment(tx, app!, { trigger: 'CREATE', commit: head, createdBy: actorUserId });
        return { resourceId: appId, result: app! };
      },
    });
    await enqueueBuild(appId);
    return toAppView({ app: result, monthly });
  } catch (err) {
    if (isUniqueViolation(err, 'apps_project_name_key')) throw nameTaken(input.name);
    throw err;
  }
}

/** Changes the deployed branch (it must exist; nothing is deployed until the next deployment) and whether pushes deploy. */
export async function updateApp(projectId: string, appId: string, actorUserId: string, input: UpdateAppInput): Promise<AppView> {
  const { app, monthly } = await liveApp(projectId, appId);
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (input.branch !== undefined && input.branch !== app.branch) {
    await repositoryAtBranch(projectId, app.gitHost, app.repository, input.branch);
    changes.branch = { from: app.branch, to: input.branch };
  }
  if (input.autoDeploy !== undefined && input.autoDeploy !== app.autoDeploy) changes.autoDeploy = { from: app.autoDeploy, to: input.autoDeploy };
  if (Object.keys(changes).length === 0) return toAppView({ app, monthly });
  const db = await getDb();
  const saved = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(apps)
      .set({ branch: input.branch ?? app.branch, autoDeploy: input.autoDeploy ?? app.autoDeploy, updatedAt: new Date() })
      .where(and(eq(apps.id, app.id), isNull(apps.deletedAt)))
      .returning();
    if (!row) throw new AppError('NOT_FOUND', 'App not found');
    await emit(tx, projectId, 'app.updated', { appId, name: app.name, changes, by: actorUserId });
    return row;
  });
  return toAppView({ app: saved, monthly });
}

/**
 * Deletes an app: billing stops (no refund of the month), its queued and building deployments end
 * FAILED, and the row is kept, marked deleted, so its deployments and charges keep their subject.
 * The repository's push webhook goes when no other live app of the project builds it.
 */
export async function deleteApp(projectId: string, appId: string, actorUserId: string): Promise<void> {
  const { app } = await liveApp(projectId, appId);
  const now = new Date();
  const db = await getDb();
  const deleted = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(apps)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(apps.id, app.id), isNull(apps.deletedAt)))
      .returning();
    if (!row) return false;
    await endBillingItem(tx, projectId, APP_RESOURCE_TYPE, app.id, now);
    await failDeployments(tx, row, ['QUEUED', 'BUILDING'], 'app deleted', now);
    await emit(tx, projectId, 'app.deleted', { appId, name: app.name, by: actorUserId });
    return true;
  });
  if (deleted) await releaseRepository(projectId, app.gitHost, app.repository);
}

/** The distinct repositories the project's live apps build on `host`. */
export async function appRepositories(projectId: string, host: GitHost): Promise<string[]> {
  const db = await getDb();
  const rows = await db
    .selectDistinct({ repository: apps.repository })
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.gitHost, host), isNull(apps.deletedAt)))
    .orderBy(apps.repository);
  return rows.map((row) => row.repository);
}

/** The repository and its branch's head commit, each 422 naming its field when the project's connection cannot reach it. */
async function repositoryAtBranch(
  projectId: string,
  host: GitHost,
  fullName: string,
  branch: string,
): Promise<{ repository: ProjectRepository; head: GitCommit }> {
  const repository = await reachableRepository(projectId, host, fullName);
  if (!repository) throw invalidField('repository', `${fullName} was not found on ${host}, or the project's connection does not reach it`);
  const head = await branchHead(repository, branch);
  if (!head) throw invalidField('branch', `${repository.fullName} has no branch "${branch}"`);
  return { repository, head };
}

/** The services of the template at the commit; 422 on `field` carrying the template's own error. */
async function templatePlan(repository: ProjectRepository, head: GitCommit, field: string): Promise<AppPlan> {
  const template = await findAppTemplate((path) => repository.readFile(path, head.sha));
  if (!template.found) {
    throw invalidField(field, `${repository.fullName} has no template (${APP_TEMPLATE_PATHS.join(' or ')}) at ${head.sha.slice(0, 7)}`);
  }
  if (!template.valid) throw invalidField(field, `${template.path}: ${template.error}`);
  return {
    services: template.services.map(plannedService),
    region: template.services[0]!.region,
    autoDeploy: template.services.every((s) => s.autoDeploy),
    templatePath: template.path,
  };
}

function servicePlan(service: ServiceInput): AppPlan {
  return { services: [plannedService(service)], region: service.region, autoDeploy: service.autoDeploy, templatePath: null };
}

function plannedService(service: AppTemplateService | ServiceInput): PlannedService {
  return {
    name: service.name,
    appType: service.appType,
    sourceDir: service.sourceDir,
    buildStrategy: service.buildStrategy,
    buildCommand: service.buildCommand,
    runCommand: service.runCommand,
    outputDir: service.outputDir,
    publicPort: service.publicPort,
    internalPort: service.internalPort,
    instanceSize: service.instanceSize,
    instances: service.instances,
    region: service.region,
    autoDeploy: service.autoDeploy,
    envVars: service.envVars.map(({ key, value, secret }) => ({ key, value, secret: secret ?? false })),
  };
}

/**
 * 422 when a size or the region is not sold: on `service.instanceSize` / `service.region`, or on
 * `templateField` (the input that asked for the template) naming the template's field.
 */
function assertSellable(plan: AppPlan, catalogue: AppCatalogue, templateField: string): void {
  const problems = catalogueProblems(plan.services, plan.region, catalogue);
  if (problems.length === 0) return;
  const fields: FieldErrors = {};
  const messages = problems.map(({ at, message }) => {
    if (plan.templatePath === null) {
      const field = `service.${at[0] === 'region' ? 'region' : 'instanceSize'}`;
      fields[field] = message;
      return `${field}: ${message}`;
    }
    const inFile = at[0] === 'region' ? 'services[0].region' : `services[${at[0]}].instanceSize`;
    return `${plan.templatePath} ${inFile}: ${message}`;
  });
  if (plan.templatePath !== null) fields[templateField] = messages.join('; ');
  throw new AppError('VALIDATION_ERROR', messages.join('; '), { fields });
}

/** A secret's value is sealed to the app, so it can be opened only for the app's own builds. */
function storedService({ region: _region, autoDeploy: _autoDeploy, ...service }: PlannedService, appId: string): StoredAppService {
  return { ...service, envVars: service.envVars.map((v) => ({ key: v.key, secret: v.secret, value: v.secret ? seal(v.value, appId) : v.value })) };
}

async function assertNameFree(db: DbOrTx, projectId: string, name: string): Promise<void> {
  const [clash] = await db
    .select({ id: apps.id })
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, name), isNull(apps.deletedAt)));
  if (clash) throw nameTaken(name);
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `An app named "${name}" already exists in this project`, { fields: { name: 'already used by another app of this project' } });
}

export function toAppView({ app, monthly }: PricedApp): AppView {
  return {
    id: app.id,
    projectId: app.projectId,
    name: app.name,
    gitHost: app.gitHost,
    repository: app.repository,
    branch: app.branch,
    autoDeploy: app.autoDeploy,
    region: app.region,
    status: app.status,
    services: app.services.map((service) => ({
      ...service,
      envVars: service.envVars.map((v) => ({ key: v.key, secret: v.secret, value: v.secret ? null : v.value })),
    })),
    templatePath: app.templatePath,
    monthly,
    liveDeploymentId: app.liveDeploymentId,
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

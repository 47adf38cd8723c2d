import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { GIT_HOSTS } from './gitIntegrations';
import { projects } from './projects';

export const APP_TYPES = ['WEB', 'WORKER', 'STATIC'] as const;
export type AppType = (typeof APP_TYPES)[number];
export const BUILD_STRATEGIES = ['BUILDPACK', 'DOCKERFILE'] as const;
export type BuildStrategy = (typeof BUILD_STRATEGIES)[number];
export const APP_STATUSES = ['ACTIVE', 'SUSPENDED'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];
/** QUEUED → BUILDING → LIVE | FAILED; a LIVE deployment becomes SUPERSEDED when a newer one goes live. */
export const DEPLOYMENT_STATUSES = ['QUEUED', 'BUILDING', 'LIVE', 'FAILED', 'SUPERSEDED'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
export const DEPLOYMENT_TRIGGERS = ['CREATE', 'MANUAL', 'PUSH'] as const;
export type DeploymentTrigger = (typeof DEPLOYMENT_TRIGGERS)[number];

/** One environment variable of a service as stored: a secret's value is sealed, bound to the app id. */
export interface StoredEnvVar {
  key: string;
  /** Plain text, or the sealed value when `secret`. */
  value: string;
  secret: boolean;
}

/** A service of an app as stored (the template's service shape; the app holds the region). */
export interface StoredAppService {
  name: string;
  appType: AppType;
  /** From the repository root, `.` for the root itself. */
  sourceDir: string;
  buildStrategy: BuildStrategy;
  /** Empty: the strategy's default. */
  buildCommand: string;
  /** Empty: the strategy's default. */
  runCommand: string;
  /** STATIC only: the folder the build writes the site to. */
  outputDir: string | null;
  /** The port served to the internet; 0 for a service that serves none (WORKER). */
  publicPort: number;
  /** The port the process listens on inside the app; 0 for none. */
  internalPort: number;
  instanceSize: string;
  instances: number;
  envVars: StoredEnvVar[];
}

/**
 * An app: a repository branch of a connected git host, built and run as one or more services in a
 * region. Billed monthly for its services' instances; deleted apps keep their row (`deletedAt`) so
 * deployments and charges keep their subject.
 */
export const apps = pgTable(
  'apps',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    region: text('region').notNull(),
    gitHost: text('git_host', { enum: GIT_HOSTS }).notNull(),
    /** The host's full name: `owner/repo`, `workspace/repo`, or `group/subgroup/project`. */
    repository: text('repository').notNull(),
    branch: text('branch').notNull(),
    autoDeploy: boolean('auto_deploy').notNull().default(true),
    services: jsonb('services').$type<StoredAppService[]>().notNull(),
    /** The template file the services came from, when they did. */
    templatePath: text('template_path'),
    status: text('status', { enum: APP_STATUSES }).notNull().default('ACTIVE'),
    billingItemId: text('billing_item_id').notNull(),
    liveDeploymentId: text('live_deployment_id'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('apps_project_name_key')
      .on(t.projectId, sql`lower(${t.name})`)
      .where(sql`${t.deletedAt} is null`),
    index('apps_repository_idx').on(t.gitHost, sql`lower(${t.repository})`, t.branch),
  ],
);

export const deployments = pgTable(
  'deployments',
  {
    id: text('id').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    status: text('status', { enum: DEPLOYMENT_STATUSES }).notNull().default('QUEUED'),
    trigger: text('trigger', { enum: DEPLOYMENT_TRIGGERS }).notNull(),
    branch: text('branch').notNull(),
    commitSha: text('commit_sha'),
    commitMessage: text('commit_message'),
    /** The host's delivery id of the push event that triggered it. */
    deliveryId: text('delivery_id'),
    /** Where the build read the source when it is not the repository itself (a deployment copy). */
    sourceCopy: text('source_copy'),
    failureReason: text('failure_reason'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('deployments_app_idx').on(t.appId, t.createdAt)],
);

/** The build and release log of a deployment, a line a row in order. */
export const deploymentLogLines = pgTable(
  'deployment_log_lines',
  {
    deploymentId: text('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    line: text('line').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deploymentId, t.seq] })],
);

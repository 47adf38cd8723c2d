import { z } from 'zod';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import type { ErrorCode } from '../../platform/errors';
import { areaMeta, pathParam, projectProcedure, router } from '../../platform/trpc';
import { previewSchema } from '../billing';
import * as deployments from './deployments';
import * as docs from './docs';
import { appSchema, createAppInput, deploymentSchema, deploymentWithLogSchema, previewAppQuery, updateAppInput } from './schema';
import * as apps from './service';

const BASE = '/projects/{projectId}/apps';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const appRef = { ...projectRef, appId: pathParam('appId').describe('The app’s id') };
const deploymentRef = { ...appRef, deploymentId: pathParam('deploymentId').describe('The deployment’s id') };

/** What reading a repository through the project's git connection can answer. */
const GIT_ERRORS: readonly ErrorCode[] = ['GIT_HOST_NOT_CONNECTED', 'GIT_CREDENTIAL_INVALID', 'UPSTREAM_ERROR'];

const { read, write } = areaMeta({
  tags: ['Apps'],
  read: { scopes: ['apps:read'], role: 'viewer' },
  write: { scopes: ['apps:read', 'apps:write'], role: 'member' },
});

// The static /apps/preview comes before /apps/{appId}, which would otherwise take it.
export const appsRouter = router({
  list: projectProcedure
    .meta(read(BASE, 'List apps', docs.LIST))
    .input(z.object(projectRef))
    .output(z.array(appSchema))
    .query(({ ctx }) => apps.listApps(ctx.project.id)),

  preview: projectProcedure
    .meta(read(`${BASE}/preview`, 'Preview the charge of an app', docs.PREVIEW, GIT_ERRORS))
    .input(z.object({ ...projectRef, ...previewAppQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => {
      const { projectId: _projectRef, ...query } = input;
      return apps.previewApp(ctx.project.id, query);
    }),

  create: projectProcedure
    .meta({ ...write('POST', BASE, 'Create an app', docs.CREATE, [...PURCHASE_ERRORS, ...GIT_ERRORS]), successStatus: 201 })
    .input(createAppInput.extend(projectRef))
    .output(appSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectRef, ...app } = input;
      return apps.createApp(ctx.project.id, ctx.actor.userId, app);
    }),

  get: projectProcedure
    .meta(read(`${BASE}/{appId}`, 'Get an app', docs.GET))
    .input(z.object(appRef))
    .output(appSchema)
    .query(({ ctx, input }) => apps.getApp(ctx.project.id, input.appId)),

  update: projectProcedure
    .meta(write('PATCH', `${BASE}/{appId}`, 'Update an app', docs.UPDATE, GIT_ERRORS))
    .input(updateAppInput.extend(appRef))
    .output(appSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectRef, appId, ...changes } = input;
      return apps.updateApp(ctx.project.id, appId, ctx.actor.userId, changes);
    }),

  delete: projectProcedure
    .meta(write('DELETE', `${BASE}/{appId}`, 'Delete an app', docs.DELETE))
    .input(z.object(appRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await apps.deleteApp(ctx.project.id, input.appId, ctx.actor.userId);
      return { deleted: true as const };
    }),

  deployments: projectProcedure
    .meta(read(`${BASE}/{appId}/deployments`, 'List deployments', docs.LIST_DEPLOYMENTS))
    .input(z.object(appRef))
    .output(z.array(deploymentSchema))
    .query(({ ctx, input }) => deployments.listDeployments(ctx.project.id, input.appId)),

  deploy: projectProcedure
    .meta({
      ...write('POST', `${BASE}/{appId}/deployments`, 'Deploy the branch’s head', docs.DEPLOY, ['PROJECT_SUSPENDED', 'CONFLICT', ...GIT_ERRORS]),
      successStatus: 202,
    })
    .input(z.object(appRef))
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => deployments.deployManually(ctx.project.id, input.appId, ctx.actor.userId)),

  deployment: projectProcedure
    .meta(read(`${BASE}/{appId}/deployments/{deploymentId}`, 'Get a deployment', docs.GET_DEPLOYMENT))
    .input(z.object(deploymentRef))
    .output(deploymentWithLogSchema)
    .query(({ ctx, input }) => deployments.getDeployment(ctx.project.id, input.appId, input.deploymentId)),
});

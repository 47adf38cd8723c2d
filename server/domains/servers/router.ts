import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema } from '../billing';
import { CREATE_SERVER, DELETE_SERVER, GET_SERVER, LIST_SERVERS, PREVIEW_SERVER, RENAME_SERVER, SERVER_ACTION } from './docs';
import { createServerInput, renameServerInput, serverActionInput, serverPreviewQuery, serverSchema, serverWithKeysSchema } from './schema';
import * as servers from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['Servers'];
const READ: Scope[] = ['servers:read'];
const WRITE: Scope[] = ['servers:read', 'servers:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const serverRef = { ...projectRef, serverId: pathParam('serverId') };

// The static /servers/preview is declared before /servers/{serverId}, which would otherwise swallow it.
export const serversRouter = router({
  list: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/servers',
        tags: TAGS,
        summary: 'List servers',
        description: LIST_SERVERS,
      },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.array(serverSchema))
    .query(({ ctx }) => servers.listServers(ctx.project.id)),

  create: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/servers',
        tags: TAGS,
        summary: 'Create a server',
        description: CREATE_SERVER,
      },
      scopes: WRITE,
      role: 'member',
      errors: PURCHASE_ERRORS,
    })
    .input(z.object({ ...projectRef, ...createServerInput.shape }))
    .output(z.object({ deployed: z.literal(true) }))
    .mutation(({ ctx, input }) =>
      servers.createServer({
        projectId: ctx.project.id,
        actorUserId: ctx.actor.userId,
        name: input.name,
        sizeSlug: input.slug,
        region: input.region,
        sshKeyIds: input.sshKeyIds,
      }),
    ),

  preview: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/servers/preview',
        tags: TAGS,
        summary: 'Preview the charge of a server',
        description: PREVIEW_SERVER,
      },
      scopes: READ,
      role: 'viewer',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, ...serverPreviewQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => servers.previewServer(ctx.project.id, input.slug)),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/servers/{serverId}', tags: TAGS, summary: 'Get a server', description: GET_SERVER },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(serverRef))
    .output(serverWithKeysSchema)
    .query(({ ctx, input }) => servers.getServer(ctx.project.id, input.serverId)),

  rename: projectProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/projects/{projectId}/servers/{serverId}',
        tags: TAGS,
        summary: 'Rename a server',
        description: RENAME_SERVER,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...serverRef, ...renameServerInput.shape }))
    .output(serverSchema)
    .mutation(({ ctx, input }) => servers.renameServer(ctx.project.id, input.serverId, ctx.actor.userId, input.name)),

  delete: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/servers/{serverId}',
        tags: TAGS,
        summary: 'Delete a server',
        description: DELETE_SERVER,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object(serverRef))
    .output(z.object({}))
    .mutation(async ({ ctx, input }) => {
      await servers.deleteServer(ctx.project.id, input.serverId, ctx.actor.userId);
      return {};
    }),

  action: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/servers/{serverId}/actions',
        tags: TAGS,
        summary: 'Power action',
        description: SERVER_ACTION,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['CONFLICT', 'PROJECT_SUSPENDED', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...serverRef, ...serverActionInput.shape }))
    .output(serverSchema)
    .mutation(({ ctx, input }) => servers.performServerAction(ctx.project.id, input.serverId, ctx.actor.userId, input.action)),
});

import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { previewSchema } from '../billing';
import { createServerInput, renameServerInput, serverActionInput, serverPreviewQuery, serverSchema, serverWithKeysSchema } from './schema';
import * as servers from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['Servers'];
const READ: Scope[] = ['servers:read'];
const WRITE: Scope[] = ['servers:read', 'servers:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const serverRef = { ...projectRef, serverId: pathParam('serverId') };
const UPSTREAM = '502 UPSTREAM_ERROR when the infrastructure provider fails.';

// The static /servers/preview is declared before /servers/{serverId}, which would otherwise swallow it.
export const serversRouter = router({
  list: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/servers',
        tags: TAGS,
        summary: 'List servers',
        description: 'Live servers, newest first; deleted ones are omitted. PROVISIONING servers are reconciled with the provider on read: one whose machine has finished starting (or has applied its power action) turns RUNNING or OFF and gets its address.',
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
        description: `Creates a LAMP server of size \`slug\` in \`region\` (both from the catalogue; the size must be sold in the region and have the disk the LAMP image needs, else 422), trusting the SSH keys \`sshKeyIds\` (unknown ids are 422). The name must be free among the project's live servers (409, checked before any charge). Charges the project's saved card the prorated monthly price, exactly the preview's amount: 402 ORG_PAYMENT_METHOD_REQUIRED / BILLER_PAYMENT_METHOD_REQUIRED without a usable card, 402 CARD_DECLINED, 402 PROJECT_BLOCKED. Transactional: a failure at any step leaves no server and no charge. The server starts PROVISIONING. ${UPSTREAM}`,
      },
      scopes: WRITE,
      role: 'member',
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
        description: 'What creating a server of size `slug` would charge now (prorated to the end of the month) and monthly after. 404 NOT_FOUND for a size the catalogue does not have.',
      },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object({ ...projectRef, ...serverPreviewQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => servers.previewServer(ctx.project.id, input.slug)),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/servers/{serverId}', tags: TAGS, summary: 'Get a server', description: 'With the SSH keys it was created with. Reconciled like the list.' },
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
        description: `Renamed at the provider first, then here, so a provider failure leaves the old name on both sides. 409 when the name is taken or the server is being deleted. ${UPSTREAM}`,
      },
      scopes: WRITE,
      role: 'member',
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
        description: `Destroys the machine and its data (unrecoverable) and stops billing. When the provider fails the answer is 502, the server stays listed with its status, and the call can simply be repeated. ${UPSTREAM}`,
      },
      scopes: WRITE,
      role: 'member',
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
        description: `power_on fits an OFF server; power_off, shutdown and reboot fit a RUNNING one; power_cycle fits both. A fitting action is sent and the server answers PROVISIONING until it has been applied (read it again to see where it lands: RUNNING, or OFF after power_off and shutdown). An action that does not fit, or any action while the server is PROVISIONING, is 409 CONFLICT and nothing changes. ${UPSTREAM}`,
      },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object({ ...serverRef, ...serverActionInput.shape }))
    .output(serverSchema)
    .mutation(({ ctx, input }) => servers.performServerAction(ctx.project.id, input.serverId, ctx.actor.userId, input.action)),
});

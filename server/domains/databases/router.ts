import { z } from 'zod';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema, tierChangePreviewSchema } from '../../billing/previewSchema';
import { areaMeta, pathParam, projectProcedure, router } from '../../platform/trpc';
import * as docs from './docs';
import { clusterSchema, createTenantInput, pricesSchema, tenantSchema, tierSchema } from './schema';
import * as tenants from './tenants';

const BASE = '/projects/{projectId}/databases/shared';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const tenantRef = { ...projectRef, tenantId: pathParam('tenantId').describe('The tenant’s id') };

// SPEC: these endpoints take a panel session and project membership only; no API key scope reaches them.
const { read, write } = areaMeta({
  tags: ['Shared PostgreSQL'],
  read: { role: 'viewer', sessionOnly: true },
  write: { role: 'member', sessionOnly: true },
});

// Static /prices, /availability and /preview come before /{tenantId}, which would otherwise take them.
export const databasesRouter = router({
  list: projectProcedure
    .meta(read(BASE, 'List shared PostgreSQL databases', docs.LIST))
    .input(z.object(projectRef))
    .output(z.array(tenantSchema))
    .query(({ ctx }) => tenants.listTenants(ctx.project.id)),

  prices: projectProcedure
    .meta(read(`${BASE}/prices`, 'Shared PostgreSQL prices', docs.PRICES))
    .input(z.object(projectRef))
    .output(pricesSchema)
    .query(() => tenants.prices()),

  availability: projectProcedure
    .meta(read(`${BASE}/availability`, 'Whether shared PostgreSQL can be created', docs.AVAILABILITY))
    .input(z.object(projectRef))
    .output(clusterSchema)
    .query(() => tenants.availability()),

  preview: projectProcedure
    .meta(read(`${BASE}/preview`, 'Preview the charge of a database', docs.PREVIEW, ['UPSTREAM_ERROR']))
    .input(z.object({ ...projectRef, tier: tierSchema.default('STARTER') }))
    .output(previewSchema)
    .query(({ ctx, input }) => tenants.previewTenant(ctx.project.id, input.tier)),

  create: projectProcedure
    .meta(write('POST', BASE, 'Create a shared PostgreSQL database', docs.CREATE, [...PURCHASE_ERRORS, 'SERVICE_UNAVAILABLE']))
    .input(z.object({ ...projectRef, ...createTenantInput.shape }))
    .output(tenantSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectId, ...tenant } = input;
      return tenants.createTenant(ctx.project.id, ctx.actor.userId, tenant);
    }),

  get: projectProcedure
    .meta(read(`${BASE}/{tenantId}`, 'Get a shared PostgreSQL database', docs.GET))
    .input(z.object(tenantRef))
    .output(tenantSchema)
    .query(({ ctx, input }) => tenants.getTenant(ctx.project.id, input.tenantId)),

  rotatePassword: projectProcedure
    .meta(write('POST', `${BASE}/{tenantId}/rotate-password`, 'Rotate the password', docs.ROTATE, ['UPSTREAM_ERROR']))
    .input(z.object(tenantRef))
    .output(tenantSchema)
    .mutation(({ ctx, input }) => tenants.rotatePassword(ctx.project.id, input.tenantId, ctx.actor.userId)),

  tierPreview: projectProcedure
    .meta(read(`${BASE}/{tenantId}/tier-preview`, 'Preview a tier change', docs.TIER_PREVIEW, ['UPSTREAM_ERROR']))
    .input(z.object({ ...tenantRef, tier: tierSchema }))
    .output(tierChangePreviewSchema)
    .query(({ ctx, input }) => tenants.previewTierChange(ctx.project.id, input.tenantId, input.tier)),

  changeTier: projectProcedure
    .meta(write('PATCH', `${BASE}/{tenantId}/tier`, 'Change the tier', docs.CHANGE_TIER, [...PURCHASE_ERRORS]))
    .input(z.object({ ...tenantRef, tier: tierSchema }))
    .output(tenantSchema)
    .mutation(({ ctx, input }) => tenants.changeTier(ctx.project.id, input.tenantId, ctx.actor.userId, input.tier)),

  delete: projectProcedure
    .meta(write('DELETE', `${BASE}/{tenantId}`, 'Delete a shared PostgreSQL database', docs.DELETE, ['UPSTREAM_ERROR']))
    .input(z.object(tenantRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await tenants.deleteTenant(ctx.project.id, input.tenantId, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

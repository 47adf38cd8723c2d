import { z } from 'zod';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema, tierChangePreviewSchema } from '../../billing/previewSchema';
import { areaMeta, pathParam, projectProcedure, router } from '../../platform/trpc';
import * as databases from './databases';
import * as docs from './docs';
import * as domains from './hostingDomains';
import {
  accessSchema,
  createdSiteSchema,
  createSiteInput,
  databaseNameSchema,
  dnsInstructionsSchema,
  featuresSchema,
  hostingDatabaseSchema,
  hostingDatabaseWithPasswordSchema,
  hostingDomainSchema,
  previewQuery,
  pricesSchema,
  siteSchema,
  tierSchema,
} from './schema';
import * as sites from './sites';

const { read, write } = areaMeta({
  tags: ['Hosting'],
  read: { scopes: ['hosting:read'], role: 'viewer' },
  write: { scopes: ['hosting:read', 'hosting:write'], role: 'member' },
});
export const HOSTING_BASE = '/projects/{projectId}/hosting/shared';
const BASE = HOSTING_BASE;
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const siteRef = { ...projectRef, tenantId: pathParam('tenantId').describe('The site’s id') };
const deleted = z.object({ deleted: z.literal(true) });

const behaviourInput = {
  kind: z.enum(['SITE', 'REDIRECT', 'PARKED'], { error: 'kind must be SITE, REDIRECT or PARKED' }).optional(),
  path: z.string().max(1024).optional().describe('SITE only: the folder served, relative to the home'),
  redirectTarget: z.string().max(2048).optional().describe('REDIRECT only, required: a full http(s) address without a query'),
  redirectStatus: z.number().int().optional().describe('REDIRECT only: 301 (default) or 302'),
};

// Static /prices, /features and /preview come before /{tenantId}, which would otherwise take them.
export const hostingRouter = router({
  list: projectProcedure
    .meta(read(BASE, 'List hosting sites', docs.LIST_SITES))
    .input(z.object(projectRef))
    .output(z.array(siteSchema))
    .query(({ ctx }) => sites.listSites(ctx.project.id)),

  prices: projectProcedure
    .meta(read(`${BASE}/prices`, 'Hosting prices', docs.PRICES))
    .input(z.object(projectRef))
    .output(pricesSchema)
    .query(() => sites.prices()),

  features: projectProcedure
    .meta(read(`${BASE}/features`, 'Hosting features', docs.FEATURES))
    .input(z.object(projectRef))
    .output(featuresSchema)
    .query(() => sites.features()),

  preview: projectProcedure
    .meta(read(`${BASE}/preview`, 'Preview the charge of a site', docs.PREVIEW, ['UPSTREAM_ERROR']))
    .input(z.object({ ...projectRef, ...previewQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => sites.previewSite(ctx.project.id, input.tier, input.extraStorageGb)),

  create: projectProcedure
    .meta(write('POST', BASE, 'Create a hosting site', docs.CREATE_SITE, [...PURCHASE_ERRORS]))
    .input(z.object({ ...projectRef, ...createSiteInput.shape }))
    .output(createdSiteSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectId, ...site } = input;
      return sites.createSite(ctx.project.id, ctx.actor.userId, site);
    }),

  get: projectProcedure
    .meta(read(`${BASE}/{tenantId}`, 'Get a hosting site', docs.GET_SITE))
    .input(z.object({ ...siteRef, credentials: z.enum(['true', 'false']).optional().describe('true: include sftpPassword') }))
    .output(siteSchema)
    .query(({ ctx, input }) => sites.getSite(ctx.project.id, input.tenantId, input.credentials === 'true')),

  access: projectProcedure
    .meta(read(`${BASE}/{tenantId}/access`, 'SFTP access to a site', docs.SITE_ACCESS))
    .input(z.object(siteRef))
    .output(accessSchema)
    .query(async ({ ctx, input }) => sites.siteAccess(await sites.liveSite(ctx.project.id, input.tenantId))),

  tierPreview: projectProcedure
    .meta(read(`${BASE}/{tenantId}/tier-preview`, 'Preview a tier change', docs.TIER_PREVIEW, ['UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, tier: tierSchema }))
    .output(tierChangePreviewSchema)
    .query(({ ctx, input }) => sites.previewTierChange(ctx.project.id, input.tenantId, input.tier)),

  changeTier: projectProcedure
    .meta(write('PATCH', `${BASE}/{tenantId}/tier`, 'Change the tier of a site', docs.CHANGE_TIER, [...PURCHASE_ERRORS]))
    .input(z.object({ ...siteRef, tier: tierSchema }))
    .output(siteSchema)
    .mutation(({ ctx, input }) => sites.changeTier(ctx.project.id, input.tenantId, ctx.actor.userId, input.tier)),

  delete: projectProcedure
    .meta(write('DELETE', `${BASE}/{tenantId}`, 'Delete a hosting site', docs.DELETE_SITE, ['UPSTREAM_ERROR']))
    .input(z.object(siteRef))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      await sites.deleteSite(ctx.project.id, input.tenantId, ctx.actor.userId);
      return { deleted: true as const };
    }),

  listDomains: projectProcedure
    .meta(read(`${BASE}/{tenantId}/domains`, 'List a site’s domains', docs.LIST_DOMAINS))
    .input(z.object(siteRef))
    .output(z.array(hostingDomainSchema))
    .query(async ({ ctx, input }) => domains.listDomains(await sites.liveSite(ctx.project.id, input.tenantId))),

  attachDomain: projectProcedure
    .meta(write('POST', `${BASE}/{tenantId}/domains`, 'Attach a domain', docs.ATTACH_DOMAIN, ['BAD_REQUEST', 'CONFLICT', 'UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, hostname: z.string().min(1, 'hostname is required').max(253), ...behaviourInput }))
    .output(
      z.object({
        domainId: z.string(),
        hostname: z.string(),
        instructions: dnsInstructionsSchema,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { projectId: _projectId, tenantId, ...domain } = input;
      return domains.attachDomain(await sites.liveSite(ctx.project.id, tenantId), domain, ctx.actor.userId);
    }),

  replaceDomain: projectProcedure
    .meta(write('PATCH', `${BASE}/{tenantId}/domains/{domainId}`, 'Replace a domain’s behaviour', docs.REPLACE_DOMAIN, ['BAD_REQUEST', 'UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, domainId: pathParam('domainId'), ...behaviourInput }))
    .output(hostingDomainSchema)
    .mutation(async ({ ctx, input }) => {
      const { projectId: _projectId, tenantId, domainId, ...behaviour } = input;
      return domains.replaceDomain(await sites.liveSite(ctx.project.id, tenantId), domainId, behaviour, ctx.actor.userId);
    }),

  detachDomain: projectProcedure
    .meta(write('DELETE', `${BASE}/{tenantId}/domains/{domainId}`, 'Detach a domain', docs.DETACH_DOMAIN, ['UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, domainId: pathParam('domainId') }))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      await domains.detachDomain(await sites.liveSite(ctx.project.id, input.tenantId), input.domainId, ctx.actor.userId);
      return { deleted: true as const };
    }),

  listDatabases: projectProcedure
    .meta(read(`${BASE}/{tenantId}/databases`, 'List a site’s databases', docs.LIST_DATABASES))
    .input(z.object(siteRef))
    .output(z.array(hostingDatabaseSchema))
    .query(async ({ ctx, input }) => databases.listDatabases(await sites.liveSite(ctx.project.id, input.tenantId))),

  getDatabase: projectProcedure
    .meta(read(`${BASE}/{tenantId}/databases/{databaseId}`, 'Get a database', docs.GET_DATABASE))
    .input(z.object({ ...siteRef, databaseId: pathParam('databaseId') }))
    .output(hostingDatabaseWithPasswordSchema)
    .query(async ({ ctx, input }) => databases.getDatabase(await sites.liveSite(ctx.project.id, input.tenantId), input.databaseId)),

  createDatabase: projectProcedure
    .meta(write('POST', `${BASE}/{tenantId}/databases`, 'Create a database', docs.CREATE_DATABASE, ['BAD_REQUEST', 'CONFLICT', 'UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, name: databaseNameSchema }))
    .output(hostingDatabaseWithPasswordSchema)
    .mutation(async ({ ctx, input }) => databases.createDatabase(await sites.liveSite(ctx.project.id, input.tenantId), input.name, ctx.actor.userId)),

  deleteDatabase: projectProcedure
    .meta(write('DELETE', `${BASE}/{tenantId}/databases/{databaseId}`, 'Delete a database', docs.DELETE_DATABASE, ['UPSTREAM_ERROR']))
    .input(z.object({ ...siteRef, databaseId: pathParam('databaseId') }))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      await databases.deleteDatabase(await sites.liveSite(ctx.project.id, input.tenantId), input.databaseId, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { pathParam, projectProcedure, router } from '../../platform/trpc';
import { CONNECT_TOKEN, CREATE_RECORD, DELETE_RECORD, DISCONNECT, DNS_SETTINGS, DNS_STATUS, LIST_RECORDS, LIST_ZONES, REPLACE_RECORD } from './docs';
import { connectTokenInput, dnsProviderStatusSchema, dnsRecordFieldsSchema, dnsRecordSchema, dnsSettingsInput, dnsZoneSchema } from './schema';
import * as integrations from './service';

const TAGS = ['Integrations'];
const READ: Scope[] = ['integrations:read'];
const WRITE: Scope[] = ['integrations:read', 'integrations:write'];
const BASE = '/projects/{projectId}/integrations/dns-provider';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const zoneRef = { ...projectRef, zoneId: pathParam('zoneId') };
const recordRef = { ...zoneRef, recordId: pathParam('recordId') };
const CONNECTION_ERRORS = ['DNS_PROVIDER_NOT_CONNECTED', 'DNS_CREDENTIAL_INVALID', 'UPSTREAM_ERROR'] as const;

export const dnsProviderRouter = router({
  status: projectProcedure
    .meta({ openapi: { method: 'GET', path: BASE, tags: TAGS, summary: 'DNS provider connection', description: DNS_STATUS }, scopes: READ, role: 'viewer' })
    .input(z.object(projectRef))
    .output(dnsProviderStatusSchema)
    .query(({ ctx }) => integrations.dnsProviderStatus(ctx.project.id)),

  connectToken: projectProcedure
    .meta({
      openapi: { method: 'POST', path: `${BASE}/connect/token`, tags: TAGS, summary: 'Connect with an API token', description: CONNECT_TOKEN },
      scopes: WRITE,
      role: 'member',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, ...connectTokenInput.shape }))
    .output(dnsProviderStatusSchema)
    .mutation(({ ctx, input }) => integrations.connectWithToken(ctx.project.id, ctx.actor.userId, input.apiToken)),

  settings: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${BASE}/settings`, tags: TAGS, summary: 'DNS provider settings', description: DNS_SETTINGS },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object({ ...projectRef, ...dnsSettingsInput.shape }))
    .output(dnsProviderStatusSchema)
    .mutation(({ ctx, input }) => integrations.updateDnsSettings(ctx.project.id, ctx.actor.userId, input.autoDnsEnabled)),

  disconnect: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: `${BASE}/disconnect`, tags: TAGS, summary: 'Disconnect the DNS provider', description: DISCONNECT },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object(projectRef))
    .output(dnsProviderStatusSchema)
    .mutation(({ ctx }) => integrations.disconnectDnsProvider(ctx.project.id, ctx.actor.userId)),

  zones: projectProcedure
    .meta({
      openapi: { method: 'GET', path: `${BASE}/zones`, tags: TAGS, summary: 'DNS zones', description: LIST_ZONES },
      scopes: READ,
      role: 'viewer',
      errors: CONNECTION_ERRORS,
    })
    .input(z.object(projectRef))
    .output(z.array(dnsZoneSchema))
    .query(({ ctx }) => integrations.listDnsZones(ctx.project.id)),

  records: projectProcedure
    .meta({
      openapi: { method: 'GET', path: `${BASE}/zones/{zoneId}/records`, tags: TAGS, summary: 'DNS records of a zone', description: LIST_RECORDS },
      scopes: READ,
      role: 'viewer',
      errors: CONNECTION_ERRORS,
    })
    .input(z.object(zoneRef))
    .output(z.array(dnsRecordSchema))
    .query(({ ctx, input }) => integrations.listDnsRecords(ctx.project.id, input.zoneId)),

  createRecord: projectProcedure
    .meta({
      openapi: { method: 'POST', path: `${BASE}/zones/{zoneId}/records`, tags: TAGS, summary: 'Create a DNS record', description: CREATE_RECORD },
      scopes: WRITE,
      role: 'member',
      errors: CONNECTION_ERRORS,
    })
    .input(z.object({ ...zoneRef, ...dnsRecordFieldsSchema.shape }))
    .output(dnsRecordSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _project, zoneId, ...record } = input;
      return integrations.createDnsRecord(ctx.project.id, ctx.actor.userId, zoneId, record);
    }),

  replaceRecord: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${BASE}/zones/{zoneId}/records/{recordId}`, tags: TAGS, summary: 'Replace a DNS record', description: REPLACE_RECORD },
      scopes: WRITE,
      role: 'member',
      errors: CONNECTION_ERRORS,
    })
    .input(z.object({ ...recordRef, ...dnsRecordFieldsSchema.shape }))
    .output(dnsRecordSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _project, zoneId, recordId, ...record } = input;
      return integrations.replaceDnsRecord(ctx.project.id, ctx.actor.userId, zoneId, recordId, record);
    }),

  deleteRecord: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: `${BASE}/zones/{zoneId}/records/{recordId}`, tags: TAGS, summary: 'Delete a DNS record', description: DELETE_RECORD },
      scopes: WRITE,
      role: 'member',
      errors: CONNECTION_ERRORS,
    })
    .input(z.object(recordRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await integrations.deleteDnsRecord(ctx.project.id, ctx.actor.userId, input.zoneId, input.recordId);
      return { deleted: true as const };
    }),
});

import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { authedProcedure, pathParam, projectProcedure, router } from '../../platform/trpc';
import { ADD_DOMAIN, CREATE_VERIFICATION_RECORD, GET_DOMAIN, LIST_DOMAINS, REMOVE_DOMAIN, SEARCH_DOMAINS, VERIFY_DOMAIN } from './docs';
import { addDomainInput, createdDomainSchema, domainCandidateSchema, domainSchema, domainSearchQuery, verifyDomainOutput } from './schema';
import * as domains from './service';

const TAGS = ['Domains'];
const READ: Scope[] = ['domains:read'];
const WRITE: Scope[] = ['domains:read', 'domains:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const domainRef = { ...projectRef, domain: pathParam('domain').describe('The domain id, or its name') };

export const domainsRouter = router({
  search: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/domains/search', tags: TAGS, summary: 'Search domain names', description: SEARCH_DOMAINS },
      scopes: READ,
      errors: ['UPSTREAM_ERROR'],
    })
    .input(domainSearchQuery)
    .output(z.array(domainCandidateSchema))
    .query(({ input }) => domains.searchDomains(input.query)),

  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/domains', tags: TAGS, summary: 'List domains', description: LIST_DOMAINS },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.array(domainSchema))
    .query(({ ctx }) => domains.listDomains(ctx.project.id)),

  add: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/domains', tags: TAGS, summary: 'Add an external domain', description: ADD_DOMAIN },
      scopes: WRITE,
      role: 'member',
      errors: ['PROJECT_BLOCKED', 'CONFLICT'],
    })
    .input(z.object({ ...projectRef, ...addDomainInput.shape }))
    .output(createdDomainSchema)
    .mutation(({ ctx, input }) => domains.addDomain(ctx.project.id, ctx.actor.userId, { name: input.name })),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/domains/{domain}', tags: TAGS, summary: 'Get a domain', description: GET_DOMAIN },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(domainRef))
    .output(domainSchema)
    .query(({ ctx, input }) => domains.getDomain(ctx.project.id, input.domain)),

  verify: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/domains/{domain}/verify',
        tags: TAGS,
        summary: 'Verify domain ownership',
        description: VERIFY_DOMAIN,
      },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object(domainRef))
    .output(verifyDomainOutput)
    .mutation(({ ctx, input }) => domains.verifyDomain(ctx.project.id, input.domain, ctx.actor.userId)),

  createVerificationRecord: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/domains/{domain}/verification-record',
        tags: TAGS,
        summary: 'Create the verification record in the connected DNS account',
        description: CREATE_VERIFICATION_RECORD,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['DNS_PROVIDER_NOT_CONNECTED', 'DNS_CREDENTIAL_INVALID', 'UPSTREAM_ERROR'],
    })
    .input(z.object(domainRef))
    .output(domainSchema)
    .mutation(({ ctx, input }) => domains.createVerificationRecord(ctx.project.id, input.domain)),

  remove: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}/domains/{domain}', tags: TAGS, summary: 'Remove a domain', description: REMOVE_DOMAIN },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object(domainRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await domains.removeDomain(ctx.project.id, input.domain, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

import { z } from 'zod';
import { CREATE_PROJECT, DELETE_PROJECT, GET_PROJECT, LIST_PROJECTS, PROJECT_STATS, SET_BILLING_EMAIL } from './docs';
import { billingEmailInput, createProjectInput, projectSchema, renameProjectInput, resourceHistoryEntrySchema } from './schema';
import * as projects from './service';
import { authedProcedure, pathParam, projectProcedure, router } from '../../platform/trpc';

const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const TAGS = ['Projects'];

export const projectsRouter = router({
  list: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects', tags: TAGS, summary: 'List projects', description: LIST_PROJECTS },
      scopes: ['projects:read'],
    })
    .input(z.object({}))
    .output(z.array(projectSchema))
    .query(({ ctx }) => projects.listProjects(ctx.actor.userId, ctx.actor.kind === 'apiKey' ? ctx.actor.projectId : undefined)),

  create: authedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/create', tags: TAGS, summary: 'Create a project', description: CREATE_PROJECT },
      scopes: ['projects:write'],
      errors: ['CONFLICT'],
    })
    .input(createProjectInput)
    .output(z.object({ projectId: z.string(), projectSlug: z.string() }))
    .mutation(({ ctx, input }) => projects.createProject(ctx.actor.userId, input.name)),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}', tags: TAGS, summary: 'Get a project', description: GET_PROJECT },
      scopes: ['projects:read'],
      role: 'viewer',
      hideForbiddenAsNotFound: true,
    })
    .input(z.object(projectRef))
    .output(projectSchema)
    .query(({ ctx }) => projects.getProject(ctx.project, ctx.role)),

  rename: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{projectId}', tags: TAGS, summary: 'Rename a project' },
      scopes: ['projects:read', 'projects:write'],
      role: 'admin',
      errors: ['CONFLICT'],
    })
    .input(z.object({ ...projectRef, ...renameProjectInput.shape }))
    .output(z.object({ id: z.string(), name: z.string(), slug: z.string(), billingEmail: z.string().nullable() }))
    .mutation(({ ctx, input }) => projects.renameProject(ctx.project.id, ctx.actor.userId, input.name)),

  delete: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}', tags: TAGS, summary: 'Delete a project', description: DELETE_PROJECT },
      scopes: ['projects:read', 'projects:write'],
      role: 'owner',
      hideForbiddenAsNotFound: true,
      errors: ['CONFLICT'],
    })
    .input(z.object(projectRef))
    .output(z.null())
    .mutation(async ({ ctx }) => {
      await projects.deleteProject(ctx.project.id, ctx.actor.userId);
      return null;
    }),

  setBillingEmail: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{projectId}/billing-email', tags: TAGS, summary: 'Set the billing email', description: SET_BILLING_EMAIL },
      scopes: ['projects:read', 'projects:write'],
      role: 'admin',
    })
    .input(z.object({ ...projectRef, ...billingEmailInput.shape }))
    .output(z.object({ billingEmail: z.string().nullable() }))
    .mutation(({ ctx, input }) => projects.setBillingEmail(ctx.project.id, ctx.actor.userId, input.billingEmail)),

  stats: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/stats', tags: TAGS, summary: 'Charge history', description: PROJECT_STATS },
      scopes: ['projects:read'],
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.object({ resourceHistory: z.array(resourceHistoryEntrySchema) }))
    .query(async ({ ctx }) => ({ resourceHistory: await projects.resourceHistory(ctx.project.id) })),
});

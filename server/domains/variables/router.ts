import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { pathParam, projectProcedure, router } from '../../platform/trpc';
import { CREATE_VARIABLE, DELETE_VARIABLE, EFFECTIVE_VARIABLES, GET_VARIABLE, IMPORT_VARIABLES, LIST_VARIABLES, UPDATE_VARIABLE } from './docs';
import {
  createVariableInput,
  effectiveVariableSchema,
  effectiveVariablesQuery,
  importReportSchema,
  importVariablesInput,
  listVariablesQuery,
  updateVariableInput,
  variableSchema,
} from './schema';
import * as variables from './service';

const TAGS = ['Variables'];
const READ: Scope[] = ['variables:read'];
// Every write answers with values, so it needs the read scope as well.
const WRITE: Scope[] = ['variables:read', 'variables:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const variableRef = { ...projectRef, variableId: pathParam('variableId') };

// The static /variables/effective and /variables/import are declared before /variables/{variableId}.
export const variablesRouter = router({
  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/variables', tags: TAGS, summary: 'List variables', description: LIST_VARIABLES },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object({ ...projectRef, ...listVariablesQuery.shape }))
    .output(z.array(variableSchema))
    .query(({ ctx, input }) => variables.listVariables(ctx.project.id, input.environment)),

  effective: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/variables/effective',
        tags: TAGS,
        summary: 'The variables that apply in an environment',
        description: EFFECTIVE_VARIABLES,
      },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object({ ...projectRef, ...effectiveVariablesQuery.shape }))
    .output(z.array(effectiveVariableSchema))
    .query(({ ctx, input }) => variables.listEffectiveVariables(ctx.project.id, input.environment)),

  create: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/variables', tags: TAGS, summary: 'Create a variable', description: CREATE_VARIABLE },
      scopes: WRITE,
      role: 'member',
      successStatus: 201,
      errors: ['CONFLICT', 'VARIABLE_LIMIT_REACHED'],
    })
    .input(z.object({ ...projectRef, ...createVariableInput.shape }))
    .output(variableSchema)
    .mutation(({ ctx, input }) => variables.createVariable(ctx.project.id, ctx.actor.userId, input)),

  import: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/variables/import',
        tags: TAGS,
        summary: 'Import a .env file',
        description: IMPORT_VARIABLES,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['VARIABLE_LIMIT_REACHED'],
    })
    .input(z.object({ ...projectRef, ...importVariablesInput.shape }))
    .output(importReportSchema)
    .mutation(({ ctx, input }) => variables.importVariables(ctx.project.id, ctx.actor.userId, input)),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/variables/{variableId}', tags: TAGS, summary: 'Get a variable', description: GET_VARIABLE },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(variableRef))
    .output(variableSchema)
    .query(({ ctx, input }) => variables.getVariable(ctx.project.id, input.variableId)),

  update: projectProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/projects/{projectId}/variables/{variableId}',
        tags: TAGS,
        summary: 'Update a variable',
        description: UPDATE_VARIABLE,
      },
      scopes: WRITE,
      role: 'member',
      errors: ['CONFLICT'],
    })
    .input(z.object({ ...variableRef, ...updateVariableInput.shape }))
    .output(variableSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _project, variableId, ...patch } = input;
      return variables.updateVariable(ctx.project.id, variableId, ctx.actor.userId, patch);
    }),

  delete: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/variables/{variableId}',
        tags: TAGS,
        summary: 'Delete a variable',
        description: DELETE_VARIABLE,
      },
      scopes: WRITE,
      role: 'member',
      successStatus: 204,
    })
    .input(z.object(variableRef))
    .output(z.void())
    .mutation(({ ctx, input }) => variables.deleteVariable(ctx.project.id, input.variableId, ctx.actor.userId)),
});

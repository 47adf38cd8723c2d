import { z } from 'zod';
import { CREATE_API_KEY, LIST_API_KEYS, REVOKE_API_KEY } from './docs';
import { apiKeySchema, createApiKeyInput, createdApiKeySchema } from './schema';
import * as apiKeys from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['API keys'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };

export const apiKeysRouter = router({
  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/api-keys', tags: TAGS, summary: 'List API keys', description: LIST_API_KEYS },
      sessionOnly: true,
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(z.array(apiKeySchema))
    .query(({ ctx }) => apiKeys.listApiKeys(ctx.project.id)),

  create: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/api-keys', tags: TAGS, summary: 'Create an API key', description: CREATE_API_KEY },
      sessionOnly: true,
      role: 'admin',
      successStatus: 201,
    })
    .input(z.object({ ...projectRef, ...createApiKeyInput.shape }))
    .output(createdApiKeySchema)
    .mutation(({ ctx, input }) =>
      apiKeys.createApiKey({
        projectId: ctx.project.id,
        userId: ctx.actor.userId,
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      }),
    ),

  revoke: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}/api-keys/{keyId}', tags: TAGS, summary: 'Revoke an API key', description: REVOKE_API_KEY },
      sessionOnly: true,
      role: 'admin',
      successStatus: 204,
    })
    .input(z.object({ ...projectRef, keyId: pathParam('keyId') }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await apiKeys.revokeApiKey(ctx.project.id, input.keyId, ctx.actor.userId);
    }),
});

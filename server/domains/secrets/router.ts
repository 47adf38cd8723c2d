import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema } from '../billing';
import { pathParam, projectProcedure, router } from '../../platform/trpc';
import {
  CREATE_SECRET,
  DELETE_SECRET,
  GET_SECRET,
  LIST_SECRETS,
  PREVIEW_SECRETS_UPGRADE,
  SECRET_AUDIT,
  SECRETS_USAGE,
  UPDATE_SECRET,
  UPGRADE_SECRETS,
} from './docs';
import {
  createdSecretSchema,
  createSecretInput,
  listSecretsQuery,
  packsSchema,
  secretAuditEntrySchema,
  secretSchema,
  secretsUsageSchema,
  updatedSecretSchema,
  updateSecretInput,
  upgradeSecretsInput,
} from './schema';
import * as secrets from './service';

const TAGS = ['Secrets'];
const READ: Scope[] = ['secrets:read'];
const WRITE: Scope[] = ['secrets:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const secretRef = { ...projectRef, secretId: pathParam('secretId') };

// The literal /secrets/usage and /secrets/upgrade are declared before /secrets/{secretId}, which would otherwise swallow them.
export const secretsRouter = router({
  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/secrets', tags: TAGS, summary: 'List secrets', description: LIST_SECRETS },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object({ ...projectRef, ...listSecretsQuery.shape }))
    .output(z.array(secretSchema))
    .query(({ ctx, input }) => secrets.listSecrets(ctx.project.id, { environment: input.environment, effective: input.effective })),

  usage: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/secrets/usage', tags: TAGS, summary: 'Secrets usage and limit', description: SECRETS_USAGE },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(secretsUsageSchema)
    .query(({ ctx }) => secrets.secretsUsage(ctx.project.id)),

  previewUpgrade: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/secrets/upgrade/preview',
        tags: TAGS,
        summary: 'Preview the charge of buying packs of secrets',
        description: PREVIEW_SECRETS_UPGRADE,
      },
      scopes: READ,
      role: 'viewer',
      errors: ['SECRET_PACKS_NOT_SOLD', 'UPSTREAM_ERROR'],
    })
    .input(z.object({ ...projectRef, packs: packsSchema.default(1).describe('Packs of five secrets, 1 to 20') }))
    .output(previewSchema)
    .query(({ ctx, input }) => secrets.previewSecretsUpgrade(ctx.project.id, input.packs)),

  upgrade: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/secrets/upgrade', tags: TAGS, summary: 'Buy packs of secrets', description: UPGRADE_SECRETS },
      scopes: WRITE,
      role: 'admin',
      errors: [...PURCHASE_ERRORS, 'SECRET_PACKS_NOT_SOLD'],
    })
    .input(z.object({ ...projectRef, ...upgradeSecretsInput.shape }))
    .output(secretsUsageSchema)
    .mutation(({ ctx, input }) => secrets.upgradeSecrets(ctx.project.id, ctx.actor.userId, input.packs)),

  create: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/secrets', tags: TAGS, summary: 'Create a secret', description: CREATE_SECRET },
      scopes: WRITE,
      role: 'admin',
      successStatus: 201,
      errors: ['CONFLICT', 'SECRET_LIMIT_REACHED'],
    })
    .input(z.object({ ...projectRef, ...createSecretInput.shape }))
    .output(createdSecretSchema)
    .mutation(({ ctx, input }) =>
      secrets.createSecret(ctx.project.id, ctx.actor.userId, {
        name: input.name,
        value: input.value,
        description: input.description,
        environment: input.environment,
      }),
    ),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/secrets/{secretId}', tags: TAGS, summary: 'Get a secret', description: GET_SECRET },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(secretRef))
    .output(secretSchema)
    .query(({ ctx, input }) => secrets.getSecret(ctx.project.id, input.secretId)),

  update: projectProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{projectId}/secrets/{secretId}', tags: TAGS, summary: 'Update a secret', description: UPDATE_SECRET },
      scopes: WRITE,
      role: 'admin',
    })
    .input(z.object({ ...secretRef, ...updateSecretInput.shape }))
    .output(updatedSecretSchema)
    .mutation(({ ctx, input }) =>
      secrets.updateSecret(ctx.project.id, input.secretId, ctx.actor.userId, { value: input.value, description: input.description }),
    ),

  delete: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}/secrets/{secretId}', tags: TAGS, summary: 'Delete a secret', description: DELETE_SECRET },
      scopes: WRITE,
      role: 'admin',
      successStatus: 204,
    })
    .input(z.object(secretRef))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await secrets.deleteSecret(ctx.project.id, input.secretId, ctx.actor.userId);
    }),

  audit: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/secrets/{secretId}/audit',
        tags: TAGS,
        summary: "A secret's audit trail",
        description: SECRET_AUDIT,
      },
      scopes: READ,
      role: 'admin',
    })
    .input(z.object(secretRef))
    .output(z.array(secretAuditEntrySchema))
    .query(({ ctx, input }) => secrets.secretAudit(ctx.project.id, input.secretId)),
});

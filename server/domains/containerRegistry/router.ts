import { z } from 'zod';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema } from '../../billing/previewSchema';
import { areaMeta, pathParam, projectProcedure, router } from '../../platform/trpc';
import * as docs from './docs';
import { deleteImage, listImages } from './images';
import * as registries from './registries';
import * as repositories from './repositories';
import {
  createRegistryInput,
  hasKmsKeyWhenNeeded,
  KMS_KEY_REQUIRED,
  createRepositoryInput,
  credentialsSchema,
  imageSchema,
  REGISTRY_REGIONS,
  regionSchema,
  registrySchema,
  repositorySchema,
  updateRegistryInput,
  updateRepositoryInput,
} from './schema';

const { read, write } = areaMeta({
  tags: ['Container registries'],
  read: { scopes: ['registry:read'], role: 'viewer' },
  write: { scopes: ['registry:read', 'registry:write'], role: 'member' },
});
const BASE = '/projects/{projectId}/storage/container-registry';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const registryRef = { ...projectRef, id: pathParam('id').describe('Registry id') };
const repositoryRef = { ...registryRef, repoId: pathParam('repoId').describe('Repository id') };
const deleted = z.object({ deleted: z.literal(true) });

// Static /regions and /preview come before /{id}, which would otherwise take them.
export const containerRegistryRouter = router({
  list: projectProcedure
    .meta(read(BASE, 'List container registries', docs.LIST_REGISTRIES))
    .input(z.object(projectRef))
    .output(z.array(registrySchema))
    .query(({ ctx }) => registries.listRegistries(ctx.project.id)),

  regions: projectProcedure
    .meta(read(`${BASE}/regions`, 'Registry regions', docs.LIST_REGIONS))
    .input(z.object(projectRef))
    .output(z.array(regionSchema))
    .query(() => REGISTRY_REGIONS.map((region) => ({ ...region }))),

  preview: projectProcedure
    .meta(read(`${BASE}/preview`, 'Preview the charge of a registry', docs.PREVIEW_REGISTRY, ['UPSTREAM_ERROR']))
    .input(z.object(projectRef))
    .output(previewSchema)
    .query(({ ctx }) => registries.previewRegistry(ctx.project.id)),

  get: projectProcedure
    .meta(read(`${BASE}/{id}`, 'Get a container registry', docs.GET_REGISTRY))
    .input(z.object(registryRef))
    .output(registrySchema)
    .query(({ ctx, input }) => registries.getRegistry(ctx.project.id, input.id)),

  create: projectProcedure
    .meta(write('POST', BASE, 'Create a container registry', docs.CREATE_REGISTRY, [...PURCHASE_ERRORS]))
    .input(z.object({ ...projectRef, ...createRegistryInput.shape }).refine(hasKmsKeyWhenNeeded, KMS_KEY_REQUIRED))
    .output(z.object({ deployed: z.literal(true), id: z.string() }))
    .mutation(({ ctx, input }) => {
      const { projectId: _projectId, ...settings } = input;
      return registries.createRegistry(ctx.project.id, ctx.actor.userId, settings);
    }),

  update: projectProcedure
    .meta(write('PATCH', `${BASE}/{id}`, 'Change registry settings', docs.UPDATE_REGISTRY, ['BAD_REQUEST']))
    .input(z.strictObject({ ...registryRef, ...updateRegistryInput.shape }, { error: 'name and region are fixed; send only the settings to change' }))
    .output(registrySchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectId, id, ...settings } = input;
      return registries.updateRegistry(ctx.project.id, id, ctx.actor.userId, settings);
    }),

  delete: projectProcedure
    .meta(write('DELETE', `${BASE}/{id}`, 'Delete a container registry', docs.DELETE_REGISTRY, ['UPSTREAM_ERROR']))
    .input(z.object(registryRef))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      await registries.deleteRegistry(ctx.project.id, input.id, ctx.actor.userId);
      return { deleted: true as const };
    }),

  listRepositories: projectProcedure
    .meta(read(`${BASE}/{id}/repositories`, 'List repositories', docs.LIST_REPOSITORIES))
    .input(z.object(registryRef))
    .output(z.array(repositorySchema))
    .query(({ ctx, input }) => repositories.listRepositories(ctx.project.id, input.id)),

  createRepository: projectProcedure
    .meta(write('POST', `${BASE}/{id}/repositories`, 'Create a repository', docs.CREATE_REPOSITORY, ['CONFLICT']))
    .input(z.object({ ...registryRef, ...createRepositoryInput.shape }))
    .output(repositorySchema)
    .mutation(({ ctx, input }) =>
      repositories.createRepository(ctx.project.id, input.id, ctx.actor.userId, {
        name: input.name,
        visibility: input.visibility,
        publicEgressCapGb: input.publicEgressCapGb,
      }),
    ),

  getRepository: projectProcedure
    .meta(read(`${BASE}/{id}/repositories/{repoId}`, 'Get a repository', docs.GET_REPOSITORY))
    .input(z.object(repositoryRef))
    .output(repositorySchema)
    .query(({ ctx, input }) => repositories.getRepository(ctx.project.id, input.id, input.repoId)),

  updateRepository: projectProcedure
    .meta(write('PATCH', `${BASE}/{id}/repositories/{repoId}`, 'Change a repository', docs.UPDATE_REPOSITORY, ['BAD_REQUEST']))
    .input(z.object({ ...repositoryRef, ...updateRepositoryInput.shape }))
    .output(repositorySchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectId, id, repoId, ...changes } = input;
      return repositories.updateRepository(ctx.project.id, id, repoId, ctx.actor.userId, changes);
    }),

  deleteRepository: projectProcedure
    .meta(write('DELETE', `${BASE}/{id}/repositories/{repoId}`, 'Delete a repository', docs.DELETE_REPOSITORY, ['UPSTREAM_ERROR']))
    .input(z.object(repositoryRef))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      await repositories.deleteRepository(ctx.project.id, input.id, input.repoId, ctx.actor.userId);
      return { deleted: true as const };
    }),

  credentials: projectProcedure
    .meta(read(`${BASE}/{id}/repositories/{repoId}/credentials`, 'Who can reach a repository', docs.REPOSITORY_CREDENTIALS))
    .input(z.object(repositoryRef))
    .output(credentialsSchema)
    .query(({ ctx, input }) => repositories.repositoryCredentials(ctx.project.id, input.id, input.repoId)),

  images: projectProcedure
    .meta(read(`${BASE}/{id}/repositories/{repoId}/images`, 'List images', docs.LIST_IMAGES, ['UPSTREAM_ERROR']))
    .input(z.object(repositoryRef))
    .output(z.array(imageSchema))
    .query(async ({ ctx, input }) => {
      const { registry, repository } = await repositories.liveRepository(ctx.project.id, input.id, input.repoId);
      return listImages(registry, repository);
    }),

  deleteImage: projectProcedure
    .meta(
      write('DELETE', `${BASE}/{id}/repositories/{repoId}/images/{digest}`, 'Delete an image by digest', docs.DELETE_IMAGE, ['BAD_REQUEST', 'UPSTREAM_ERROR']),
    )
    .input(z.object({ ...repositoryRef, digest: pathParam('digest').describe('URL-encoded image digest, sha256%3A…') }))
    .output(deleted)
    .mutation(async ({ ctx, input }) => {
      const { registry, repository } = await repositories.liveRepository(ctx.project.id, input.id, input.repoId);
      await deleteImage(registry, repository, input.digest, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema } from '../billing';
import { CATALOG_CACHE_CONTROL } from '../catalog';
import { authedProcedure, pathParam, projectProcedure, router } from '../../platform/trpc';
import { listRedisPlans, listRedisRegions } from './catalogue';
import { CREATE_REDIS, DELETE_REDIS, GET_REDIS, LIST_PLANS, LIST_REDIS, LIST_REGIONS, PREVIEW_REDIS, REDIS_USAGE } from './docs';
import {
  createRedisInput,
  redisDatabaseSchema,
  redisDatabaseWithCredentialsSchema,
  redisPlanSchema,
  redisPreviewQuery,
  redisRegionSchema,
  redisUsageSchema,
} from './schema';
import * as redis from './service';

const TAGS = ['Redis'];
const READ: Scope[] = ['redis:read'];
const WRITE: Scope[] = ['redis:read', 'redis:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const redisRef = { ...projectRef, redisId: pathParam('redisId') };

// The static /redis/preview is declared before /redis/{redisId}, which would otherwise swallow it.
export const redisRouter = router({
  plans: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/redis/plans', tags: TAGS, summary: 'Redis plans', description: LIST_PLANS },
      anyCredential: true,
      cacheControl: CATALOG_CACHE_CONTROL,
    })
    .input(z.object({}))
    .output(z.array(redisPlanSchema))
    .query(() => listRedisPlans()),

  regions: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/redis/regions', tags: TAGS, summary: 'Redis regions', description: LIST_REGIONS },
      anyCredential: true,
      cacheControl: CATALOG_CACHE_CONTROL,
    })
    .input(z.object({}))
    .output(z.array(redisRegionSchema))
    .query(() => listRedisRegions()),

  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/redis', tags: TAGS, summary: 'List Redis databases', description: LIST_REDIS },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.array(redisDatabaseSchema))
    .query(({ ctx }) => redis.listRedis(ctx.project.id)),

  create: projectProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{projectId}/redis', tags: TAGS, summary: 'Create a Redis database', description: CREATE_REDIS },
      scopes: WRITE,
      role: 'member',
      errors: PURCHASE_ERRORS,
    })
    .input(z.object({ ...projectRef, ...createRedisInput.shape }))
    .output(redisDatabaseSchema)
    .mutation(({ ctx, input }) => {
      const { projectId: _projectRef, ...creation } = input;
      return redis.createRedis({ ...creation, projectId: ctx.project.id, actorUserId: ctx.actor.userId });
    }),

  preview: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/redis/preview',
        tags: TAGS,
        summary: 'Preview the charge of a Redis database',
        description: PREVIEW_REDIS,
      },
      scopes: READ,
      role: 'viewer',
      errors: ['BAD_REQUEST', 'UPSTREAM_ERROR'],
      invalidInputCode: 'BAD_REQUEST',
    })
    .input(z.object({ ...projectRef, ...redisPreviewQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => redis.previewRedis(ctx.project.id, input.planSlug, input.replication === 'true')),

  get: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/redis/{redisId}', tags: TAGS, summary: 'Get a Redis database', description: GET_REDIS },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(redisRef))
    .output(redisDatabaseWithCredentialsSchema)
    .query(({ ctx, input }) => redis.getRedis(ctx.project.id, input.redisId)),

  usage: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/redis/{redisId}/usage', tags: TAGS, summary: 'Redis usage', description: REDIS_USAGE },
      scopes: READ,
      role: 'viewer',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object(redisRef))
    .output(redisUsageSchema)
    .query(({ ctx, input }) => redis.redisUsage(ctx.project.id, input.redisId)),

  delete: projectProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{projectId}/redis/{redisId}', tags: TAGS, summary: 'Delete a Redis database', description: DELETE_REDIS },
      scopes: WRITE,
      role: 'member',
      errors: ['UPSTREAM_ERROR'],
    })
    .input(z.object(redisRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await redis.deleteRedis(ctx.project.id, input.redisId, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

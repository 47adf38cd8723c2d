import { z } from 'zod';
import { PURCHASE_ERRORS } from '../../billing/purchases';
import { previewSchema, tierChangePreviewSchema } from '../../billing/previewSchema';
import { areaMeta, pathParam, projectProcedure, router } from '../../platform/trpc';
import * as bucketService from './buckets';
import * as credentialService from './credentials';
import * as docs from './docs';
import {
  bucketPreviewQuery,
  bucketSchema,
  bucketUsageSchema,
  cdnInput,
  cdnStateSchema,
  corsInput,
  createBucketInput,
  createCredentialInput,
  credentialSchema,
  issuedCredentialSchema,
  issuedIamUserSchema,
  legacyIamUserSchema,
  rescopeCredentialInput,
  tierInput,
  tierQuery,
} from './schema';

const { read, write } = areaMeta({
  tags: ['Object storage'],
  read: { scopes: ['object-storage:read'], role: 'viewer' },
  write: { scopes: ['object-storage:read', 'object-storage:write'], role: 'member' },
  writeErrors: ['UPSTREAM_ERROR'],
});
const BASE = '/projects/{projectId}/storage/object-storage';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const bucketRef = { ...projectRef, bucketId: pathParam('bucketId') };
const credentialRef = { ...projectRef, credentialId: pathParam('credentialId') };

// The static /preview is declared before /{bucketId} routes, which would otherwise swallow it.
export const objectStorageRouter = router({
  list: projectProcedure
    .meta(read(BASE, 'List buckets', docs.LIST_BUCKETS))
    .input(z.object(projectRef))
    .output(z.array(bucketSchema))
    .query(({ ctx }) => bucketService.listBuckets(ctx.project.id)),

  preview: projectProcedure
    .meta(read(`${BASE}/preview`, 'Preview the charge of a bucket', docs.PREVIEW_BUCKET, ['UPSTREAM_ERROR']))
    .input(z.object({ ...projectRef, ...bucketPreviewQuery.shape }))
    .output(previewSchema)
    .query(({ ctx, input }) => bucketService.previewBucket(ctx.project.id, input.tier)),

  create: projectProcedure
    .meta(write('POST', BASE, 'Create a bucket', docs.CREATE_BUCKET, [...PURCHASE_ERRORS, 'BAD_REQUEST']))
    .input(z.object({ ...projectRef, ...createBucketInput.shape }))
    .output(z.object({ deployed: z.literal(true) }))
    .mutation(({ ctx, input }) =>
      bucketService.createBucket({
        projectId: ctx.project.id,
        actorUserId: ctx.actor.userId,
        name: input.name,
        region: input.region,
        tier: input.tier,
        publicAccess: input.publicAccess,
        versioning: input.versioning,
        cdnEnabled: input.cdnEnabled,
        corsRules: input.corsRules,
      }),
    ),

  usage: projectProcedure
    .meta(read(`${BASE}/{bucketId}/usage`, 'Bucket usage', docs.BUCKET_USAGE, ['UPSTREAM_ERROR']))
    .input(z.object(bucketRef))
    .output(bucketUsageSchema)
    .query(({ ctx, input }) => bucketService.bucketUsage(ctx.project.id, input.bucketId)),

  planPreview: projectProcedure
    .meta(read(`${BASE}/{bucketId}/plan-preview`, 'Preview a tier change', docs.PLAN_PREVIEW, ['UPSTREAM_ERROR']))
    .input(z.object({ ...bucketRef, ...tierQuery.shape }))
    .output(tierChangePreviewSchema)
    .query(({ ctx, input }) => bucketService.previewTierChange(ctx.project.id, input.bucketId, input.tier)),

  changeTier: projectProcedure
    .meta(write('PATCH', `${BASE}/{bucketId}/tier`, 'Change the tier of a bucket', docs.CHANGE_TIER, [...PURCHASE_ERRORS]))
    .input(z.object({ ...bucketRef, ...tierInput.shape }))
    .output(bucketSchema)
    .mutation(({ ctx, input }) => bucketService.changeTier(ctx.project.id, input.bucketId, ctx.actor.userId, input.tier)),

  replaceCors: projectProcedure
    .meta(write('PATCH', `${BASE}/{bucketId}/cors`, 'Replace the CORS rules', docs.REPLACE_CORS))
    .input(z.object({ ...bucketRef, ...corsInput.shape }))
    .output(bucketSchema)
    .mutation(({ ctx, input }) => bucketService.replaceCors(ctx.project.id, input.bucketId, ctx.actor.userId, input.corsRules)),

  setCdn: projectProcedure
    .meta(write('PATCH', `${BASE}/{bucketId}/cdn`, 'Turn the CDN on or off', docs.SET_CDN, ['BAD_REQUEST']))
    .input(z.object({ ...bucketRef, ...cdnInput.shape }))
    .output(cdnStateSchema)
    .mutation(({ ctx, input }) => bucketService.setCdn(ctx.project.id, input.bucketId, ctx.actor.userId, input.cdnEnabled)),

  delete: projectProcedure
    .meta(write('DELETE', `${BASE}/{bucketId}`, 'Delete a bucket', docs.DELETE_BUCKET))
    .input(z.object(bucketRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await bucketService.deleteBucket(ctx.project.id, input.bucketId, ctx.actor.userId);
      return { deleted: true as const };
    }),

  credentials: projectProcedure
    .meta(read(`${BASE}/{bucketId}/credentials`, 'Credentials reaching a bucket', docs.BUCKET_CREDENTIALS))
    .input(z.object(bucketRef))
    .output(z.array(credentialSchema))
    .query(async ({ ctx, input }) => {
      await bucketService.liveBucket(ctx.project.id, input.bucketId);
      return credentialService.credentialsOfBucket(ctx.project.id, input.bucketId);
    }),

  iamUsers: projectProcedure
    .meta(read(`${BASE}/{bucketId}/iam-users`, 'Legacy credentials of a bucket', docs.LIST_IAM_USERS))
    .input(z.object(bucketRef))
    .output(z.array(legacyIamUserSchema))
    .query(async ({ ctx, input }) => {
      await bucketService.liveBucket(ctx.project.id, input.bucketId);
      return credentialService.legacyIamUsers(ctx.project.id, input.bucketId);
    }),

  createIamUser: projectProcedure
    .meta(write('POST', `${BASE}/{bucketId}/iam-users`, 'Create a legacy bucket credential', docs.CREATE_IAM_USER))
    .input(z.object(bucketRef))
    .output(issuedIamUserSchema)
    .mutation(async ({ ctx, input }) => {
      const bucket = await bucketService.liveBucket(ctx.project.id, input.bucketId);
      return credentialService.createLegacyIamUser(ctx.project.id, bucket.id, bucket.name, ctx.actor.userId);
    }),

  deleteIamUser: projectProcedure
    .meta(write('DELETE', `${BASE}/{bucketId}/iam-users/{iamUserName}`, 'Delete a legacy bucket credential', docs.DELETE_IAM_USER))
    .input(z.object({ ...bucketRef, iamUserName: pathParam('iamUserName') }))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await bucketService.liveBucket(ctx.project.id, input.bucketId);
      await credentialService.deleteLegacyIamUser(ctx.project.id, input.bucketId, input.iamUserName, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

/** SPEC's preferred credential family (`/v1/projects/{projectId}/iam`); its paths are ours. */
export const storageCredentialsRouter = router({
  list: projectProcedure
    .meta(read('/projects/{projectId}/iam', 'List storage credentials', docs.LIST_IAM))
    .input(z.object(projectRef))
    .output(z.array(credentialSchema))
    .query(({ ctx }) => credentialService.listCredentials(ctx.project.id)),

  create: projectProcedure
    .meta(write('POST', '/projects/{projectId}/iam', 'Create a storage credential', docs.CREATE_IAM, ['CONFLICT', 'UPSTREAM_ERROR']))
    .input(z.object({ ...projectRef, ...createCredentialInput.shape }))
    .output(issuedCredentialSchema)
    .mutation(({ ctx, input }) =>
      credentialService.issueCredential(ctx.project.id, ctx.actor.userId, { name: input.name, bucketIds: input.bucketIds, access: input.access }),
    ),

  rescope: projectProcedure
    .meta(write('PATCH', '/projects/{projectId}/iam/{credentialId}', 'Re-scope a storage credential', docs.RESCOPE_IAM, ['CONFLICT', 'UPSTREAM_ERROR']))
    .input(rescopeCredentialInput.safeExtend(credentialRef))
    .output(credentialSchema)
    .mutation(({ ctx, input }) =>
      credentialService.rescopeCredential(ctx.project.id, input.credentialId, ctx.actor.userId, { bucketIds: input.bucketIds, access: input.access }),
    ),

  revoke: projectProcedure
    .meta(write('DELETE', '/projects/{projectId}/iam/{credentialId}', 'Revoke a storage credential', docs.DELETE_IAM))
    .input(z.object(credentialRef))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await credentialService.revokeCredential(ctx.project.id, input.credentialId, ctx.actor.userId);
      return { deleted: true as const };
    }),
});

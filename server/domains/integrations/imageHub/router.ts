import { z } from 'zod';
import type { Scope } from '../../../platform/auth/scopes';
import type { ErrorCode } from '../../../platform/errors';
import { isoDateTime } from '../../../platform/schemas';
import { pathParam, projectProcedure, router, type ProcedureMeta } from '../../../platform/trpc';
import { connectImageHub, disconnectImageHub, imageHubStatus, listImageHubRepositories, listImageHubTags } from './service';

const TAGS = ['Image hub'];
const BASE = '/projects/{projectId}/integrations/image-hub';
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const CONNECTION_ERRORS: readonly ErrorCode[] = ['IMAGE_HUB_NOT_CONNECTED', 'IMAGE_HUB_CREDENTIAL_INVALID', 'UPSTREAM_ERROR'];
const READ = { scopes: ['integrations:read'] as Scope[], role: 'viewer' as const };
const WRITE = { scopes: ['integrations:read', 'integrations:write'] as Scope[], role: 'member' as const };
const meta = (method: 'GET' | 'POST' | 'DELETE', path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[]): ProcedureMeta => ({
  openapi: { method, path: `${BASE}${path}`, tags: TAGS, summary, description },
  ...(method === 'GET' ? READ : WRITE),
  errors,
});

const statusSchema = z
  .object({ connected: z.boolean(), username: z.string().nullable().describe('The hub account, as the hub spells it'), connectedAt: isoDateTime.nullable() })
  .meta({ id: 'ImageHubStatus' });

const repositorySchema = z
  .object({
    namespace: z.string(),
    name: z.string(),
    private: z.boolean(),
    description: z.string().nullable(),
    pullCount: z.number().int(),
    starCount: z.number().int(),
    lastUpdated: isoDateTime.nullable(),
  })
  .meta({ id: 'ImageHubRepository' });

const tagSchema = z
  .object({ name: z.string(), size: z.number().int().describe('Bytes'), digest: z.string().nullable(), lastUpdated: isoDateTime.nullable() })
  .meta({ id: 'ImageHubTag' });

const hubName = (field: string) =>
  z
    .string({ error: `${field} is required` })
    .min(1, `${field} is required`)
    .max(255, `${field} must be at most 255 characters`)
    .regex(/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/, `${field} must be lowercase letters, digits and . _ - separators`);

export const imageHubRouter = router({
  connect: projectProcedure
    .meta(
      meta(
        'POST',
        '/connect',
        'Connect an image hub account',
        'Checks the username and access token with the hub and stores the token encrypted, replacing any earlier credential. A pair the hub refuses is 422 on `accessToken` and nothing changes. The token is never returned nor logged.',
        ['UPSTREAM_ERROR'],
      ),
    )
    .input(
      z.object({
        ...projectRef,
        username: z.string().trim().min(1, 'username is required').max(255, 'username must be at most 255 characters'),
        accessToken: z
          .string()
          .min(1, 'accessToken is required')
          .max(4096, 'accessToken must be at most 4096 characters')
          .describe('Stored encrypted; never returned'),
      }),
    )
    .output(statusSchema)
    .mutation(({ ctx, input }) => connectImageHub(ctx.project.id, ctx.actor.userId, { username: input.username, accessToken: input.accessToken })),

  status: projectProcedure
    .meta(meta('GET', '/status', 'Image hub connection', 'Whether an image hub account is connected, and which. The token is never returned.', []))
    .input(z.object(projectRef))
    .output(statusSchema)
    .query(({ ctx }) => imageHubStatus(ctx.project.id)),

  repositories: projectProcedure
    .meta(
      meta(
        'GET',
        '/repositories',
        'Image hub repositories',
        'Repositories of the account’s namespace and of its organisations, most recently updated first. 400 IMAGE_HUB_NOT_CONNECTED without a connection; 400 IMAGE_HUB_CREDENTIAL_INVALID when the hub refuses the stored token (connect again).',
        CONNECTION_ERRORS,
      ),
    )
    .input(z.object(projectRef))
    .output(z.array(repositorySchema))
    .query(({ ctx }) => listImageHubRepositories(ctx.project.id)),

  tags: projectProcedure
    .meta(
      meta('GET', '/tags', 'Image hub tags', 'Tags of `namespace/repository`, newest first. 404 for a repository the account does not reach.', [
        ...CONNECTION_ERRORS,
        'NOT_FOUND',
      ]),
    )
    .input(z.object({ ...projectRef, namespace: hubName('namespace'), repository: hubName('repository') }))
    .output(z.array(tagSchema))
    .query(({ ctx, input }) => listImageHubTags(ctx.project.id, input.namespace, input.repository)),

  disconnect: projectProcedure
    .meta(meta('DELETE', '/disconnect', 'Disconnect the image hub', 'Forgets the stored credential. Succeeds when nothing is connected.', []))
    .input(z.object(projectRef))
    .output(statusSchema)
    .mutation(({ ctx }) => disconnectImageHub(ctx.project.id, ctx.actor.userId)),
});

import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { CREATE_SSH_KEY, DELETE_SSH_KEY, GENERATE_SSH_KEY, LIST_SSH_KEYS } from './docs';
import { createSshKeyInput, deletedSshKeySchema, generatedSshKeySchema, generateSshKeyInput, sshKeySchema } from './schema';
import * as sshKeys from './service';
import { SSH_KEY_DOCS_PATH } from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['SSH keys'];
const READ: Scope[] = ['servers:read'];
const WRITE: Scope[] = ['servers:read', 'servers:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };

/** SPEC puts `docsUrl` in the error shape of the SSH key operations: every refusal links to the page about keys. */
const DOCS = { docsPath: SSH_KEY_DOCS_PATH };

export const sshKeysRouter = router({
  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/ssh-keys', tags: TAGS, summary: 'List SSH keys', description: LIST_SSH_KEYS },
      scopes: READ,
      role: 'viewer',
      ...DOCS,
    })
    .input(z.object(projectRef))
    .output(z.array(sshKeySchema))
    .query(({ ctx }) => sshKeys.listSshKeys(ctx.project.id)),

  create: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/ssh-keys',
        tags: TAGS,
        summary: 'Add an SSH key',
        description: CREATE_SSH_KEY,
      },
      scopes: WRITE,
      role: 'member',
      ...DOCS,
      errors: ['CONFLICT'],
    })
    .input(z.object({ ...projectRef, ...createSshKeyInput.shape }))
    .output(sshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.addSshKey(ctx.project.id, ctx.actor.userId, input.name, input.publicKey)),

  generate: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/ssh-keys/generate',
        tags: TAGS,
        summary: 'Generate an SSH key pair',
        description: GENERATE_SSH_KEY,
      },
      scopes: WRITE,
      role: 'member',
      ...DOCS,
    })
    .input(z.object({ ...projectRef, ...generateSshKeyInput.shape }))
    .output(generatedSshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.generateSshKey(ctx.project.id, ctx.actor.userId, input.name)),

  delete: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/ssh-keys/{sshKeyId}',
        tags: TAGS,
        summary: 'Delete an SSH key',
        description: DELETE_SSH_KEY,
      },
      scopes: WRITE,
      role: 'member',
      ...DOCS,
    })
    .input(z.object({ ...projectRef, sshKeyId: pathParam('sshKeyId') }))
    .output(deletedSshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.deleteSshKey(ctx.project.id, input.sshKeyId, ctx.actor.userId)),
});

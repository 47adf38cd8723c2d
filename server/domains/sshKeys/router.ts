import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { AppError, toAppError } from '../../platform/errors';
import { createSshKeyInput, deletedSshKeySchema, generatedSshKeySchema, generateSshKeyInput, sshKeySchema } from './schema';
import * as sshKeys from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['SSH keys'];
const READ: Scope[] = ['servers:read'];
const WRITE: Scope[] = ['servers:read', 'servers:write'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const DOCS = 'Errors carry `docsUrl`, a page about adding keys.';

/**
 * SPEC puts `docsUrl` in the error shape of the SSH key operations: every refusal past
 * authentication (validation included) points to the page about keys.
 */
const sshKeyProcedure = projectProcedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const app = toAppError(result.error);
    if (app.status < 500 && !app.docsUrl) {
      throw new AppError(app.code, app.message, { docsUrl: sshKeys.sshKeyDocsUrl(), headers: app.headers, fields: app.fields, cause: app });
    }
  }
  return result;
});

export const sshKeysRouter = router({
  list: sshKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/ssh-keys', tags: TAGS, summary: 'List SSH keys', description: `Newest first. ${DOCS}` },
      scopes: READ,
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.array(sshKeySchema))
    .query(({ ctx }) => sshKeys.listSshKeys(ctx.project.id)),

  create: sshKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/ssh-keys',
        tags: TAGS,
        summary: 'Add an SSH key',
        description: `Takes one OpenSSH public key line: ssh-ed25519, ssh-rsa of 2048 bits or more, or ecdsa-sha2-nistp256/384/521, with an optional comment. The key data is decoded and must hold a key of the named type; anything else is 422 VALIDATION_ERROR saying what is wrong. 409 CONFLICT naming the existing key when its fingerprint is already registered in the project. A key must be registered before the server that should trust it is created. ${DOCS}`,
      },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object({ ...projectRef, ...createSshKeyInput.shape }))
    .output(sshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.addSshKey(ctx.project.id, ctx.actor.userId, input.name, input.publicKey)),

  generate: sshKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/ssh-keys/generate',
        tags: TAGS,
        summary: 'Generate an SSH key pair',
        description: `Makes an ed25519 key pair, registers its public half and returns the private half once as \`privateKey\` (OpenSSH format); it is never stored or logged. At most ${sshKeys.SSH_KEY_GENERATIONS_PER_HOUR} per project per hour, then 429 RATE_LIMITED with Retry-After. ${DOCS}`,
      },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object({ ...projectRef, ...generateSshKeyInput.shape }))
    .output(generatedSshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.generateSshKey(ctx.project.id, ctx.actor.userId, input.name)),

  delete: sshKeyProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/ssh-keys/{sshKeyId}',
        tags: TAGS,
        summary: 'Delete an SSH key',
        description: `Removes the key from the project. Servers created with it keep trusting it: \`stillAuthorisedOn\` counts those still live. ${DOCS}`,
      },
      scopes: WRITE,
      role: 'member',
    })
    .input(z.object({ ...projectRef, sshKeyId: pathParam('sshKeyId') }))
    .output(deletedSshKeySchema)
    .mutation(({ ctx, input }) => sshKeys.deleteSshKey(ctx.project.id, input.sshKeyId, ctx.actor.userId)),
});

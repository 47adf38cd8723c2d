import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes';
import { AppError, type ErrorCode } from '../../platform/errors';
import { pathParam, projectProcedure, router, type ProcedureMeta } from '../../platform/trpc';
import * as files from './files';
import * as docs from './filesDocs';
import { siteHome } from './paths';
import { HOSTING_BASE } from './router';
import { liveSite, quotaBytes } from './sites';

const TAGS = ['Hosting files'];
const READ: Scope[] = ['hosting:read'];
const WRITE: Scope[] = ['hosting:read', 'hosting:write'];
const FILES = `${HOSTING_BASE}/{tenantId}/files` as const;
const siteRef = { projectId: pathParam('projectId').describe('Project id or slug'), tenantId: pathParam('tenantId').describe('The site’s id') };
// Paths are checked by the service (400 with the rule broken), not here: a schema refusal would be a 422.
const filePath = (description: string) => z.string({ error: 'path must be a string' }).describe(description);
const PATH_ERRORS: ErrorCode[] = ['BAD_REQUEST'];
const WRITE_ERRORS: ErrorCode[] = ['BAD_REQUEST', 'PROJECT_SUSPENDED'];

function read(path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[] = PATH_ERRORS): ProcedureMeta {
  return { openapi: { method: 'GET', path, tags: TAGS, summary, description }, scopes: READ, role: 'viewer', errors };
}

function write(
  method: 'POST' | 'PUT' | 'DELETE',
  path: `/${string}`,
  summary: string,
  description: string,
  errors: readonly ErrorCode[] = WRITE_ERRORS,
): ProcedureMeta {
  return { openapi: { method, path, tags: TAGS, summary, description }, scopes: WRITE, role: 'member', errors };
}

export const hostingFilesRouter = router({
  list: projectProcedure
    .meta(read(FILES, 'List a folder', docs.LIST_FILES))
    .input(z.object({ ...siteRef, path: filePath('The folder; empty or absent for the home').default('') }))
    .output(z.array(files.fileEntrySchema))
    .query(async ({ ctx, input }) => files.listEntries((await siteFiles(ctx.project.id, input.tenantId, 'read')).home, input.path)),

  read: projectProcedure
    .meta(read(`${FILES}/content`, 'Read a text file', docs.READ_FILE, ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE']))
    .input(z.object({ ...siteRef, path: filePath('The file') }))
    .output(files.textFileSchema)
    .query(async ({ ctx, input }) => files.readText((await siteFiles(ctx.project.id, input.tenantId, 'read')).home, input.path)),

  write: projectProcedure
    .meta(write('PUT', `${FILES}/content`, 'Write a text file', docs.WRITE_FILE, [...WRITE_ERRORS, 'PAYLOAD_TOO_LARGE']))
    .input(
      z.object({
        ...siteRef,
        path: filePath('The file'),
        content: z.string({ error: 'content must be a string' }).describe('The whole file, up to 1 MB as UTF-8'),
      }),
    )
    .output(files.placedEntrySchema)
    .mutation(async ({ ctx, input }) => {
      const site = await siteFiles(ctx.project.id, input.tenantId, 'write');
      return files.writeText(site.home, input.path, input.content, site.quotaBytes);
    }),

  createFolder: projectProcedure
    .meta(write('POST', `${FILES}/folders`, 'Create a folder', docs.CREATE_FOLDER, [...WRITE_ERRORS, 'CONFLICT']))
    .input(z.object({ ...siteRef, path: filePath('The new folder') }))
    .output(files.placedEntrySchema)
    .mutation(async ({ ctx, input }) => files.createFolder((await siteFiles(ctx.project.id, input.tenantId, 'write')).home, input.path)),

  rename: projectProcedure
    .meta(write('POST', `${FILES}/rename`, 'Rename or move', docs.RENAME, [...WRITE_ERRORS, 'CONFLICT']))
    .input(z.object({ ...siteRef, from: filePath('The entry to move'), to: filePath('Its new path; nothing may be there yet') }))
    .output(files.placedEntrySchema)
    .mutation(async ({ ctx, input }) => files.renamePath((await siteFiles(ctx.project.id, input.tenantId, 'write')).home, input.from, input.to)),

  delete: projectProcedure
    .meta(write('DELETE', FILES, 'Delete a file or folder', docs.DELETE))
    .input(z.object({ ...siteRef, path: filePath('The file, link or folder (with everything in it)') }))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await files.deletePath((await siteFiles(ctx.project.id, input.tenantId, 'write')).home, input.path);
      return { deleted: true as const };
    }),
});

/**
 * The home and quota of a live site of the project (404 otherwise). A site suspended for an unpaid
 * invoice can still be read, so its owner can take the files out, but not changed (402).
 */
export async function siteFiles(projectId: string, tenantId: string, access: 'read' | 'write'): Promise<{ home: string; quotaBytes: number }> {
  const site = await liveSite(projectId, tenantId);
  if (access === 'write' && site.billingSuspendedAt) {
    throw new AppError(
      'PROJECT_SUSPENDED',
      `Site "${site.siteName}" is suspended for an unpaid invoice, so its files cannot be changed; pay the invoice to resume it`,
    );
  }
  return { home: siteHome(site.siteName), quotaBytes: quotaBytes(site) };
}

import type { Scope } from '../../platform/auth/scopes';
import { auditMutation } from '../../platform/audit';
import { AppError, invalidField } from '../../platform/errors';
import { envelope, type RawRoute } from '../../platform/rest/rawRoutes';
import { MAX_TRANSFER_BYTES, openDownload, uploadStream, type PlacedEntry } from './files';
import { siteFiles } from './filesRouter';
import { HOSTING_BASE } from './router';

const FILES = `${HOSTING_BASE}/{tenantId}/files`;
const READ: Scope[] = ['hosting:read'];
const WRITE: Scope[] = ['hosting:read', 'hosting:write'];

/**
 * `POST …/files/upload?path=<folder>&name=<file>`: the body is the file itself
 * (application/octet-stream, up to 64 MB), streamed to disk as it arrives and replacing a file of
 * that name. Raw rather than a procedure because procedures take JSON bodies only; recorded in the
 * audit log like every procedure's write.
 */
export const uploadFileRoute: RawRoute = {
  method: 'POST',
  path: `${FILES}/upload`,
  access: { kind: 'project', scopes: WRITE, role: 'member' },
  async handle(request, caller) {
    if (!caller.grant || !caller.actor) throw new AppError('UNAUTHORIZED', 'Authentication required');
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/octet-stream') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file itself as the body, with Content-Type: application/octet-stream');
    }
    if (Number(request.headers['content-length'] ?? 0) > MAX_TRANSFER_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Files are uploaded here up to 64 MB (${MAX_TRANSFER_BYTES} bytes); use SFTP for larger files`, {
        headers: { connection: 'close' },
      });
    }
    const name = request.query.get('name');
    if (name === null) throw invalidField('name', 'The file name is required');
    const folder = request.query.get('path') ?? '';
    const projectId = caller.grant.project.id;
    const tenantId = request.params.tenantId!;
    const outcome = await auditMutation(
      { ctx: request.ctx, actor: caller.actor, action: 'hostingFiles.upload', rawInput: { projectId, tenantId } },
      async (audit): Promise<{ ok: true; data: PlacedEntry } | { ok: false; error: unknown }> => {
        audit.projectId = projectId;
        try {
          await audit.writeAhead();
          const site = await siteFiles(projectId, tenantId, 'write');
          return { ok: true, data: await uploadStream(site.home, folder, name, request.body.stream(), site.quotaBytes) };
        } catch (error) {
          return { ok: false, error };
        }
      },
    );
    if (!outcome.ok) throw outcome.error;
    return envelope(outcome.data);
  },
};

/** `GET …/files/download?path=<file>`: the file streamed as it is, up to 64 MB. */
export const downloadFileRoute: RawRoute = {
  method: 'GET',
  path: `${FILES}/download`,
  access: { kind: 'project', scopes: READ, role: 'viewer' },
  async handle(request, caller) {
    if (!caller.grant) throw new AppError('UNAUTHORIZED', 'Authentication required');
    const path = request.query.get('path');
    if (path === null) throw invalidField('path', 'The file to download is required');
    const site = await siteFiles(caller.grant.project.id, request.params.tenantId!, 'read');
    const download = await openDownload(site.home, path);
    return {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(download.size),
        'content-disposition': contentDisposition(download.name),
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
      body: download.stream,
    };
  },
};

export const hostingFileRoutes: readonly RawRoute[] = [uploadFileRoute, downloadFileRoute];

/**
 * `attachment` with the name in RFC 5987 form (every byte outside the unreserved set
 * percent-encoded, so no quote, semicolon or line break can end the header early), after a plain
 * ASCII fallback for old clients.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

import type { Scope } from '../../platform/auth/scopes';
import { AppError, invalidField } from '../../platform/errors';
import { envelope, type RawRoute } from '../../platform/rest/rawRoutes';
import { MAX_TRANSFER_BYTES, openDownload, uploadStream } from './files';
import { siteFiles } from './filesRouter';
import { HOSTING_BASE } from './router';

const FILES = `${HOSTING_BASE}/{tenantId}/files`;
const READ: Scope[] = ['hosting:read'];
const WRITE: Scope[] = ['hosting:read', 'hosting:write'];

/**
 * `POST …/files/upload?path=<folder>&name=<file>`: the body is the file itself
 * (application/octet-stream, up to 64 MB), streamed to disk as it arrives and replacing a file of
 * that name. Raw rather than a procedure because procedures take JSON bodies only; the REST bridge
 * records it in the audit log as it does every signed-in write.
 */
export const uploadFileRoute: RawRoute = {
  method: 'POST',
  path: `${FILES}/upload`,
  access: { kind: 'project', scopes: WRITE, role: 'member' },
  docs: {
    operationId: 'hostingFiles-upload',
    tags: ['Hosting'],
    summary: 'Upload a file',
    description:
      'Any file, text or binary, up to 64 MB: the body is the file itself (`Content-Type: application/octet-stream`), streamed to disk as it arrives. It replaces a file of that name in the folder; the folder must exist. Past 64 MB or the site’s disk quota it is 413 PAYLOAD_TOO_LARGE and nothing is kept; larger files go over SFTP. A suspended site’s files cannot change (402 PROJECT_SUSPENDED).',
    query: {
      path: { description: "The folder, relative to the site's home (default: the home itself)" },
      name: { description: 'The file name', required: true },
    },
    body: { description: 'The file’s bytes', contentType: 'application/octet-stream' },
    responses: { 200: { description: 'Where the file now is', data: { $ref: '#/components/schemas/HostingPlacedFileEntry' } } },
    errors: ['NOT_FOUND', 'BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'PROJECT_SUSPENDED'],
  },
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
    const site = await siteFiles(caller.grant.project.id, request.params.tenantId!, 'write');
    return envelope(await uploadStream(site.home, folder, name, request.body.stream(), site.quotaBytes));
  },
};

/** `GET …/files/download?path=<file>`: the file streamed as it is, up to 64 MB. */
export const downloadFileRoute: RawRoute = {
  method: 'GET',
  path: `${FILES}/download`,
  access: { kind: 'project', scopes: READ, role: 'viewer' },
  docs: {
    operationId: 'hostingFiles-download',
    tags: ['Hosting'],
    summary: 'Download a file',
    description:
      'The file’s bytes as they are (any file up to 64 MB), as an attachment named after it. A folder is 400 BAD_REQUEST; larger files go over SFTP.',
    query: { path: { description: "The file, relative to the site's home", required: true } },
    responses: { 200: { description: 'The file', contentType: 'application/octet-stream' } },
    errors: ['NOT_FOUND', 'BAD_REQUEST', 'PAYLOAD_TOO_LARGE'],
  },
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

import { dispatchMethod, writeEmpty, type Handler, type RequestContext } from './context';
import { GO_ERROR, registryError } from './errors';
import { BLOB_MEDIA_TYPE, blobTarget } from './events';
import { digestProblem, validName } from './routes';
import { packUploadState, unpackUploadState } from './uploadState';

interface OpenUpload {
  uuid: string;
  startedAt: string;
}

/** The headers of every answer about an upload in progress: where to send the next request, and how much arrived. */
function progressHeaders(ctx: RequestContext, upload: OpenUpload, size: number): Record<string, string> {
  const name = ctx.route.repository;
  const state = packUploadState(ctx.storage.secret, { Name: name, UUID: upload.uuid, Offset: size, StartedAt: upload.startedAt });
  return {
    'Docker-Upload-UUID': upload.uuid,
    // Relative, as the embedded registry runs with `http.relativeurls: true`.
    Location: `/v2/${name}/blobs/uploads/${upload.uuid}?_state=${encodeURIComponent(state)}`,
    Range: `0-${Math.max(size - 1, 0)}`,
  };
}

/**
 * POST: mounts the blob from `from` when `mount` names one that repository has (201; the token
 * was already required to pull `from`), otherwise starts an upload (202). Distribution 2.8 ignores
 * `?digest=` here: a monolithic POST still only starts an upload.
 */
async function startUpload(ctx: RequestContext): Promise<void> {
  const name = ctx.route.repository;
  const from = ctx.url.searchParams.get('from') ?? '';
  const mount = ctx.url.searchParams.get('mount') ?? '';
  if (from && mount && !digestProblem(mount) && validName(from)) {
    const source = ctx.storage.layer(from, mount);
    if (source) {
      await ctx.storage.linkLayer(name, mount, mount);
      ctx.emit('mount', blobTarget(name, { digest: mount, size: source.size }, from));
      writeEmpty(ctx.res, 201, { Location: `/v2/${name}/blobs/${mount}`, 'Docker-Content-Digest': mount });
      return;
    }
  }
  const upload = await ctx.storage.createUpload(name);
  writeEmpty(ctx.res, 202, progressHeaders(ctx, upload, 0));
}

/**
 * Distribution's checks before any method on `/blobs/uploads/<uuid>`: the `_state` it handed out
 * must verify and name this repository and upload, the upload must exist, and its size must still
 * be the state's offset. 2.8 means to cancel the upload on a wrong offset but closes it first, so
 * the cancel fails and the upload stays; so it does here.
 */
async function resumeUpload(ctx: RequestContext): Promise<OpenUpload & { size: number }> {
  const name = ctx.route.repository;
  const uuid = ctx.route.reference;
  const unpacked = unpackUploadState(ctx.storage.secret, ctx.url.searchParams.get('_state') ?? '');
  if ('invalid' in unpacked) throw registryError('BLOB_UPLOAD_INVALID', unpacked.invalid);
  const { state } = unpacked;
  if (state.Name !== name || state.UUID !== uuid) throw registryError('BLOB_UPLOAD_INVALID');
  const upload = ctx.storage.upload(name, uuid);
  if (!upload) throw registryError('BLOB_UPLOAD_UNKNOWN', GO_ERROR);
  const size = await ctx.storage.uploadSize(uuid);
  if (size !== state.Offset) throw registryError('BLOB_UPLOAD_INVALID');
  return { uuid, startedAt: upload.startedAt, size };
}

function uploadHandlers(ctx: RequestContext, upload: (OpenUpload & { size: number }) | null): Record<string, Handler> {
  const known = () => {
    if (!upload) throw registryError('BLOB_UPLOAD_UNKNOWN');
    return upload;
  };
  const status: Handler = async () => writeEmpty(ctx.res, 204, progressHeaders(ctx, known(), known().size));
  return {
    GET: status,
    HEAD: status,
    POST: () => startUpload(ctx),
    PATCH: async () => {
      const current = known();
      const contentType = ctx.req.headers['content-type'];
      if (contentType && contentType !== BLOB_MEDIA_TYPE) throw registryError('UNKNOWN', GO_ERROR);
      await ctx.storage.appendUpload(current.uuid, ctx.req);
      writeEmpty(ctx.res, 202, progressHeaders(ctx, current, await ctx.storage.uploadSize(current.uuid)));
    },
    PUT: async () => {
      const current = known();
      const digest = ctx.url.searchParams.get('digest') ?? '';
      if (!digest) throw registryError('DIGEST_INVALID', 'digest missing');
      if (digestProblem(digest)) throw registryError('DIGEST_INVALID', 'digest parsing failed');
      await ctx.storage.appendUpload(current.uuid, ctx.req);
      const result = await ctx.storage.commitUpload(ctx.route.repository, current.uuid, digest);
      if ('mismatch' in result) throw registryError('DIGEST_INVALID', { Digest: digest, Reason: GO_ERROR });
      const blob = result.committed;
      ctx.emit('push', blobTarget(ctx.route.repository, blob));
      writeEmpty(ctx.res, 201, { Location: `/v2/${ctx.route.repository}/blobs/${blob.digest}`, 'Docker-Content-Digest': blob.digest });
    },
    DELETE: async () => {
      const current = known();
      await ctx.storage.cancelUpload(current.uuid);
      writeEmpty(ctx.res, 204, { 'Docker-Upload-UUID': current.uuid });
    },
  };
}

/** `/blobs/uploads/` and `/blobs/uploads/<uuid>`; requests on one upload run one after another. */
export async function handleUploadRoute(ctx: RequestContext): Promise<void> {
  if (ctx.route.name === 'blob-upload') return dispatchMethod(ctx, uploadHandlers(ctx, null));
  await ctx.storage.uploadLock.run(ctx.route.reference, async () => {
    const upload = await resumeUpload(ctx);
    await dispatchMethod(ctx, uploadHandlers(ctx, upload));
  });
}

import { pipeline } from 'node:stream/promises';
import { dispatchMethod, writeEmpty, type RequestContext } from './context';
import { GO_ERROR, registryError, writePlain } from './errors';
import { BLOB_MEDIA_TYPE, blobTarget, deletionTarget } from './events';
import { digestProblem } from './routes';

/** Distribution's blob cache lifetime (blobCacheControlMaxAge, a year). */
const CACHE_CONTROL = 'max-age=31536000';

/** One `bytes=` range as Go's ServeContent reads it, clamped to the blob; 'unsatisfiable' → 416, null → the whole blob. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header?.startsWith('bytes=')) return null;
  const specs = header.slice('bytes='.length).split(',');
  // Several ranges would be a multipart answer; clients of a registry never ask for one.
  if (specs.length !== 1) return null;
  const match = /^\s*(\d*)-(\d*)\s*$/.exec(specs[0]!);
  if (!match || (match[1] === '' && match[2] === '')) return 'unsatisfiable';
  if (match[1] === '') {
    const suffix = Math.min(Number(match[2]), size);
    return suffix === 0 ? 'unsatisfiable' : { start: size - suffix, end: size - 1 };
  }
  const start = Number(match[1]);
  if (start >= size) return 'unsatisfiable';
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return end < start ? 'unsatisfiable' : { start, end };
}

/** Go's ServeContent compares If-None-Match against the ETag weakly, and `*` matches anything. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim().replace(/^W\//, '');
    return value === '*' || value === etag;
  });
}

/**
 * GET and HEAD: a blob linked in this repository, streamed from its file. Both count as a pull in
 * Distribution's events (the HEAD a client sends before uploading a layer too).
 */
async function getBlob(ctx: RequestContext, digest: string): Promise<void> {
  const name = ctx.route.repository;
  const blob = ctx.storage.layer(name, digest);
  const handle = blob && (await ctx.storage.openBlob(blob.digest));
  if (!blob || !handle) throw registryError('BLOB_UNKNOWN', digest);
  const etag = `"${blob.digest}"`;
  const headers: Record<string, string> = {
    ETag: etag,
    'Cache-Control': CACHE_CONTROL,
    'Docker-Content-Digest': blob.digest,
    'Content-Type': BLOB_MEDIA_TYPE,
    'Accept-Ranges': 'bytes',
  };
  try {
    if (noneMatch(ctx.req.headers['if-none-match'], etag)) {
      // Go answers the precondition before it would add Content-Type and Accept-Ranges.
      const { 'Content-Type': _type, 'Accept-Ranges': _ranges, ...rest } = headers;
      ctx.res.writeHead(304, rest);
      ctx.res.end();
      return;
    }
    const range = parseRange(ctx.req.headers.range, blob.size);
    if (range === 'unsatisfiable') {
      writePlain(ctx.res, 416, 'invalid range: failed to overlap', { ...headers, 'Content-Range': `bytes */${blob.size}` });
      return;
    }
    const { start, end } = range ?? { start: 0, end: blob.size - 1 };
    const length = blob.size === 0 ? 0 : end - start + 1;
    ctx.res.writeHead(range ? 206 : 200, {
      ...headers,
      'Content-Length': String(length),
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${blob.size}` } : {}),
    });
    if (ctx.req.method === 'HEAD' || length === 0) {
      ctx.res.end();
      return;
    }
    await pipeline(handle.createReadStream({ start, end, autoClose: false }), ctx.res).catch(() => {
      // The client went away mid-blob; Distribution ignores that too, and still records the pull.
    });
  } finally {
    await handle.close();
    ctx.emit('pull', blobTarget(name, blob));
  }
}

/** Removes this repository's link to the blob (the bytes stay until a garbage collection). */
async function deleteBlob(ctx: RequestContext, digest: string): Promise<void> {
  const name = ctx.route.repository;
  if (!ctx.storage.layer(name, digest)) throw registryError('BLOB_UNKNOWN');
  await ctx.storage.unlinkLayer(name, digest);
  ctx.emit('delete', deletionTarget(name, { digest }));
  writeEmpty(ctx.res, 202, {});
}

export async function handleBlobRoute(ctx: RequestContext): Promise<void> {
  const digest = ctx.route.reference;
  // The router accepts any algorithm and length; go-digest then refuses before the method is looked at.
  if (digestProblem(digest)) throw registryError('DIGEST_INVALID', GO_ERROR);
  await dispatchMethod(ctx, {
    GET: () => getBlob(ctx, digest),
    HEAD: () => getBlob(ctx, digest),
    DELETE: () => deleteBlob(ctx, digest),
  });
}

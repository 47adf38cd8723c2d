import { dispatchMethod, type RequestContext } from './context';
import { registryError } from './errors';

/** Go's strconv.Atoi: an optional sign and decimal digits; NaN otherwise. */
function atoi(value: string): number {
  return /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
}

/**
 * The tags list. Distribution 2.8 answers `"tags": null` for a repository whose tags were all
 * removed, and 404 NAME_UNKNOWN for one that never had a tag. It ignores `n` and `last`; here they
 * paginate as in Distribution 3 and the OCI spec (tags after `last`, at most `n`, a `Link` to the
 * next page while more remain), so clients that follow `Link` work against both.
 */
async function listTags(ctx: RequestContext): Promise<void> {
  const name = ctx.route.repository;
  let tags = ctx.storage.tags(name);
  if (!tags) throw registryError('NAME_UNKNOWN', { name });
  const last = ctx.url.searchParams.get('last') ?? '';
  const n = ctx.url.searchParams.get('n') ?? '';
  if (last) tags = tags.filter((tag) => tag > last);
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  if (n) {
    const limit = atoi(n);
    if (!Number.isSafeInteger(limit) || limit < 0) throw registryError('PAGINATION_NUMBER_INVALID', { n: Number.isNaN(limit) ? 0 : limit });
    if (tags.length > limit) {
      tags = tags.slice(0, limit);
      if (limit > 0) {
        const next = new URLSearchParams({ last: tags[limit - 1]!, n: String(limit) });
        headers.Link = `</v2/${name}/tags/list?${next.toString()}>; rel="next"`;
      }
    }
  }
  const body = `${JSON.stringify({ name, tags: tags.length > 0 ? tags : null })}\n`;
  ctx.res.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  ctx.res.end(body);
}

export function handleTagRoute(ctx: RequestContext): Promise<void> {
  return dispatchMethod(ctx, { GET: () => listTags(ctx) });
}

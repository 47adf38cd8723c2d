import { z } from 'zod';
import { AppError } from '../../platform/errors';
import type { ManifestInfo, RepositoryAccess, TagRef } from './types';

export interface RegistryClientOptions {
  /** The registry's base URL; null while it cannot be reached. */
  baseUrl: () => string | null;
  /** Signs a token for the platform's own subject. */
  token: (access: RepositoryAccess[]) => Promise<string>;
  timeoutMs?: number;
}

/** Every manifest kind a client may push, so a look-up finds what is there whatever it is. */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

/** Distribution's repository name grammar: lower-case components joined by slashes (255 characters at most). */
export const REPOSITORY_NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-f0-9]{32,}$/;
/** Tag digests are looked up this many at a time. */
const HEAD_CONCURRENCY = 8;
/** Distribution 2.8 lists every tag at once; a paginating registry gets this many pages at most. */
const MAX_TAG_PAGES = 1000;

const tagsSchema = z.object({ tags: z.array(z.string()).nullable().optional() });
const descriptorSchema = z.object({ size: z.number().nonnegative() });
const manifestSchema = z.object({
  mediaType: z.string().optional(),
  config: descriptorSchema.optional(),
  layers: z.array(descriptorSchema).optional(),
  manifests: z.array(descriptorSchema).optional(),
});

/**
 * The platform's own calls to the registry API, with tokens minted for its subject. The registry's
 * 401 challenge names only the scope of the request it refused, so each call mints the scope it
 * needs up front instead of following challenges.
 */
export class RegistryClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: RegistryClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async listTags(repository: string): Promise<TagRef[]> {
    checkName(repository);
    const token = await this.options.token([{ repository, actions: ['pull'] }]);
    const tags: string[] = [];
    let next: string | null = `/v2/${repository}/tags/list`;
    for (let page = 0; next !== null; page += 1) {
      if (page >= MAX_TAG_PAGES) throw upstream(`The registry's tag list of ${repository} does not end`);
      const res = await this.request('GET', next, token);
      // NAME_UNKNOWN: the registry has never stored anything under this name.
      if (res.status === 404) {
        await res.body?.cancel();
        return [];
      }
      if (res.status !== 200) throw await unexpected(res, `listing the tags of ${repository}`);
      const parsed = tagsSchema.safeParse(await res.json().catch(() => null));
      if (!parsed.success) throw upstream(`The registry's tag list of ${repository} is not understood`);
      // `tags: null` once every manifest of a repository was deleted.
      tags.push(...(parsed.data.tags ?? []));
      next = nextPage(res.headers.get('link'));
    }
    const refs = await mapConcurrently(tags, HEAD_CONCURRENCY, (tag) => this.tagDigest(repository, tag, token));
    return refs.filter((ref): ref is TagRef => ref !== null);
  }

  async manifest(repository: string, digest: string): Promise<ManifestInfo | null> {
    checkName(repository);
    checkDigest(digest);
    const token = await this.options.token([{ repository, actions: ['pull'] }]);
    const res = await this.request('GET', `/v2/${repository}/manifests/${digest}`, token, { accept: MANIFEST_ACCEPT });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (res.status !== 200) throw await unexpected(res, `reading manifest ${digest} of ${repository}`);
    const body = Buffer.from(await res.arrayBuffer());
    let parsed: z.infer<typeof manifestSchema>;
    try {
      parsed = manifestSchema.parse(JSON.parse(body.toString('utf8')));
    } catch (err) {
      throw upstream(`Manifest ${digest} of ${repository} is not understood`, err);
    }
    const sum = (descriptors: { size: number }[] | undefined) => (descriptors ?? []).reduce((total, d) => total + d.size, 0);
    const referenced = parsed.manifests ? sum(parsed.manifests) : (parsed.config?.size ?? 0) + sum(parsed.layers);
    const contentType = res.headers.get('content-type')?.split(';')[0]?.trim();
    return { digest, mediaType: contentType || parsed.mediaType || '', sizeBytes: body.length + referenced };
  }

  async deleteManifest(repository: string, digest: string): Promise<boolean> {
    checkName(repository);
    checkDigest(digest);
    const token = await this.options.token([{ repository, actions: ['delete'] }]);
    const res = await this.request('DELETE', `/v2/${repository}/manifests/${digest}`, token);
    await res.body?.cancel();
    if (res.status === 202) return true;
    if (res.status === 404) return false;
    throw await unexpected(res, `deleting manifest ${digest} of ${repository}`);
  }

  /** Null when the tag went away between the listing and this look-up. */
  private async tagDigest(repository: string, tag: string, token: string): Promise<TagRef | null> {
    const res = await this.request('HEAD', `/v2/${repository}/manifests/${encodeURIComponent(tag)}`, token, { accept: MANIFEST_ACCEPT });
    if (res.status === 404) return null;
    const digest = res.headers.get('docker-content-digest');
    if (res.status !== 200 || !digest) throw await unexpected(res, `resolving tag ${tag} of ${repository}`);
    return { tag, digest };
  }

  private async request(method: string, path: string, token: string, headers: Record<string, string> = {}): Promise<Response> {
    const base = this.options.baseUrl();
    if (!base) throw upstream('The registry is not available right now; try again shortly');
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw upstream('The registry could not be reached', err);
    }
    if (res.status >= 500) throw await unexpected(res, `${method} ${path.split('?')[0]}`);
    return res;
  }
}

function checkName(repository: string): void {
  if (repository.length > 255 || !REPOSITORY_NAME.test(repository))
    throw new AppError('BAD_REQUEST', `${JSON.stringify(repository)} is not a valid repository name`);
}

function checkDigest(digest: string): void {
  if (!DIGEST.test(digest)) throw new AppError('BAD_REQUEST', `${JSON.stringify(digest)} is not a valid digest`);
}

function upstream(message: string, cause?: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, cause === undefined ? {} : { cause });
}

/** An answer the platform's own request should never get, with the registry's error code when it gave one. */
async function unexpected(res: Response, what: string): Promise<AppError> {
  const text = await res.text().catch(() => '');
  let code = '';
  try {
    code = (JSON.parse(text) as { errors?: { code?: string }[] }).errors?.[0]?.code ?? '';
  } catch {
    // Not the registry's envelope.
  }
  return upstream(`The registry answered ${res.status}${code ? ` ${code}` : ''} when ${what}`);
}

/** The path and query of the `rel="next"` link; the origin is always the client's own. */
function nextPage(link: string | null): string | null {
  const target = link ? /<([^>]+)>\s*;\s*rel="?next"?/i.exec(link)?.[1] : undefined;
  if (!target) return null;
  const url = new URL(target, 'http://registry.invalid');
  return `${url.pathname}${url.search}`;
}

async function mapConcurrently<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < items.length) {
      const index = nextIndex++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

import { createHash } from 'node:crypto';
import { dispatchMethod, readBody, writeEmpty, type RequestContext } from './context';
import { GO_ERROR, RegistryError, registryError, type RegistryErrorItem } from './errors';
import { deletionTarget, manifestTarget } from './events';
import { MAX_MANIFEST_BYTES, MEDIA_TYPES, ManifestDecodeError, OCI_LAYER_TYPES, decodeForPut, decodeStored, type Descriptor, type Manifest } from './manifests';
import { digestProblem } from './routes';

const sha256 = (data: Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** A reference that go-digest parses is a digest; anything else the router let through is a tag. */
function parseReference(reference: string): { tag: string; digest: null } | { tag: null; digest: string } {
  return digestProblem(reference) ? { tag: reference, digest: null } : { tag: null, digest: reference };
}

/** The media types an Accept header lists, parameters dropped, as Distribution reads it. */
function accepted(header: string | undefined): Set<string> {
  return new Set((header ?? '').split(',').map((part) => part.split(';')[0]!.trim()));
}

function etagMatches(header: string | undefined, digest: string): boolean {
  return header === digest || header === `"${digest}"`;
}

/** `manifests.Get` behind Distribution's event listener: reading a manifest is what counts as a pull. */
async function loadManifest(ctx: RequestContext, digest: string, tag: string | null): Promise<{ manifest: Manifest; body: Buffer }> {
  const name = ctx.route.repository;
  const stored = ctx.storage.manifest(name, digest);
  if (!stored) throw registryError('MANIFEST_UNKNOWN', { Name: name, Revision: digest });
  const body = await ctx.storage.readBlob(stored.digest);
  const manifest = decodeStored(body);
  if (!manifest) throw registryError('UNKNOWN', GO_ERROR);
  ctx.emit('pull', manifestTarget(name, { mediaType: manifest.payloadMediaType, digest: sha256(body), size: body.length }, tag));
  return { manifest, body };
}

/**
 * GET and HEAD by tag or digest. A HEAD reads the manifest too, so it is a pull event as well. A
 * client that does not accept OCI types gets 404 for an OCI manifest or index; one that does not
 * accept Docker lists gets the linux/amd64 image of a list addressed by tag.
 */
async function getManifest(ctx: RequestContext): Promise<void> {
  const name = ctx.route.repository;
  const supports = accepted(ctx.req.headers.accept);
  const reference = parseReference(ctx.route.reference);
  let digest = reference.digest ?? ctx.storage.tag(name, reference.tag);
  if (!digest) throw registryError('MANIFEST_UNKNOWN', { Tag: reference.tag });
  if (etagMatches(ctx.req.headers['if-none-match'], digest)) {
    ctx.res.writeHead(304);
    ctx.res.end();
    return;
  }
  let { manifest, body } = await loadManifest(ctx, digest, reference.tag);
  if (manifest.schema === 'oci' && !supports.has(MEDIA_TYPES.ociManifest)) {
    throw registryError('MANIFEST_UNKNOWN', undefined, 'OCI manifest found, but accept header does not support OCI manifests');
  }
  if (manifest.declaredMediaType === MEDIA_TYPES.ociIndex && !supports.has(MEDIA_TYPES.ociIndex)) {
    throw registryError('MANIFEST_UNKNOWN', undefined, 'OCI index found, but accept header does not support OCI indexes');
  }
  if (reference.tag && manifest.declaredMediaType === MEDIA_TYPES.dockerList && !supports.has(MEDIA_TYPES.dockerList)) {
    const image = manifest.references.find((child) => child.platform?.architecture === 'amd64' && child.platform.os === 'linux');
    if (!image) throw registryError('MANIFEST_UNKNOWN');
    ({ manifest, body } = await loadManifest(ctx, image.digest, null));
    digest = image.digest;
  }
  ctx.res.writeHead(200, {
    'Content-Type': manifest.payloadMediaType,
    'Content-Length': String(body.length),
    'Docker-Content-Digest': digest,
    Etag: `"${digest}"`,
  });
  ctx.res.end(body);
}

type Problem = 'unknown' | 'digest-format' | 'other';

/** What Distribution's verification says of one referenced digest; null when it is there. */
function problemOf(digest: string, present: (digest: string) => boolean): Problem | null {
  const problem = digestProblem(digest);
  if (problem === 'format') return 'digest-format';
  if (problem) return 'other';
  return present(digest) ? null : 'unknown';
}

/**
 * The storage handlers' `verifyManifest`, item for item: each missing reference is a
 * MANIFEST_BLOB_UNKNOWN naming its digest; a malformed digest adds DIGEST_INVALID before it, and
 * anything else Distribution stumbles on (foreign layers and layer URLs, which its default policy
 * allows none of; digests of another algorithm or length) adds an UNKNOWN pair that makes the
 * answer a 500.
 */
function verifyReferences(ctx: RequestContext, manifest: Manifest): RegistryErrorItem[] {
  const name = ctx.route.repository;
  const isLayer = (digest: string) => ctx.storage.layer(name, digest) !== null;
  const isManifest = (digest: string) => ctx.storage.manifest(name, digest) !== null;
  const check = (reference: Descriptor): Problem | null => {
    if (manifest.schema === 'list') return problemOf(reference.digest, isManifest);
    if (manifest.schema === 'oci' && OCI_LAYER_TYPES.includes(reference.mediaType)) {
      return reference.urls.length > 0 ? 'other' : problemOf(reference.digest, isLayer);
    }
    if (manifest.schema === 'schema2' && reference.mediaType === MEDIA_TYPES.dockerForeignLayer) return 'other';
    const nested =
      manifest.schema === 'oci'
        ? reference.mediaType === MEDIA_TYPES.ociManifest
        : reference.mediaType === MEDIA_TYPES.dockerManifest || reference.mediaType === MEDIA_TYPES.dockerSchema1;
    if (reference.urls.length === 0) return problemOf(reference.digest, isLayer);
    // With URLs, only a nested manifest is checked at all.
    return nested && !isManifest(reference.digest) ? 'unknown' : null;
  };
  const items: RegistryErrorItem[] = [];
  for (const reference of manifest.references) {
    const problem = check(reference);
    if (!problem) continue;
    if (problem === 'digest-format') items.push({ code: 'DIGEST_INVALID' });
    if (problem === 'other') items.push({ code: 'UNKNOWN' }, { code: 'UNKNOWN', detail: GO_ERROR });
    items.push({ code: 'MANIFEST_BLOB_UNKNOWN', detail: reference.digest });
  }
  return items;
}

/** PUT by tag (moves the tag) or by digest (must be the body's). */
async function putManifest(ctx: RequestContext): Promise<void> {
  const name = ctx.route.repository;
  const reference = parseReference(ctx.route.reference);
  const body = await readBody(ctx.req, MAX_MANIFEST_BYTES);
  if (!body) throw registryError('MANIFEST_INVALID', 'http: request body too large');
  let manifest: Manifest;
  try {
    manifest = decodeForPut(ctx.req.headers['content-type'], body);
  } catch (err) {
    if (err instanceof ManifestDecodeError) throw registryError('MANIFEST_INVALID', GO_ERROR);
    throw err;
  }
  const digest = sha256(body);
  if (reference.digest && reference.digest !== digest) throw registryError('DIGEST_INVALID');
  if (manifest.schemaVersion !== 2) throw registryError('UNKNOWN', GO_ERROR);
  const problems = verifyReferences(ctx, manifest);
  if (problems.length > 0) throw new RegistryError(problems);
  await ctx.storage.putManifest(name, digest, body, reference.tag);
  ctx.emit('push', manifestTarget(name, { mediaType: manifest.payloadMediaType, digest, size: body.length }, reference.tag));
  writeEmpty(ctx.res, 201, { Location: `/v2/${name}/manifests/${digest}`, 'Docker-Content-Digest': digest });
}

/**
 * DELETE by digest: the manifest and every tag naming it (one event each). By tag, 2.8 looks up
 * an empty digest and answers 400 DIGEST_INVALID.
 */
async function deleteManifest(ctx: RequestContext): Promise<void> {
  const name = ctx.route.repository;
  const { digest } = parseReference(ctx.route.reference);
  if (!digest) throw registryError('DIGEST_INVALID');
  if (!ctx.storage.manifest(name, digest)) throw registryError('MANIFEST_UNKNOWN');
  const untagged = await ctx.storage.deleteManifest(name, digest);
  ctx.emit('delete', deletionTarget(name, { digest }));
  for (const tag of untagged) ctx.emit('delete', deletionTarget(name, { tag }));
  writeEmpty(ctx.res, 202, {});
}

export function handleManifestRoute(ctx: RequestContext): Promise<void> {
  return dispatchMethod(ctx, { GET: () => getManifest(ctx), HEAD: () => getManifest(ctx), PUT: () => putManifest(ctx), DELETE: () => deleteManifest(ctx) });
}

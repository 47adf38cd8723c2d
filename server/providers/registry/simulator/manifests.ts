/**
 * Manifests as Distribution 2.8 reads them: which Content-Type selects which schema, what each
 * schema refuses while decoding (Go's typed JSON decoding, the mediaType field), what a manifest
 * references, and the media type a GET answers with.
 */

export const MEDIA_TYPES = {
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerForeignLayer: 'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
} as const;

/** OCI layer types whose `urls` Distribution checks against its (default: allow nothing) URL policy. */
export const OCI_LAYER_TYPES: readonly string[] = [
  'application/vnd.oci.image.layer.v1.tar',
  'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.oci.image.layer.nondistributable.v1.tar',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
];

/** Distribution refuses bigger manifest bodies (maxManifestBodySize). */
export const MAX_MANIFEST_BYTES = 4 << 20;

export interface Descriptor {
  mediaType: string;
  size: number;
  digest: string;
  urls: string[];
  platform: { architecture: string; os: string } | null;
}

export interface Manifest {
  schema: 'schema2' | 'oci' | 'list';
  /** The body's own mediaType field ('' when absent), which decides what a GET's Accept must allow. */
  declaredMediaType: string;
  /** What Distribution's `Payload()` names the manifest: the Content-Type of a GET and the events' mediaType. */
  payloadMediaType: string;
  schemaVersion: number;
  /** Config then layers, or the child manifests of a list or index. */
  references: Descriptor[];
}

/** Why a body is not a manifest of its Content-Type; Distribution answers MANIFEST_INVALID. */
export class ManifestDecodeError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Go's json.Unmarshal into typed structs: null leaves the zero value, any other mismatch fails.
function stringField(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ManifestDecodeError('expected a string');
  return value;
}

function integerField(value: Json | undefined): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ManifestDecodeError('expected an integer');
  return value;
}

function objectField(value: Json | undefined): { [key: string]: Json } {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new ManifestDecodeError('expected an object');
  return value;
}

function arrayField(value: Json | undefined): Json[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new ManifestDecodeError('expected an array');
  return value;
}

function descriptor(value: Json | undefined): Descriptor {
  const object = objectField(value);
  const platform = object.platform === undefined || object.platform === null ? null : objectField(object.platform);
  const annotations = objectField(object.annotations);
  for (const annotation of Object.values(annotations)) stringField(annotation);
  return {
    mediaType: stringField(object.mediaType),
    size: integerField(object.size),
    digest: stringField(object.digest),
    urls: (arrayField(object.urls) ?? []).map(stringField),
    platform: platform && { architecture: stringField(platform.architecture), os: stringField(platform.os) },
  };
}

function parseJson(body: Buffer): { [key: string]: Json } {
  let value: Json;
  try {
    value = JSON.parse(body.toString('utf8')) as Json;
  } catch {
    throw new ManifestDecodeError('invalid JSON');
  }
  return objectField(value);
}

function imageManifest(document: { [key: string]: Json }, schema: 'schema2' | 'oci'): Manifest {
  const layers = arrayField(document.layers) ?? [];
  return {
    schema,
    declaredMediaType: stringField(document.mediaType),
    payloadMediaType: schema === 'oci' ? MEDIA_TYPES.ociManifest : MEDIA_TYPES.dockerManifest,
    schemaVersion: integerField(document.schemaVersion),
    references: [descriptor(document.config), ...layers.map(descriptor)],
  };
}

function manifestList(document: { [key: string]: Json }): Manifest {
  const declaredMediaType = stringField(document.mediaType);
  return {
    schema: 'list',
    declaredMediaType,
    // An OCI index may leave its mediaType out; Distribution names it an OCI index then.
    payloadMediaType: declaredMediaType || MEDIA_TYPES.ociIndex,
    schemaVersion: integerField(document.schemaVersion),
    references: (arrayField(document.manifests) ?? []).map(descriptor),
  };
}

function decodeSchema2(document: { [key: string]: Json }): Manifest {
  if (stringField(document.mediaType) !== MEDIA_TYPES.dockerManifest) throw new ManifestDecodeError('mediaType in manifest should be schema2');
  return imageManifest(document, 'schema2');
}

function decodeOciManifest(document: { [key: string]: Json }): Manifest {
  if (document.manifests !== undefined && document.manifests !== null) throw new ManifestDecodeError('ocimanifest: expected manifest but found index');
  const mediaType = stringField(document.mediaType);
  if (mediaType !== '' && mediaType !== MEDIA_TYPES.ociManifest) throw new ManifestDecodeError('if present, mediaType in manifest should be OCI');
  return imageManifest(document, 'oci');
}

function decodeDockerList(document: { [key: string]: Json }): Manifest {
  const manifest = manifestList(document);
  if (manifest.declaredMediaType !== MEDIA_TYPES.dockerList) throw new ManifestDecodeError('mediaType in manifest list should be the list type');
  return manifest;
}

function decodeOciIndex(document: { [key: string]: Json }): Manifest {
  const hasValue = (value: Json | undefined) => value !== undefined && value !== null;
  if (hasValue(document.config) || hasValue(document.layers)) throw new ManifestDecodeError('index: expected index but found manifest');
  const manifest = manifestList(document);
  if (manifest.declaredMediaType !== '' && manifest.declaredMediaType !== MEDIA_TYPES.ociIndex)
    throw new ManifestDecodeError('if present, mediaType in image index should be OCI');
  return manifest;
}

/** The media type of a Content-Type header as Go's mime.ParseMediaType finds it; null when malformed. */
function headerMediaType(contentType: string | undefined): string | null {
  if (!contentType) return '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(mediaType) ? mediaType : null;
}

/**
 * `distribution.UnmarshalManifest` for a PUT: the Content-Type picks the schema. Any other type
 * (none, application/json, schema 1) falls to schema 1, which 2.8 refuses here.
 */
export function decodeForPut(contentType: string | undefined, body: Buffer): Manifest {
  const mediaType = headerMediaType(contentType);
  if (mediaType === null) throw new ManifestDecodeError('mime: invalid media type');
  switch (mediaType) {
    case MEDIA_TYPES.dockerManifest:
      return decodeSchema2(parseJson(body));
    case MEDIA_TYPES.ociManifest:
      return decodeOciManifest(parseJson(body));
    case MEDIA_TYPES.dockerList:
      return decodeDockerList(parseJson(body));
    case MEDIA_TYPES.ociIndex:
      return decodeOciIndex(parseJson(body));
    default:
      throw new ManifestDecodeError('schema 1 manifests are not supported');
  }
}

/**
 * `manifestStore.Get`: a stored manifest is read back by its own fields, not by the type it was
 * pushed with. Null when Distribution could not read it (it answers 500 UNKNOWN then).
 */
export function decodeStored(body: Buffer): Manifest | null {
  try {
    const document = parseJson(body);
    if (integerField(document.schemaVersion) !== 2) return null;
    switch (stringField(document.mediaType)) {
      case MEDIA_TYPES.dockerManifest:
        return imageManifest(document, 'schema2');
      case MEDIA_TYPES.ociManifest:
        return decodeOciManifest(document);
      case MEDIA_TYPES.dockerList:
      case MEDIA_TYPES.ociIndex:
        return manifestList(document);
      case '':
        return document.manifests !== undefined && document.manifests !== null ? manifestList(document) : decodeOciManifest(document);
      default:
        return null;
    }
  } catch (err) {
    if (err instanceof ManifestDecodeError) return null;
    throw err;
  }
}

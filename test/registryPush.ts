import { createHash, randomBytes } from 'node:crypto';

/** What a registry client does to push, spelled out in HTTP: each blob uploaded, then the manifest under a tag. */
export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';

export interface PushedImage {
  digest: string;
  manifest: Buffer;
  /** Manifest, config and layers. */
  sizeBytes: number;
  layers: { digest: string; size: number; data: Buffer }[];
}

const sha256 = (data: Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

function bearer(token: string | null): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** A refused step of a push: its status and body, for tests that expect the registry to refuse. */
export class RegistryRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`registry answered ${status}: ${body}`);
  }
}

export async function uploadBlob(baseUrl: string, token: string | null, repository: string, data: Buffer): Promise<string> {
  const digest = sha256(data);
  const started = await fetch(`${baseUrl}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers: bearer(token) });
  if (started.status !== 202) throw new RegistryRefusal(started.status, await started.text());
  const location = new URL(started.headers.get('location')!, baseUrl);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': 'application/octet-stream', 'content-length': String(data.length) },
    body: new Uint8Array(data),
  });
  if (put.status !== 201) throw new RegistryRefusal(put.status, await put.text());
  return digest;
}

/**
 * Builds an image of `layerCount` random layers (distinct content unless `seed` repeats) and pushes
 * it under `tag`. A refused blob upload answers with its status and body, as a refused manifest does.
 */
export async function pushImage(
  baseUrl: string,
  token: string | null,
  repository: string,
  tag: string,
  options: { layerBytes?: number; layerCount?: number; seed?: string } = {},
): Promise<PushedImage & { status: number; body: string }> {
  const layerBytes = options.layerBytes ?? 512;
  const layers = Array.from({ length: options.layerCount ?? 1 }, (_, i) => {
    const data = options.seed ? Buffer.alloc(layerBytes, `${options.seed}-${i}`) : randomBytes(layerBytes);
    return { digest: sha256(data), size: data.length, data };
  });
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) } }));
  let configDigest: string;
  try {
    for (const layer of layers) await uploadBlob(baseUrl, token, repository, layer.data);
    configDigest = await uploadBlob(baseUrl, token, repository, config);
  } catch (err) {
    if (!(err instanceof RegistryRefusal)) throw err;
    return { status: err.status, body: err.body, digest: '', manifest: Buffer.alloc(0), sizeBytes: 0, layers };
  }
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST_MEDIA_TYPE,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: layers.map((l) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: l.digest, size: l.size })),
    }),
  );
  const res = await fetch(`${baseUrl}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': MANIFEST_MEDIA_TYPE },
    body: new Uint8Array(manifest),
  });
  return {
    status: res.status,
    body: await res.text(),
    digest: sha256(manifest),
    manifest,
    sizeBytes: manifest.length + config.length + layers.reduce((sum, l) => sum + l.size, 0),
    layers,
  };
}

/** A pull as clients do it: the manifest by tag or digest, then every layer. Returns the first status that was not 200. */
export async function pullImage(baseUrl: string, token: string | null, repository: string, reference: string): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${baseUrl}/v2/${repository}/manifests/${reference}`, {
    headers: { ...bearer(token), accept: `${MANIFEST_MEDIA_TYPE}, application/vnd.docker.distribution.manifest.v2+json` },
  });
  if (res.status !== 200) return { status: res.status, bytes: 0 };
  const manifest = (await res.json()) as { config: { digest: string }; layers: { digest: string }[] };
  let bytes = 0;
  for (const blob of [manifest.config, ...manifest.layers]) {
    const blobRes = await fetch(`${baseUrl}/v2/${repository}/blobs/${blob.digest}`, { headers: bearer(token) });
    if (blobRes.status !== 200) return { status: blobRes.status, bytes };
    bytes += (await blobRes.arrayBuffer()).byteLength;
  }
  return { status: 200, bytes };
}

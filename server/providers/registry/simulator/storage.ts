import { createHash, randomBytes, randomUUID, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { KeyedMutex, Mutex } from './lock';
import { decodeStored } from './manifests';
import { digestAlgorithm } from './routes';

/**
 * The registry's storage, modelled on Distribution's filesystem layout: one content-addressed blob
 * store shared by every repository (manifests are blobs too), and per repository the links that
 * make a blob visible there (`_layers`), the manifests pushed to it (`_manifests/revisions`) and its
 * tags. Blobs and uploads are files under the data directory; everything else is one index file,
 * rewritten atomically after each change, so a restart over the same directory finds it all again.
 */

interface RepositoryRecord {
  /** `_layers` links: digest → the sha256 blob it names (itself, unless it is a sha384/sha512 alias). */
  layers: Map<string, string>;
  /** `_manifests/revisions`: manifests pushed to this repository. */
  revisions: Set<string>;
  tags: Map<string, string>;
  /**
   * Distribution lists tags by reading a directory that the first tag creates and nothing removes:
   * without it the repository is unknown to the tags list, with it and no tags the list is `null`.
   */
  tagDirectory: boolean;
}

export interface UploadRecord {
  repository: string;
  startedAt: string;
}

interface IndexDocument {
  version: 1;
  /** Signs the `_state` of upload URLs, as Distribution's `http.secret`. */
  secret: string;
  blobs: Record<string, number>;
  repositories: Record<string, { layers: Record<string, string>; revisions: string[]; tags: Record<string, string>; tagDirectory: boolean }>;
  uploads: Record<string, UploadRecord>;
}

export interface BlobInfo {
  digest: string;
  size: number;
}

export type CommitResult = { committed: BlobInfo } | { mismatch: true };

/** Counts and hashes what streams through, for an upload written wholly by this process. */
class HashTap extends Transform {
  constructor(private readonly tracked: { hash: Hash; size: number }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null, data?: Buffer) => void): void {
    this.tracked.hash.update(chunk);
    this.tracked.size += chunk.length;
    callback(null, chunk);
  }
}

async function hashFile(file: string, algorithms: readonly string[]): Promise<Map<string, string>> {
  const hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)] as const);
  for await (const chunk of createReadStream(file)) for (const [, hash] of hashes) hash.update(chunk as Buffer);
  return new Map(hashes.map(([algorithm, hash]) => [algorithm, `${algorithm}:${hash.digest('hex')}`]));
}

export class RegistryStorage {
  private readonly blobs = new Map<string, number>();
  private readonly repositories = new Map<string, RepositoryRecord>();
  private readonly uploads = new Map<string, UploadRecord>();
  /** Hash state of uploads whose every byte arrived in this process; others are hashed again at commit. */
  private readonly uploadHashes = new Map<string, { hash: Hash; size: number }>();
  /** Moving blobs into the store and garbage collection exclude each other. */
  private readonly blobLock = new Mutex();
  readonly uploadLock = new KeyedMutex();
  private saving: Promise<void> = Promise.resolve();
  private queuedSave: Promise<void> | null = null;
  private tmpCounter = 0;

  private constructor(
    private readonly dataDir: string,
    readonly secret: string,
  ) {}

  static async open(dataDir: string): Promise<RegistryStorage> {
    await mkdir(path.join(dataDir, 'blobs', 'sha256'), { recursive: true });
    await mkdir(path.join(dataDir, 'uploads'), { recursive: true });
    await rm(path.join(dataDir, 'tmp'), { recursive: true, force: true });
    await mkdir(path.join(dataDir, 'tmp'), { recursive: true });
    let document: IndexDocument | null = null;
    try {
      document = JSON.parse(await readFile(path.join(dataDir, 'index.json'), 'utf8')) as IndexDocument;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const storage = new RegistryStorage(dataDir, document?.secret ?? randomBytes(32).toString('hex'));
    if (document) storage.load(document);
    else await storage.save();
    return storage;
  }

  private load(document: IndexDocument): void {
    for (const [digest, size] of Object.entries(document.blobs)) this.blobs.set(digest, size);
    for (const [name, record] of Object.entries(document.repositories)) {
      this.repositories.set(name, {
        layers: new Map(Object.entries(record.layers)),
        revisions: new Set(record.revisions),
        tags: new Map(Object.entries(record.tags)),
        tagDirectory: record.tagDirectory,
      });
    }
    for (const [uuid, upload] of Object.entries(document.uploads)) this.uploads.set(uuid, upload);
  }

  private document(): IndexDocument {
    const repositories: IndexDocument['repositories'] = {};
    for (const [name, record] of this.repositories) {
      repositories[name] = {
        layers: Object.fromEntries(record.layers),
        revisions: [...record.revisions],
        tags: Object.fromEntries(record.tags),
        tagDirectory: record.tagDirectory,
      };
    }
    return { version: 1, secret: this.secret, blobs: Object.fromEntries(this.blobs), repositories, uploads: Object.fromEntries(this.uploads) };
  }

  private tmpPath(): string {
    this.tmpCounter += 1;
    return path.join(this.dataDir, 'tmp', `${process.pid}-${this.tmpCounter}-${randomBytes(4).toString('hex')}`);
  }

  /** Written to a temporary file, flushed, then renamed over the target: readers never see half a file. */
  private async writeAtomic(target: string, data: Buffer | string): Promise<void> {
    const tmp = this.tmpPath();
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  }

  /**
   * Persists the index. Callers answer their request only after this resolves, so an answered
   * change survives a restart; concurrent changes share one write that includes them all.
   */
  save(): Promise<void> {
    if (this.queuedSave) return this.queuedSave;
    const run = this.saving.then(async () => {
      this.queuedSave = null;
      await this.writeAtomic(path.join(this.dataDir, 'index.json'), JSON.stringify(this.document()));
    });
    this.queuedSave = run;
    this.saving = run.catch(() => undefined);
    return run;
  }

  blobPath(digest: string): string {
    return path.join(this.dataDir, 'blobs', digestAlgorithm(digest), digest.slice(digest.indexOf(':') + 1));
  }

  private uploadPath(uuid: string): string {
    return path.join(this.dataDir, 'uploads', uuid);
  }

  private repository(name: string): RepositoryRecord | undefined {
    return this.repositories.get(name);
  }

  private ensureRepository(name: string): RepositoryRecord {
    let record = this.repositories.get(name);
    if (!record) {
      record = { layers: new Map(), revisions: new Set(), tags: new Map(), tagDirectory: false };
      this.repositories.set(name, record);
    }
    return record;
  }

  private present(digest: string | undefined): BlobInfo | null {
    if (digest === undefined) return null;
    const size = this.blobs.get(digest);
    return size === undefined ? null : { digest, size };
  }

  /** A blob as the repository sees it: linked there (uploaded or mounted) and still in the store. */
  layer(name: string, digest: string): BlobInfo | null {
    return this.present(this.repository(name)?.layers.get(digest));
  }

  /** A manifest of the repository; like Distribution, a blob linked as a layer also counts. */
  manifest(name: string, digest: string): BlobInfo | null {
    const record = this.repository(name);
    if (!record) return null;
    return this.present(record.revisions.has(digest) ? digest : record.layers.get(digest));
  }

  readBlob(digest: string): Promise<Buffer> {
    return readFile(this.blobPath(digest));
  }

  /** Opened before anything is answered, so a garbage collection cannot pull it away mid-answer. */
  async openBlob(digest: string): Promise<FileHandle | null> {
    try {
      return await open(this.blobPath(digest), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** The repository's tags, sorted; null when Distribution would not know the repository (no tag ever). */
  tags(name: string): string[] | null {
    const record = this.repository(name);
    if (!record?.tagDirectory) return null;
    return [...record.tags.keys()].sort();
  }

  tag(name: string, tag: string): string | undefined {
    return this.repository(name)?.tags.get(tag);
  }

  async putManifest(name: string, digest: string, body: Buffer, tag: string | null): Promise<void> {
    await this.blobLock.run(async () => {
      if (!this.blobs.has(digest)) {
        await this.writeAtomic(this.blobPath(digest), body);
        this.blobs.set(digest, body.length);
      }
      const record = this.ensureRepository(name);
      record.revisions.add(digest);
      if (tag !== null) {
        record.tags.set(tag, digest);
        record.tagDirectory = true;
      }
    });
    await this.save();
  }

  /** Distribution's manifest delete: both links go, then every tag naming the digest. Returns those tags. */
  async deleteManifest(name: string, digest: string): Promise<string[]> {
    const record = this.repository(name);
    if (!record) return [];
    record.revisions.delete(digest);
    record.layers.delete(digest);
    const untagged = [...record.tags].filter(([, target]) => target === digest).map(([tag]) => tag);
    for (const tag of untagged) record.tags.delete(tag);
    await this.save();
    return untagged.sort();
  }

  async unlinkLayer(name: string, digest: string): Promise<void> {
    this.repository(name)?.layers.delete(digest);
    await this.save();
  }

  async linkLayer(name: string, digest: string, target: string): Promise<void> {
    this.ensureRepository(name).layers.set(digest, target);
    await this.save();
  }

  async createUpload(name: string): Promise<{ uuid: string; startedAt: string }> {
    const uuid = randomUUID();
    const upload = { repository: name, startedAt: new Date().toISOString() };
    await writeFile(this.uploadPath(uuid), '');
    this.uploads.set(uuid, upload);
    this.uploadHashes.set(uuid, { hash: createHash('sha256'), size: 0 });
    await this.save();
    return { uuid, startedAt: upload.startedAt };
  }

  /** An upload of this repository (Distribution keeps uploads under the repository). */
  upload(name: string, uuid: string): UploadRecord | undefined {
    const upload = this.uploads.get(uuid);
    return upload?.repository === name ? upload : undefined;
  }

  async uploadSize(uuid: string): Promise<number> {
    return (await stat(this.uploadPath(uuid))).size;
  }

  /** Streams a request body onto the end of the upload's file; nothing of it is held in memory. */
  async appendUpload(uuid: string, body: Readable): Promise<void> {
    const tracked = this.uploadHashes.get(uuid);
    const file = createWriteStream(this.uploadPath(uuid), { flags: 'a' });
    try {
      if (tracked) await pipeline(body, new HashTap(tracked), file);
      else await pipeline(body, file);
    } catch (err) {
      // What reached the file is unknown now: hash it from the file at commit.
      this.uploadHashes.delete(uuid);
      throw err;
    }
  }

  async cancelUpload(uuid: string): Promise<void> {
    this.uploads.delete(uuid);
    this.uploadHashes.delete(uuid);
    await rm(this.uploadPath(uuid), { force: true });
    await this.save();
  }

  /**
   * Verifies the upload against the digest the client named and moves it into the blob store
   * under its sha256, linked in the repository under both digests. On a mismatch the upload stays
   * with everything written to it: 2.8 tries to cancel it but has already closed it, and fails.
   */
  async commitUpload(name: string, uuid: string, expected: string): Promise<CommitResult> {
    const file = this.uploadPath(uuid);
    const size = await this.uploadSize(uuid);
    const algorithm = digestAlgorithm(expected);
    const tracked = this.uploadHashes.get(uuid);
    let canonical: string;
    let matches: boolean;
    if (algorithm === 'sha256' && tracked && tracked.size === size) {
      canonical = `sha256:${tracked.hash.digest('hex')}`;
      matches = canonical === expected;
    } else {
      const digests = await hashFile(file, algorithm === 'sha256' ? ['sha256'] : ['sha256', algorithm]);
      canonical = digests.get('sha256')!;
      matches = digests.get(algorithm) === expected;
    }
    if (!matches) {
      // The hash state was used up; a later commit hashes the file.
      this.uploadHashes.delete(uuid);
      return { mismatch: true };
    }
    await this.blobLock.run(async () => {
      if (this.blobs.has(canonical)) {
        await rm(file, { force: true });
      } else {
        await rename(file, this.blobPath(canonical));
        this.blobs.set(canonical, size);
      }
      const record = this.ensureRepository(name);
      record.layers.set(canonical, canonical);
      record.layers.set(expected, canonical);
      this.uploads.delete(uuid);
      this.uploadHashes.delete(uuid);
    });
    await this.save();
    return { committed: { digest: canonical, size } };
  }

  /**
   * `docker-registry garbage-collect` without --delete-untagged: marks every manifest still in a
   * repository and everything it references, and deletes every other blob from the store. The
   * repositories' links to deleted blobs stay, as on disk, and answer 404 until uploaded again.
   */
  async collectGarbage(): Promise<void> {
    await this.blobLock.run(async () => {
      const marked = new Set<string>();
      for (const record of this.repositories.values()) {
        for (const digest of record.revisions) {
          if (!this.blobs.has(digest)) continue;
          marked.add(digest);
          const manifest = decodeStored(await this.readBlob(digest));
          for (const reference of manifest?.references ?? []) marked.add(reference.digest);
        }
      }
      const doomed = [...this.blobs.keys()].filter((digest) => !marked.has(digest));
      for (const digest of doomed) this.blobs.delete(digest);
      await this.save();
      const directory = path.join(this.dataDir, 'blobs', 'sha256');
      // Files the index never recorded (a crash between a blob's rename and the index) go too.
      for (const file of await readdir(directory)) {
        if (!this.blobs.has(`sha256:${file}`)) await rm(path.join(directory, file), { force: true });
      }
    });
  }

  /** Resolves once every index write asked for so far is on disk. */
  async flush(): Promise<void> {
    await this.saving;
  }
}

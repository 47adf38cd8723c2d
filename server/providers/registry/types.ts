/**
 * The container registry that customers push images to and pull them from. The embedded default
 * runs Docker Distribution (`docker-registry`) on a loopback port behind our front door (a Node
 * HTTP proxy that customers reach); without the binary an in-process model of the Distribution
 * HTTP API (simulator) sits behind the same front door, so every client works against both.
 *
 * Authentication is the Distribution token protocol: the registry answers 401 with a Bearer
 * challenge whose realm is our token endpoint, which decides what a caller may do and has the
 * provider sign an RS256 JWT the registry trusts. Repository names are the registry's full names,
 * `<registry name>/<repository name>`.
 *
 * Errors: AppError('UPSTREAM_ERROR') when the registry fails or cannot be reached.
 */

export const REGISTRY_ACTIONS = ['pull', 'push', 'delete'] as const;
export type RegistryAction = (typeof REGISTRY_ACTIONS)[number];

/** One grant inside a registry token: `{ type: 'repository', name, actions }`. */
export interface RepositoryAccess {
  repository: string;
  actions: RegistryAction[];
}

export interface IssuedRegistryToken {
  token: string;
  /** Seconds the token is valid for. */
  expiresIn: number;
  issuedAt: string;
}

export interface TagRef {
  tag: string;
  digest: string;
}

export interface ManifestInfo {
  digest: string;
  mediaType: string;
  /** The manifest, its config blob and every layer, in bytes: what a pull transfers at most. */
  sizeBytes: number;
}

/** One registry notification: a manifest or blob pushed, pulled or deleted. */
export interface RegistryEvent {
  id: string;
  timestamp: string;
  action: 'push' | 'pull' | 'delete';
  repository: string;
  /** The manifest's or blob's digest. */
  digest: string;
  /** The tag a manifest was pushed or pulled by, when it was addressed by tag. */
  tag: string | null;
  mediaType: string;
  /** Bytes of the manifest or blob the event is about. */
  size: number;
  /** The token's `sub`; null for anonymous requests. */
  actor: string | null;
}

/** What the domain decides for the registry: tag rules at push time, and what happens after events. */
export interface RegistryHooks {
  /** IMMUTABLE refuses a manifest pushed under a tag that already points at another digest. */
  tagMutability(repository: string): Promise<'MUTABLE' | 'IMMUTABLE'>;
  /** Receives notifications in order; a throw makes the registry deliver them again later. */
  onEvents(events: RegistryEvent[]): Promise<void>;
}

export interface RegistryProvider {
  readonly kind: 'embedded' | 'simulator';
  readonly description: string;
  /** `host:port` that `docker login`, push and pull use. */
  host(): string;
  /** The `service` of every token (the JWT `aud`). */
  readonly service: string;
  /** Starts the registry and its front door with the domain's hooks; a second call is a no-op. */
  start(hooks: RegistryHooks): Promise<void>;
  stop(): Promise<void>;
  /** Signs a token the registry accepts. `subject` is the JWT `sub` (null: anonymous). */
  issueToken(subject: string | null, access: RepositoryAccess[], ttlSeconds: number): Promise<IssuedRegistryToken>;
  /** Every tag of a repository with the digest it points at; [] for a repository the registry does not know. */
  listTags(repository: string): Promise<TagRef[]>;
  /** A manifest's facts, or null when the registry no longer has it. */
  manifest(repository: string, digest: string): Promise<ManifestInfo | null>;
  /** Deletes a manifest and every tag pointing at it; false when it was not there. */
  deleteManifest(repository: string, digest: string): Promise<boolean>;
  /** Frees the disk of deleted manifests (the registry's garbage collection). */
  collectGarbage(): Promise<void>;
}

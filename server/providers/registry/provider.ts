import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AppError } from '../../platform/errors';
import { RegistryClient } from './client';
import { EmbeddedRegistry } from './embedded';
import { EVENTS_PATH, GARBAGE_COLLECTION_PATH, startFrontDoor, type FrontDoor } from './frontDoor';
import { signRegistryToken, verifyRegistryToken } from './jwt';
import { loadSigningKey, type RegistrySigningKey } from './keys';
import type { IssuedRegistryToken, ManifestInfo, RegistryHooks, RegistryProvider, RepositoryAccess, TagRef } from './types';

/** The `service` of every token (its `aud`), which the registry is configured to expect. */
export const REGISTRY_SERVICE = 'registry.panel';
export const REGISTRY_ISSUER = 'panel-token-issuer';
/**
 * The `sub` of the platform's own tokens. Its requests (tag look-ups, listings) are dropped from
 * the events; customer subjects (`key:<id>`, or empty for anonymous) never equal it.
 */
export const PLATFORM_SUBJECT = 'platform';
const PLATFORM_TOKEN_TTL_SECONDS = 300;

/** What serves the registry API behind the front door. */
export type RegistryBackend = { kind: 'embedded'; binary: string; version: string | null; startTimeoutMs: number } | { kind: 'simulator'; reason: string };

export interface FrontedRegistryOptions {
  backend: RegistryBackend;
  /** Keys, config and storage: `$REGISTRY_DATA_DIR`. */
  dataDir: string;
  endpointHost: string;
  /** 0 takes any free port (tests). */
  endpointPort: number;
  /** The token endpoint registry clients are sent to. */
  realm: string;
}

/** A registry on loopback, reached only through the front door and the platform's own client. */
interface Upstream {
  url(): string | null;
  collectGarbage(): Promise<void>;
  close(): Promise<void>;
}

interface Running {
  frontDoor: FrontDoor;
  /** Null when another process of the app serves the port, and so runs the registry. */
  upstream: Upstream | null;
}

/**
 * The registry customers push to: Docker Distribution (or, without the binary, the simulator) on
 * a loopback port, behind the front door customers reach. Tokens are signed here with a key the
 * registry trusts through its certificate.
 */
export class FrontedRegistryProvider implements RegistryProvider {
  readonly kind: 'embedded' | 'simulator';
  readonly service = REGISTRY_SERVICE;
  private readonly client: RegistryClient;
  private signingKey: Promise<RegistrySigningKey> | null = null;
  private starting: Promise<Running> | null = null;
  private running: Running | null = null;

  constructor(private readonly options: FrontedRegistryOptions) {
    this.kind = options.backend.kind;
    this.client = new RegistryClient({
      baseUrl: () => this.baseUrl(),
      token: async (access) => (await this.issueToken(PLATFORM_SUBJECT, access, PLATFORM_TOKEN_TTL_SECONDS)).token,
    });
  }

  get description(): string {
    const door = `behind the front door at ${this.host()}`;
    const backend = this.options.backend;
    if (this.running && !this.running.frontDoor.serving) return `Registry run by another process of this app, ${door}`;
    if (backend.kind === 'simulator') return `Simulated registry (${backend.reason}) ${door}`;
    return `Docker Distribution${backend.version ? ` ${backend.version}` : ''} on loopback ${door}`;
  }

  host(): string {
    const port = this.running?.frontDoor.port ?? this.options.endpointPort;
    const host = this.options.endpointHost;
    return `${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  start(hooks: RegistryHooks): Promise<void> {
    if (!this.starting) {
      const starting = this.boot(hooks);
      this.starting = starting;
      // A stop() during the start has already let go of it: nothing to record then.
      starting.then(
        (running) => {
          if (this.starting === starting) this.running = running;
        },
        () => {
          if (this.starting === starting) this.starting = null;
        },
      );
    }
    return this.starting.then(() => undefined);
  }

  async stop(): Promise<void> {
    const starting = this.starting;
    this.starting = null;
    this.running = null;
    const running = await starting?.catch(() => null);
    if (!running) return;
    // The registry first: while it drains, the door still answers customers (503) and takes its events.
    await running.upstream?.close();
    await running.frontDoor.close();
  }

  async issueToken(subject: string | null, access: RepositoryAccess[], ttlSeconds: number): Promise<IssuedRegistryToken> {
    const key = await this.key();
    const { token, claims } = signRegistryToken(
      { privateKey: key.privateKey, keyId: key.keyId, issuer: REGISTRY_ISSUER, service: REGISTRY_SERVICE },
      subject,
      access,
      ttlSeconds,
    );
    return { token, expiresIn: ttlSeconds, issuedAt: new Date(claims.iat * 1000).toISOString() };
  }

  listTags(repository: string): Promise<TagRef[]> {
    return this.client.listTags(repository);
  }

  manifest(repository: string, digest: string): Promise<ManifestInfo | null> {
    return this.client.manifest(repository, digest);
  }

  deleteManifest(repository: string, digest: string): Promise<boolean> {
    return this.client.deleteManifest(repository, digest);
  }

  /** Distribution collects offline: only the process that runs it can stop it for that, so another process asks that one. */
  async collectGarbage(): Promise<void> {
    const running = this.running;
    if (!running) throw new AppError('UPSTREAM_ERROR', 'The registry is not started');
    if (running.upstream) return running.upstream.collectGarbage();
    const token = (await this.issueToken(PLATFORM_SUBJECT, [], PLATFORM_TOKEN_TTL_SECONDS)).token;
    let status: number;
    try {
      status = (await fetch(`${running.frontDoor.url}${GARBAGE_COLLECTION_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status;
    } catch (err) {
      throw new AppError('UPSTREAM_ERROR', 'The process running the registry could not be reached to collect garbage', { cause: err });
    }
    if (status !== 204) throw new AppError('UPSTREAM_ERROR', `The process running the registry answered ${status} to a garbage collection`);
  }

  private key(): Promise<RegistrySigningKey> {
    this.signingKey ??= loadSigningKey(this.options.dataDir, REGISTRY_ISSUER).catch((err: unknown) => {
      this.signingKey = null;
      throw err;
    });
    return this.signingKey;
  }

  /** Where the platform's own requests go: its registry directly, else the serving process's front door. */
  private baseUrl(): string | null {
    const running = this.running;
    if (!running) return null;
    return running.upstream ? running.upstream.url() : running.frontDoor.url;
  }

  private async boot(hooks: RegistryHooks): Promise<Running> {
    const key = await this.key();
    const eventsSecret = randomBytes(32).toString('base64url');
    let upstream: Upstream | null = null;
    const frontDoor = await startFrontDoor({
      host: this.options.endpointHost,
      port: this.options.endpointPort,
      upstream: () => upstream?.url() ?? null,
      hooks,
      eventsSecret,
      platformSubject: PLATFORM_SUBJECT,
      platformToken: async (access) => (await this.issueToken(PLATFORM_SUBJECT, access, PLATFORM_TOKEN_TTL_SECONDS)).token,
      verifyToken: (token) => verifyRegistryToken(token, { publicKey: key.publicKey, issuer: REGISTRY_ISSUER, service: REGISTRY_SERVICE }),
      collectGarbage: async () => {
        if (!upstream) throw new AppError('UPSTREAM_ERROR', 'The registry is not running in this process');
        await upstream.collectGarbage();
      },
    });
    if (!frontDoor.serving) return { frontDoor, upstream: null };
    const notifications = { url: `${frontDoor.url}${EVENTS_PATH}`, authorization: `Bearer ${eventsSecret}` };
    try {
      upstream = await this.startUpstream(key, notifications);
    } catch (err) {
      await frontDoor.close();
      throw err;
    }
    return { frontDoor, upstream };
  }

  private async startUpstream(key: RegistrySigningKey, notifications: { url: string; authorization: string }): Promise<Upstream> {
    const backend = this.options.backend;
    if (backend.kind === 'simulator') {
      // Loaded only where it runs: a machine with docker-registry never needs the model.
      const { startRegistrySimulator } = await import('./simulator');
      const simulator = await startRegistrySimulator({
        dataDir: path.join(this.options.dataDir, 'simulator'),
        realm: this.options.realm,
        service: REGISTRY_SERVICE,
        issuer: REGISTRY_ISSUER,
        publicKey: key.publicKey,
        notifications,
      });
      return { url: () => simulator.url, collectGarbage: () => simulator.collectGarbage(), close: () => simulator.close() };
    }
    const registry = new EmbeddedRegistry({
      binary: backend.binary,
      dataDir: this.options.dataDir,
      realm: this.options.realm,
      service: REGISTRY_SERVICE,
      issuer: REGISTRY_ISSUER,
      certificatePath: key.certificatePath,
      notifications,
      startTimeoutMs: backend.startTimeoutMs,
    });
    try {
      await registry.start();
    } catch (err) {
      await registry.stop();
      throw err;
    }
    return { url: () => registry.url, collectGarbage: () => registry.garbageCollect(), close: () => registry.stop() };
  }
}

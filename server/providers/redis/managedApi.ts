import { z } from 'zod';
import { AppError, invalidField, notFound, validationError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { REDIS_ID_PATTERN, redisSpecSchema, type RedisEndpoint, type RedisProvider, type RedisSpec, type RedisStatus, type RedisUsage } from './types';

export interface ManagedApiRedisOptions {
  /** `https://api.upstash.com` in production (with or without `/v2`); a loopback fake in tests. */
  apiUrl: string;
  /** The account's email: the user name of the API's basic auth. */
  email: string;
  apiKey: string;
  /** Where every database's primary runs. */
  primaryRegion?: string;
  /** Where the replica of a database sold with replication runs; never the primary region. */
  readRegion?: string;
  /** Per request. */
  timeoutMs?: number;
}

/**
 * Upstash's fixed plans, smallest first, by the data they hold. A pay-as-you-go database has no
 * size of its own, so the plan is what carries the memory the customer bought; the smallest plan
 * that holds it is chosen, so the database may hold more than was sold, never less.
 */
const FIXED_PLANS = [
  { plan: 'fixed_250mb', mb: 250 },
  { plan: 'fixed_1gb', mb: 1024 },
  { plan: 'fixed_5gb', mb: 5 * 1024 },
  { plan: 'fixed_10gb', mb: 10 * 1024 },
  { plan: 'fixed_50gb', mb: 50 * 1024 },
  { plan: 'fixed_100gb', mb: 100 * 1024 },
  { plan: 'fixed_500gb', mb: 500 * 1024 },
] as const;

/** The memory a database can fill, as the embedded provider sizes it: half the plan with replication. */
export function fillableMb(spec: Pick<RedisSpec, 'memoryMb' | 'replication'>): number {
  return spec.replication ? spec.memoryMb / 2 : spec.memoryMb;
}

/** The fixed plan for a spec, or null when even the largest is too small. */
export function upstreamPlan(spec: Pick<RedisSpec, 'memoryMb' | 'replication'>): string | null {
  const wanted = fillableMb(spec);
  return FIXED_PLANS.find((candidate) => candidate.mb >= wanted)?.plan ?? null;
}

/**
 * Errors come back as a JSON string (`"database not found"`), though some gateways answer with an
 * object carrying `error` or `message`, or with plain text; all are read.
 */
const errorBodySchema = z.union([
  z.string(),
  z.looseObject({ error: z.string() }).transform((body) => body.error),
  z.looseObject({ message: z.string() }).transform((body) => body.message),
]);

/**
 * The fields this adapter relies on; the API sends many more (limits, tokens, members). `state` is
 * kept a string so one database of the account in a state this adapter does not know cannot fail
 * every listing; it is judged where a status is asked for.
 */
const databaseSchema = z.looseObject({
  database_id: z.string().min(1),
  database_name: z.string(),
  state: z.string(),
  endpoint: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  tls: z.boolean(),
  /** Absent when credentials are hidden (`?credentials=hide`). */
  password: z.string().min(1).optional(),
  creation_time: z.number().optional(),
  /** The plan's cap on the data the database holds, in bytes. */
  db_disk_threshold: z.number().nonnegative().optional(),
  /** This deployment's read-only switch (see `setReadOnly`). */
  read_only: z.boolean().optional(),
});
type UpstreamDatabase = z.output<typeof databaseSchema>;

const statsSchema = z.looseObject({
  current_storage: z.number().nonnegative(),
  total_monthly_bandwidth: z.number().nonnegative(),
  total_monthly_requests: z.number().nonnegative(),
});

const okSchema = z.literal('OK');

interface CallOptions {
  body?: unknown;
  /** Error statuses the caller turns into its own outcome instead of an upstream failure. */
  tolerate?: readonly number[];
}

interface Reply {
  status: number;
  json: unknown;
}

/**
 * The production Redis provider on a managed-Redis HTTP API modelled on Upstash's developer API
 * (v2): basic auth with the account email and an API key, JSON bodies. A database is named after
 * our id (`database_name`), so every lookup goes by name and a retried provision finds the database
 * an earlier attempt created; the only state kept here is a cache of name → upstream id, checked on
 * every use, so a restart loses nothing.
 */
export class ManagedApiRedisProvider implements RedisProvider {
  readonly kind = 'managed-api' as const;
  readonly description: string;
  readonly #base: string;
  // True private fields: a logged or serialised provider must never carry the credentials.
  readonly #authorization: string;
  readonly #apiKey: string;
  readonly #primaryRegion: string;
  readonly #readRegion: string;
  readonly #timeoutMs: number;
  readonly #ids = new Map<string, string>();
  /** Provisions under way in this process, so two concurrent ones for an id create one database. */
  readonly #provisioning = new Map<string, Promise<RedisEndpoint>>();

  constructor(options: ManagedApiRedisOptions) {
    // Upstash documents its server as `…/v2`, and operators paste it either way; paths carry the version.
    this.#base = options.apiUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
    this.#authorization = `Basic ${Buffer.from(`${options.email}:${options.apiKey}`).toString('base64')}`;
    this.#apiKey = options.apiKey;
    this.#primaryRegion = options.primaryRegion ?? 'us-east-1';
    this.#readRegion = options.readRegion ?? 'us-east-2';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    if (this.#readRegion === this.#primaryRegion) throw new Error('The read region of the managed Redis API must differ from its primary region');
    this.description = `Managed API: databases created through the managed Redis API at ${new URL(this.#base).host}, primary region ${this.#primaryRegion}`;
  }

  async provision(input: RedisSpec): Promise<RedisEndpoint> {
    const parsed = redisSpecSchema.safeParse(input);
    if (!parsed.success) throw validationError(parsed.error.issues);
    const spec = parsed.data;
    const plan = upstreamPlan(spec);
    if (plan === null) {
      throw invalidField(
        'memoryMb',
        `${spec.memoryMb} MB${spec.replication ? ' with replication' : ''} is more than the largest plan of the managed Redis API holds`,
      );
    }
    const running = this.#provisioning.get(spec.id);
    if (running) return running;
    const attempt = this.createOnce(spec, plan).finally(() => this.#provisioning.delete(spec.id));
    this.#provisioning.set(spec.id, attempt);
    return attempt;
  }

  async status(id: string): Promise<RedisStatus> {
    const operation = 'reading the database';
    return statusOf(await this.known(id, operation), operation);
  }

  /**
   * Upstash's developer API has no read-only switch, and its ACL refuses any change to the
   * `default` user our customers connect as (ACL SETUSER on `default` is an error there), so
   * nothing Upstash offers refuses writes while keeping reads. This adapter calls the pair of
   * endpoints a managed API needs for it, shaped like Upstash's own toggles
   * (`POST /v2/redis/enable-eviction/{id}`): `POST /v2/redis/enable-readonly/{id}` and
   * `disable-readonly/{id}`, answering "OK", with the state kept upstream (the database's
   * `read_only`) so it survives restarts of either side. Against an upstream without them the
   * call fails as UPSTREAM_ERROR naming the missing switch, and the suspension retries.
   */
  async setReadOnly(id: string, readOnly: boolean): Promise<void> {
    const operation = readOnly ? 'making the database read-only' : 'giving the database its writes back';
    const database = await this.known(id, operation);
    const path = `/v2/redis/${readOnly ? 'enable' : 'disable'}-readonly/${encodeURIComponent(database.database_id)}`;
    const reply = await this.call('POST', path, operation, { tolerate: [404] });
    if (reply.status === 404) {
      // The database was just read, so a 404 here is the route, not the database.
      throw new AppError('UPSTREAM_ERROR', `The managed Redis API offers no read-only switch (POST ${path.replace(/[^/]+$/, '{id}')}) while ${operation}`);
    }
    parse(okSchema, reply.json, operation);
    getLogger().info({ redisId: id, readOnly }, 'redis database access mode changed');
  }

  async deprovision(id: string): Promise<void> {
    if (!REDIS_ID_PATTERN.test(id)) return;
    const operation = 'deleting the database';
    const database = await this.find(id, operation);
    if (!database) return;
    const reply = await this.call('DELETE', `/v2/redis/database/${encodeURIComponent(database.database_id)}`, operation, { tolerate: [404] });
    this.#ids.delete(id);
    if (reply.status !== 404) parse(okSchema, reply.json, operation);
    getLogger().info({ redisId: id, databaseId: database.database_id }, 'redis database deprovisioned');
  }

  /**
   * Memory is Upstash's stored data (it keeps every key on disk and serves from memory), against
   * its plan's cap, which is at least what was sold. Upstash meters bandwidth as one figure without
   * a direction, reported here as outbound (what it bills), inbound staying 0; bandwidth and
   * operations count from the start of the month, where a Redis counts from its last start.
   */
  async usage(id: string): Promise<RedisUsage> {
    const operation = 'reading usage';
    const database = await this.known(id, operation);
    const memoryLimitBytes = database.db_disk_threshold ?? 0;
    if (statusOf(database, operation) !== 'ready') return { memoryUsedBytes: 0, memoryLimitBytes, networkInBytes: 0, networkOutBytes: 0, operations: 0 };
    const { json } = await this.call('GET', `/v2/redis/stats/${encodeURIComponent(database.database_id)}`, operation);
    const stats = parse(statsSchema, json, operation);
    return {
      memoryUsedBytes: stats.current_storage,
      memoryLimitBytes,
      networkInBytes: 0,
      networkOutBytes: stats.total_monthly_bandwidth,
      operations: stats.total_monthly_requests,
    };
  }

  /** Upstash runs the databases, so there is nothing to start: the ids are checked against its list. */
  async adopt(ids: string[]): Promise<void> {
    const listed = await this.list('adopting databases');
    const missing = ids.filter((id) => !listed.has(id));
    if (missing.length > 0) getLogger().error({ redisIds: missing }, 'redis databases the app knows are missing at the managed Redis API');
  }

  async shutdown(): Promise<void> {
    // Nothing is held open: every request is its own.
  }

  private async createOnce(spec: RedisSpec, plan: string): Promise<RedisEndpoint> {
    const operation = 'creating the database';
    const existing = await this.find(spec.id, operation);
    // A failed database is answered as it is: Upstash has no restart, and deleting it to make a new
    // one would lose what it holds.
    if (existing) return this.endpointOf(existing, operation);
    const { json } = await this.call('POST', '/v2/redis/database', operation, {
      body: {
        database_name: spec.id,
        platform: 'aws',
        primary_region: this.#primaryRegion,
        // Upstash replicates to read regions; one is the replica the plan's second half pays for.
        ...(spec.replication && { read_regions: [this.#readRegion] }),
        plan,
        tls: true,
        // As the embedded provider: a full database refuses writes rather than dropping keys.
        eviction: false,
        // Persistence is not asked for: Upstash writes every command to durable storage before it
        // answers, which meets every SPEC persistence value (NONE included, as more than was bought).
      },
    });
    const created = parse(databaseSchema, json, operation);
    this.#ids.set(spec.id, created.database_id);
    getLogger().info({ redisId: spec.id, databaseId: created.database_id, plan }, 'redis database provisioning');
    return this.endpointOf(created, operation);
  }

  private async endpointOf(database: UpstreamDatabase, operation: string): Promise<RedisEndpoint> {
    let password = database.password;
    if (password === undefined) password = (await this.read(database.database_id, operation))?.password;
    if (password === undefined)
      throw new AppError('UPSTREAM_ERROR', unexpectedResponse(operation), { cause: new Error('The database came without its password') });
    // Upstash names a database by a slug under its own domain, though it may send the full host.
    const host = database.endpoint.includes('.') ? database.endpoint : `${database.endpoint}.upstash.io`;
    return { host, port: database.port, tls: database.tls, password };
  }

  /** The database named `id`, or NOT_FOUND. */
  private async known(id: string, operation: string): Promise<UpstreamDatabase> {
    if (!REDIS_ID_PATTERN.test(id)) throw notFound('Redis database');
    const database = await this.find(id, operation);
    if (!database) throw notFound('Redis database');
    return database;
  }

  /** The database named `id`: read by its cached upstream id, else looked up in the list. */
  private async find(id: string, operation: string): Promise<UpstreamDatabase | null> {
    const cached = this.#ids.get(id);
    if (cached !== undefined) {
      const database = await this.read(cached, operation);
      if (database && database.database_name === id) return database;
      this.#ids.delete(id);
    }
    return (await this.list(operation)).get(id) ?? null;
  }

  private async read(databaseId: string, operation: string): Promise<UpstreamDatabase | null> {
    const reply = await this.call('GET', `/v2/redis/database/${encodeURIComponent(databaseId)}`, operation, { tolerate: [404] });
    return reply.status === 404 ? null : parse(databaseSchema, reply.json, operation);
  }

  /**
   * Every database of the account by name, refreshing the cache. Should two share a name (Upstash
   * does not refuse it), the oldest is ours: it is the one a first attempt made.
   */
  private async list(operation: string): Promise<Map<string, UpstreamDatabase>> {
    const { json } = await this.call('GET', '/v2/redis/databases', operation);
    const databases = parse(z.array(databaseSchema), json, operation);
    const byName = new Map<string, UpstreamDatabase>();
    for (const database of [...databases].sort((a, b) => (a.creation_time ?? 0) - (b.creation_time ?? 0))) {
      if (!byName.has(database.database_name)) byName.set(database.database_name, database);
    }
    for (const [name, database] of byName) if (REDIS_ID_PATTERN.test(name)) this.#ids.set(name, database.database_id);
    return byName;
  }

  private async call(method: string, path: string, operation: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { authorization: this.#authorization, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#base + path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const message = isTimeout(err)
        ? `The managed Redis API did not answer within ${this.#timeoutMs} ms while ${operation}`
        : `The managed Redis API could not be reached while ${operation}`;
      throw new AppError('UPSTREAM_ERROR', message, { cause: err });
    }
    const json = parseJson(text);
    if (response.ok || options.tolerate?.includes(response.status)) return { status: response.status, json };
    throw this.failure(method, path, response.status, json ?? text, operation);
  }

  private failure(method: string, path: string, status: number, body: unknown, operation: string): AppError {
    const parsed = errorBodySchema.safeParse(body);
    // An upstream that echoes what it was sent must not carry the key into a message or a log.
    const said = parsed.success && parsed.data.trim() !== '' ? this.redact(parsed.data.trim().slice(0, 300)) : undefined;
    const cause = new ManagedRedisApiError(status, `${method} ${path} answered ${status}${said ? `: ${said}` : ''}`);
    let message: string;
    if (status === 401 || status === 403) {
      // Our credentials, not the caller's: a 401 to the caller would tell them to sign in again.
      message = `The managed Redis API refused our credentials while ${operation}`;
    } else if (status === 429) {
      message = `The managed Redis API's rate limit was reached while ${operation}; try again shortly`;
    } else if (status >= 500) {
      message = `The managed Redis API failed while ${operation}`;
    } else {
      message = `The managed Redis API refused the request while ${operation}${said ? `: ${said}` : ''}`;
    }
    return new AppError('UPSTREAM_ERROR', message, { cause });
  }

  private redact(text: string): string {
    const secrets = [this.#apiKey, this.#authorization.slice('Basic '.length)].filter((secret) => secret !== '');
    return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
  }
}

/** The API's account of a failed request, kept as the cause for the server log. */
class ManagedRedisApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ManagedRedisApiError';
  }
}

/**
 * `creating` until Upstash serves it; `suspended` (the account stopped it) and `passive` (an idle
 * database parked) do not serve, which the domain treats as a start that failed.
 */
function statusOf(database: UpstreamDatabase, operation: string): RedisStatus {
  switch (database.state) {
    case 'active':
      return 'ready';
    case 'creating':
      return 'provisioning';
    case 'suspended':
    case 'passive':
      return 'failed';
    default:
      throw new AppError('UPSTREAM_ERROR', unexpectedResponse(operation), {
        cause: new Error(`Unknown database state ${JSON.stringify(database.state)}`),
      });
  }
}

function parse<S extends z.ZodType>(schema: S, json: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(json);
  if (!result.success) throw new AppError('UPSTREAM_ERROR', unexpectedResponse(operation), { cause: result.error });
  return result.data;
}

const unexpectedResponse = (operation: string) => `The managed Redis API sent an unexpected response while ${operation}`;

/** Undefined for an empty or non-JSON body, which every schema then rejects. */
function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
}

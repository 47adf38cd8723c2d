import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createHttpFake, FakeHttpError, type Fault, type FakeResponse, type RecordedRequest } from './httpFake';

/**
 * A loopback stand-in for Upstash's developer API (v2) for Redis, speaking its wire format: basic
 * auth with the account email and an API key, JSON bodies, "OK" as a JSON string for actions, and
 * errors as a JSON string too. It keeps the state the Redis adapter touches: databases that are
 * `creating` for a while and then `active`, their plans, regions and credentials, their usage
 * figures. Upstash does not refuse a second database with a name already taken, so neither does this.
 *
 * One endpoint pair is not Upstash's: `POST /v2/redis/{enable,disable}-readonly/{id}`, the read-only
 * switch the adapter needs and Upstash lacks (see ManagedApiRedisProvider.setReadOnly). With
 * `readOnlySwitch: false` the fake answers those as Upstash would, with a 404.
 */

type Json = Record<string, unknown>;

export type UpstashRoute =
  | 'GET /v2/redis/databases'
  | 'POST /v2/redis/database'
  | 'GET /v2/redis/database/:id'
  | 'DELETE /v2/redis/database/:id'
  | 'GET /v2/redis/stats/:id'
  | 'POST /v2/redis/enable-readonly/:id'
  | 'POST /v2/redis/disable-readonly/:id';

export interface UpstashSettings {
  /** How long a new database stays `creating` before it is `active`. */
  activeAfterMs: number;
  readOnlySwitch: boolean;
}

/** What the stats endpoint reports for a database, set by a test. */
export interface UpstashUsage {
  currentStorage: number;
  monthlyBandwidth: number;
  monthlyRequests: number;
}

export interface UpstashDatabase {
  id: string;
  name: string;
  platform: string;
  primaryRegion: string;
  readRegions: string[];
  plan: string;
  tls: boolean;
  eviction: boolean;
  password: string;
  endpoint: string;
  port: number;
  /** Unix seconds, as Upstash sends it. */
  creationTime: number;
  createdMs: number;
  /** `creating` and `active` follow time; a test may set `suspended` or `passive`. */
  state: 'creating' | 'active' | 'suspended' | 'passive';
  readOnly: boolean;
  usage: UpstashUsage;
}

export interface FakeUpstash {
  url: string;
  email: string;
  apiKey: string;
  requests: RecordedRequest<unknown>[];
  /** Live: a change applies from the next request on. */
  settings: UpstashSettings;
  fail(route: UpstashRoute, fault: Omit<Fault<unknown>, 'route'>): void;
  /** The database as it stands now (time-based progress applied). */
  database(id: string): UpstashDatabase | undefined;
  databases(): UpstashDatabase[];
  /** A database made behind the adapter's back, as another tool or a console user would. */
  insert(name: string, overrides?: Partial<UpstashDatabase>): UpstashDatabase;
  close(): Promise<void>;
}

export interface FakeUpstashOptions {
  email?: string;
  apiKey?: string;
  settings?: Partial<UpstashSettings>;
}

export const UPSTASH_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'sa-east-1',
  'ap-south-1',
  'ap-northeast-1',
  'ap-southeast-1',
  'ap-southeast-2',
];

/** Upstash's plans with the data size each caps a database at, in bytes. */
const MB = 1024 * 1024;
export const UPSTASH_PLAN_BYTES: Record<string, number> = {
  free: 256 * MB,
  payg: 100 * 1024 * MB,
  fixed_250mb: 250 * MB,
  fixed_1gb: 1024 * MB,
  fixed_5gb: 5 * 1024 * MB,
  fixed_10gb: 10 * 1024 * MB,
  fixed_50gb: 50 * 1024 * MB,
  fixed_100gb: 100 * 1024 * MB,
  fixed_500gb: 500 * 1024 * MB,
};

const ADJECTIVES = ['calm', 'brave', 'merry', 'gentle', 'lucky', 'quiet'];
const ANIMALS = ['otter', 'falcon', 'lynx', 'stallion', 'heron', 'badger'];

/** Upstash answers actions and errors with a bare JSON string, which the scaffold would send as text. */
const jsonString = (value: string) => JSON.stringify(value);
const upstashError = (status: number, message: string) => new FakeHttpError(status, jsonString(message));
const badRequest = (message: string) => upstashError(400, message);
const notFound = () => upstashError(404, 'database not found');

const DEFAULT_ERRORS: Record<number, string> = {
  400: 'bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'not found',
  429: 'Too many requests, please try again later',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

export async function startFakeUpstash(options: FakeUpstashOptions = {}): Promise<FakeUpstash> {
  const email = options.email ?? 'ops@example.com';
  const apiKey = options.apiKey ?? randomUUID();
  const settings: UpstashSettings = { activeAfterMs: 0, readOnlySwitch: true, ...options.settings };
  const databases = new Map<string, UpstashDatabase>();
  const expected = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
  const http = createHttpFake({
    name: 'Upstash',
    parseBody: 'json',
    auth: (request) => request.headers.authorization === expected,
    errorBody: ({ status, message }) => jsonString(DEFAULT_ERRORS[status] ?? message),
    responseHeaders: () => ({ 'content-type': 'application/json' }),
  });

  function advance(database: UpstashDatabase): UpstashDatabase {
    if (database.state === 'creating' && Date.now() - database.createdMs >= settings.activeAfterMs) database.state = 'active';
    return database;
  }

  function record(name: string, fields: Partial<UpstashDatabase>): UpstashDatabase {
    const now = Date.now();
    const database: UpstashDatabase = {
      id: randomUUID(),
      name,
      platform: 'aws',
      primaryRegion: 'us-east-1',
      readRegions: [],
      plan: 'payg',
      tls: true,
      eviction: false,
      password: randomBytes(16).toString('hex'),
      endpoint: `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${ANIMALS[randomInt(ANIMALS.length)]}-${randomInt(10_000, 99_999)}`,
      port: 6379,
      creationTime: Math.floor(now / 1000),
      createdMs: now,
      state: 'creating',
      readOnly: false,
      usage: { currentStorage: 0, monthlyBandwidth: 0, monthlyRequests: 0 },
      ...fields,
    };
    databases.set(database.id, database);
    return database;
  }

  function databaseJson(database: UpstashDatabase, credentials: boolean): Json {
    const members = [database.primaryRegion, ...database.readRegions];
    return {
      database_id: database.id,
      database_name: database.name,
      database_type: database.plan === 'payg' ? 'Pay as You Go' : 'Fixed',
      region: 'global',
      type: 'paid',
      port: database.port,
      creation_time: database.creationTime,
      state: database.state,
      ...(credentials && {
        password: database.password,
        rest_token: Buffer.from(`${database.id}:${database.password}`).toString('base64'),
        read_only_rest_token: Buffer.from(`${database.id}:ro:${database.password}`).toString('base64'),
      }),
      user_email: email,
      endpoint: database.endpoint,
      tls: database.tls,
      eviction: database.eviction,
      auto_upgrade: false,
      consistent: false,
      modifying_state: '',
      primary_region: database.primaryRegion,
      read_regions: database.readRegions,
      primary_members: [database.primaryRegion],
      all_members: members,
      replicas: members.length,
      db_max_clients: 10_000,
      db_max_request_size: 10 * MB,
      db_disk_threshold: UPSTASH_PLAN_BYTES[database.plan] ?? 0,
      db_max_entry_size: 100 * MB,
      db_memory_threshold: Math.min(3 * 1024 * MB, UPSTASH_PLAN_BYTES[database.plan] ?? 0),
      db_max_commands_per_second: 10_000,
      // Upstash sends a 64-bit figure that JSON readers round; this one survives the trip.
      db_request_limit: Number.MAX_SAFE_INTEGER,
      db_acl_enabled: 'false',
      db_acl_default_user_status: 'true',
      read_only: database.readOnly,
    };
  }

  function statsJson(database: UpstashDatabase): Json {
    const point = (y: number) => [{ x: new Date().toISOString().replace('T', ' ').replace('Z', ' +0000 UTC'), y }];
    const active = database.state === 'active';
    const usage = active ? database.usage : { currentStorage: 0, monthlyBandwidth: 0, monthlyRequests: 0 };
    return {
      daily_net_commands: usage.monthlyRequests,
      daily_read_requests: 0,
      daily_write_requests: 0,
      connection_count: point(0),
      keyspace: point(0),
      throughput: point(0),
      diskusage: point(usage.currentStorage),
      dailyrequests: point(usage.monthlyRequests),
      dailybandwidth: usage.monthlyBandwidth,
      bandwidths: point(usage.monthlyBandwidth),
      total_monthly_bandwidth: usage.monthlyBandwidth,
      total_monthly_requests: usage.monthlyRequests,
      total_monthly_read_requests: 0,
      total_monthly_write_requests: 0,
      total_monthly_script_requests: 0,
      total_monthly_storage: usage.currentStorage,
      current_storage: usage.currentStorage,
      total_monthly_billing: 0,
      command_counts: [],
    };
  }

  function requireDatabase(id: string): UpstashDatabase {
    const database = databases.get(id);
    if (!database) throw notFound();
    return advance(database);
  }

  function createDatabase(body: Json): FakeResponse {
    const name = body.database_name;
    if (typeof name !== 'string' || name === '') throw badRequest('database_name is required');
    if (body.platform !== 'aws' && body.platform !== 'gcp') throw badRequest('platform must be aws or gcp');
    const primary = body.primary_region;
    if (typeof primary !== 'string' || !UPSTASH_REGIONS.includes(primary)) throw badRequest(`invalid primary region: ${String(primary)}`);
    const readRegions = body.read_regions ?? [];
    if (!Array.isArray(readRegions) || !readRegions.every((region): region is string => typeof region === 'string' && UPSTASH_REGIONS.includes(region))) {
      throw badRequest('invalid read regions');
    }
    if (readRegions.includes(primary)) throw badRequest('read regions cannot include the primary region');
    const plan = body.plan ?? 'payg';
    if (typeof plan !== 'string' || !(plan in UPSTASH_PLAN_BYTES)) throw badRequest(`invalid plan: ${String(plan)}`);
    for (const flag of ['tls', 'eviction'] as const) {
      if (body[flag] !== undefined && typeof body[flag] !== 'boolean') throw badRequest(`${flag} must be a boolean`);
    }
    const database = record(name, {
      platform: body.platform,
      primaryRegion: primary,
      readRegions,
      plan,
      // New Upstash databases are always TLS.
      tls: true,
      eviction: body.eviction === true,
    });
    return { body: databaseJson(advance(database), true) };
  }

  function setReadOnly(id: string, readOnly: boolean): FakeResponse {
    if (!settings.readOnlySwitch) throw upstashError(404, '404 page not found');
    requireDatabase(id).readOnly = readOnly;
    return { body: jsonString('OK') };
  }

  http.route('GET /v2/redis/databases', () => ({
    body: [...databases.values()].sort((a, b) => a.createdMs - b.createdMs).map((database) => databaseJson(advance(database), true)),
  }));
  http.route('POST /v2/redis/database', ({ body }) => createDatabase(fields(body)));
  http.route('GET /v2/redis/database/:id', ({ params, url }) => ({
    body: databaseJson(requireDatabase(params.id), url.searchParams.get('credentials') !== 'hide'),
  }));
  http.route('DELETE /v2/redis/database/:id', ({ params }) => {
    databases.delete(requireDatabase(params.id).id);
    return { body: jsonString('OK') };
  });
  http.route('GET /v2/redis/stats/:id', ({ params }) => ({ body: statsJson(requireDatabase(params.id)) }));
  http.route('POST /v2/redis/enable-readonly/:id', ({ params }) => setReadOnly(params.id, true));
  http.route('POST /v2/redis/disable-readonly/:id', ({ params }) => setReadOnly(params.id, false));

  const { url } = await http.listen();
  return {
    url,
    email,
    apiKey,
    requests: http.requests,
    settings,
    fail: (route, fault) => http.fail({ ...fault, route }),
    database(id) {
      const database = databases.get(id);
      return database && advance(database);
    },
    databases: () => [...databases.values()].map(advance),
    insert: (name, overrides = {}) => record(name, { state: 'active', ...overrides }),
    close: () => http.close(),
  };
}

/** Upstash reads the fields of an object body; anything else carries none. */
function fields(body: unknown): Json {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Json) : {};
}

import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { createHttpFake, FakeHttpError, type FakeRequest, type Fault, type RecordedRequest } from './httpFake';

/**
 * A loopback stand-in for Cloudflare's API v4 and its OAuth endpoints, speaking their wire format:
 * bearer tokens, the `{ success, errors, messages, result, result_info }` envelope with Cloudflare's
 * error codes, page/per_page pagination, SRV and CAA records as `data` objects. It keeps accounts,
 * tokens, zones and records with Cloudflare's record limits, so the DNS adapter is tested against
 * Cloudflare's behaviour rather than canned replies.
 */

type Json = Record<string, unknown>;

export type FakeRoute =
  | 'GET /client/v4/user/tokens/verify'
  | 'GET /client/v4/accounts'
  | 'GET /client/v4/zones'
  | 'GET /client/v4/zones/:zoneId/dns_records'
  | 'POST /client/v4/zones/:zoneId/dns_records'
  | 'PUT /client/v4/zones/:zoneId/dns_records/:recordId'
  | 'DELETE /client/v4/zones/:zoneId/dns_records/:recordId'
  | 'GET /oauth2/auth'
  | 'POST /oauth2/token';

export type FakeTokenStatus = 'active' | 'disabled' | 'expired';

export interface FakeToken {
  value: string;
  id: string;
  status: FakeTokenStatus;
  accountId: string;
  /** Whether the token holds Account Settings Read: without it `GET /accounts` answers 403. */
  readsAccount: boolean;
  /** The zones the token reaches; every zone of its account unless given. */
  zoneIds: string[] | 'all';
}

export interface FakeZone {
  id: string;
  accountId: string;
  name: string;
  status: 'active' | 'pending' | 'initializing' | 'moved';
}

/** A record as Cloudflare holds it. */
export interface FakeRecord {
  id: string;
  zoneId: string;
  type: string;
  name: string;
  content: string;
  ttl: number;
  proxied: boolean;
  priority?: number;
  data?: Json;
  createdOn: string;
  modifiedOn: string;
}

export interface FakeCloudflare {
  /** Ends in `/client/v4`, like Cloudflare's own base URL. */
  apiUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  oauthClient: { clientId: string; clientSecret: string };
  requests: RecordedRequest<Buffer>[];
  addAccount(name: string): string;
  addZone(accountId: string, name: string, status?: FakeZone['status']): FakeZone;
  addToken(accountId: string, options?: Partial<Pick<FakeToken, 'status' | 'readsAccount' | 'zoneIds'>>): string;
  revokeToken(value: string): void;
  /** Puts a record in place directly, any type, as if made in Cloudflare's dashboard. */
  addRecord(zoneId: string, record: Partial<FakeRecord> & Pick<FakeRecord, 'type' | 'name' | 'content'>): FakeRecord;
  records(zoneId: string): FakeRecord[];
  /** An authorization code the token endpoint trades once for `accessToken`, for this redirect URI. */
  issueCode(accessToken: string, redirectUri: string): string;
  fail(route: FakeRoute, fault: Omit<Fault<Buffer>, 'route'>): void;
  close(): Promise<void>;
}

export interface FakeCloudflareOptions {
  /** Cloudflare caps pages of zones at 50; a smaller cap lets a test walk several pages with a few items. */
  maxPerPage?: number;
  /** Records a zone may hold (Cloudflare's quota on the smallest plan: 200). */
  recordQuota?: number;
}

const SUPPORTED_TYPES = new Set([
  'A',
  'AAAA',
  'CNAME',
  'MX',
  'TXT',
  'NS',
  'SRV',
  'CAA',
  'PTR',
  'HTTPS',
  'SVCB',
  'TLSA',
  'URI',
  'DS',
  'SSHFP',
  'LOC',
  'NAPTR',
  'CERT',
]);
const PROXIABLE = new Set(['A', 'AAAA', 'CNAME']);
const HOSTNAME = /^([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?$/i;

const DEFAULT_ERRORS: Record<number, { code: number; message: string }> = {
  400: { code: 6007, message: 'Malformed JSON in request body' },
  401: { code: 10_000, message: 'Authentication error' },
  403: { code: 9109, message: 'Unauthorized to access requested resource' },
  404: { code: 7000, message: 'No route for that URI' },
  405: { code: 7001, message: 'Method not allowed for this route' },
  429: { code: 971, message: 'Please wait and consider throttling your request speed' },
  500: { code: 10_002, message: 'An unknown error has occurred' },
  502: { code: 10_002, message: 'Bad gateway' },
  503: { code: 10_002, message: 'Service temporarily unavailable' },
};

const envelope = (result: unknown, resultInfo?: Json): Json => ({
  success: true,
  errors: [],
  messages: [],
  result,
  ...(resultInfo && { result_info: resultInfo }),
});
const failure = (code: number, message: string): Json => ({ success: false, errors: [{ code, message }], messages: [], result: null });
const refuse = (status: number, code: number, message: string) => new FakeHttpError(status, failure(code, message));

export async function startFakeCloudflare(options: FakeCloudflareOptions = {}): Promise<FakeCloudflare> {
  const maxPerPage = options.maxPerPage ?? 50;
  const recordQuota = options.recordQuota ?? 200;
  const accounts = new Map<string, { id: string; name: string }>();
  const tokens = new Map<string, FakeToken>();
  const zones = new Map<string, FakeZone>();
  const records = new Map<string, FakeRecord>();
  const codes = new Map<string, { accessToken: string; redirectUri: string }>();
  const oauthClient = { clientId: `client-${hex(8)}`, clientSecret: hex(32) };
  const http = createHttpFake({
    name: 'Cloudflare',
    parseBody: 'raw',
    errorBody: ({ status, message, reason }) => {
      const known = DEFAULT_ERRORS[status];
      return failure(known?.code ?? 10_002, reason === 'injected' || !known ? (known?.message ?? message) : known.message);
    },
  });

  const timestamp = () => new Date().toISOString();

  function tokenOf(request: FakeRequest<Buffer>): FakeToken {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? tokens.get(header.slice('Bearer '.length)) : undefined;
    if (!token) throw refuse(401, 10_000, 'Authentication error');
    return token;
  }

  function activeToken(request: FakeRequest<Buffer>): FakeToken {
    const token = tokenOf(request);
    if (token.status !== 'active') throw refuse(401, 10_000, 'Authentication error');
    return token;
  }

  function zonesOf(token: FakeToken): FakeZone[] {
    return [...zones.values()].filter((zone) => zone.accountId === token.accountId && (token.zoneIds === 'all' || token.zoneIds.includes(zone.id)));
  }

  function zoneFor(token: FakeToken, zoneId: string): FakeZone {
    const zone = zonesOf(token).find((candidate) => candidate.id === zoneId);
    if (!zone) throw refuse(404, 7003, `Could not route to /zones/${zoneId}/dns_records, perhaps your object identifier is invalid?`);
    return zone;
  }

  function recordIn(zone: FakeZone, recordId: string): FakeRecord {
    const record = records.get(recordId);
    if (!record || record.zoneId !== zone.id) throw refuse(404, 81_044, 'Record does not exist.');
    return record;
  }

  function paged<T>(url: URL, all: T[], toJson: (item: T) => unknown, defaultPerPage: number): Json {
    const perPage = Math.min(positiveInt(url.searchParams.get('per_page'), defaultPerPage), maxPerPage);
    const page = positiveInt(url.searchParams.get('page'), 1);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return envelope(slice.map(toJson), {
      page,
      per_page: perPage,
      count: slice.length,
      total_count: all.length,
      total_pages: Math.max(1, Math.ceil(all.length / perPage)),
    });
  }

  function zoneJson(zone: FakeZone): Json {
    const account = accounts.get(zone.accountId);
    return {
      id: zone.id,
      name: zone.name,
      status: zone.status,
      paused: false,
      type: 'full',
      development_mode: 0,
      name_servers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
      account: { id: zone.accountId, name: account?.name },
      created_on: '2024-01-01T00:00:00.000000Z',
      modified_on: '2024-01-01T00:00:00.000000Z',
    };
  }

  function recordJson(record: FakeRecord): Json {
    const zone = zones.get(record.zoneId);
    return {
      id: record.id,
      zone_id: record.zoneId,
      zone_name: zone?.name,
      name: record.name,
      type: record.type,
      content: record.content,
      proxiable: PROXIABLE.has(record.type),
      proxied: record.proxied,
      ttl: record.ttl,
      locked: false,
      ...(record.priority !== undefined && { priority: record.priority }),
      ...(record.data !== undefined && { data: record.data }),
      meta: { auto_added: false, managed_by_apps: false, managed_by_argo_tunnel: false },
      comment: null,
      tags: [],
      created_on: record.createdOn,
      modified_on: record.modifiedOn,
    };
  }

  /** What Cloudflare stores for a create or overwrite body, or the refusal it answers. */
  function recordFromBody(zone: FakeZone, raw: Buffer, replacing?: FakeRecord): FakeRecord {
    const body = jsonObject(raw);
    const type = body.type;
    if (typeof type !== 'string' || !SUPPORTED_TYPES.has(type)) throw refuse(400, 1004, 'DNS Validation Error: invalid record type');
    const name = qualify(body.name, zone.name);
    const ttl = body.ttl === undefined ? 1 : body.ttl;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || (ttl !== 1 && (ttl < 60 || ttl > 86_400))) {
      throw refuse(400, 9021, 'Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic.');
    }
    const proxied = body.proxied === undefined ? false : body.proxied;
    if (typeof proxied !== 'boolean') throw refuse(400, 9003, "Invalid 'proxied' value, must be a boolean");
    if (proxied && !PROXIABLE.has(type)) throw refuse(400, 9004, 'This record type cannot be proxied.');
    const now = timestamp();
    const record: FakeRecord = {
      id: replacing?.id ?? hex(32),
      zoneId: zone.id,
      type,
      name,
      content: '',
      ttl,
      proxied,
      createdOn: replacing?.createdOn ?? now,
      modifiedOn: now,
    };
    switch (type) {
      case 'A':
        if (typeof body.content !== 'string' || isIP(body.content) !== 4) throw refuse(400, 9005, 'Content for A record must be a valid IPv4 address.');
        record.content = body.content;
        break;
      case 'AAAA':
        if (typeof body.content !== 'string' || isIP(body.content) !== 6) throw refuse(400, 9005, 'Content for AAAA record must be a valid IPv6 address.');
        record.content = body.content;
        break;
      case 'CNAME':
      case 'NS':
      case 'MX':
        if (typeof body.content !== 'string' || !HOSTNAME.test(body.content)) throw refuse(400, 9005, `Content for ${type} record is invalid.`);
        record.content = body.content.toLowerCase().replace(/\.$/, '');
        if (type === 'MX') {
          if (typeof body.priority !== 'number' || !Number.isInteger(body.priority) || body.priority < 0 || body.priority > 65_535) {
            throw refuse(400, 9100, 'MX records require a priority between 0 and 65535.');
          }
          record.priority = body.priority;
        }
        break;
      case 'SRV': {
        const data = objectOrNull(body.data);
        const numbers = ['priority', 'weight', 'port'].map((key) => data?.[key]);
        if (!data || !numbers.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 65_535) || typeof data.target !== 'string') {
          throw refuse(400, 9101, 'SRV records require data with priority, weight, port and target.');
        }
        const [priority, weight, port] = numbers as [number, number, number];
        const target = data.target === '.' ? '.' : data.target.toLowerCase().replace(/\.$/, '');
        record.data = { priority, weight, port, target };
        record.priority = priority;
        record.content = `${weight} ${port} ${target}`;
        break;
      }
      case 'CAA': {
        const data = objectOrNull(body.data);
        const flags = data?.flags;
        if (!data || typeof flags !== 'number' || flags < 0 || flags > 255 || typeof data.tag !== 'string' || typeof data.value !== 'string') {
          throw refuse(400, 9101, 'CAA records require data with flags, tag and value.');
        }
        if (!['issue', 'issuewild', 'iodef'].includes(data.tag)) throw refuse(400, 1004, 'DNS Validation Error: invalid CAA tag');
        record.data = { flags, tag: data.tag, value: data.value };
        record.content = `${flags} ${data.tag} "${data.value}"`;
        break;
      }
      default:
        if (typeof body.content !== 'string' || body.content === '') throw refuse(400, 9005, `Content for ${type} record is invalid.`);
        if (type === 'TXT' && body.content.length > 2048) throw refuse(400, 9007, 'TXT content must be at most 2048 characters.');
        record.content = body.content;
    }
    refuseClash(record);
    return record;
  }

  /** Cloudflare's limits: no identical records, a CNAME alone at its name. */
  function refuseClash(record: FakeRecord): void {
    const sameName = [...records.values()].filter((other) => other.zoneId === record.zoneId && other.id !== record.id && other.name === record.name);
    if (sameName.some((other) => other.type === record.type && other.content === record.content)) {
      throw refuse(400, 81_058, 'An identical record already exists.');
    }
    if ((record.type === 'CNAME' && sameName.length > 0) || sameName.some((other) => other.type === 'CNAME')) {
      throw refuse(400, 81_053, 'An A, AAAA, or CNAME record with that host already exists.');
    }
  }

  http.route('GET /client/v4/user/tokens/verify', (request) => {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? tokens.get(header.slice('Bearer '.length)) : undefined;
    if (!token) throw refuse(401, 1000, 'Invalid API Token');
    return { body: envelope({ id: token.id, status: token.status }) };
  });

  http.route('GET /client/v4/accounts', (request) => {
    const token = activeToken(request);
    if (!token.readsAccount) throw refuse(403, 9109, 'Unauthorized to access requested resource');
    const account = accounts.get(token.accountId);
    return { body: paged(request.url, account ? [account] : [], (a) => ({ ...a, type: 'standard', settings: {} }), 20) };
  });

  http.route('GET /client/v4/zones', (request) => {
    const token = activeToken(request);
    const listed = zonesOf(token).sort((a, b) => (a.name < b.name ? -1 : 1));
    return { body: paged(request.url, listed, zoneJson, 20) };
  });

  http.route('GET /client/v4/zones/:zoneId/dns_records', (request) => {
    const zone = zoneFor(activeToken(request), request.params.zoneId);
    const listed = [...records.values()].filter((record) => record.zoneId === zone.id);
    return { body: paged(request.url, listed, recordJson, 100) };
  });

  http.route('POST /client/v4/zones/:zoneId/dns_records', (request) => {
    const zone = zoneFor(activeToken(request), request.params.zoneId);
    const record = recordFromBody(zone, request.rawBody);
    if ([...records.values()].filter((other) => other.zoneId === zone.id).length >= recordQuota) throw refuse(400, 81_045, 'Record quota exceeded.');
    records.set(record.id, record);
    return { body: envelope(recordJson(record)) };
  });

  http.route('PUT /client/v4/zones/:zoneId/dns_records/:recordId', (request) => {
    const zone = zoneFor(activeToken(request), request.params.zoneId);
    const current = recordIn(zone, request.params.recordId);
    const record = recordFromBody(zone, request.rawBody, current);
    records.set(record.id, record);
    return { body: envelope(recordJson(record)) };
  });

  http.route('DELETE /client/v4/zones/:zoneId/dns_records/:recordId', (request) => {
    const zone = zoneFor(activeToken(request), request.params.zoneId);
    const record = recordIn(zone, request.params.recordId);
    records.delete(record.id);
    return { body: envelope({ id: record.id }) };
  });

  // The consent screen, granted at once: a new token on a new account reaching one zone.
  http.route('GET /oauth2/auth', ({ url }) => {
    const redirectUri = url.searchParams.get('redirect_uri');
    if (url.searchParams.get('client_id') !== oauthClient.clientId || !redirectUri || url.searchParams.get('response_type') !== 'code') {
      return { status: 400, body: { error: 'invalid_request' } };
    }
    const account = addAccount('OAuth account');
    addZone(account, `oauth-${hex(4)}.example`);
    const code = issueCode(addToken(account), redirectUri);
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    return { status: 302, headers: { location: back.toString() } };
  });

  http.route('POST /oauth2/token', ({ rawBody }) => {
    const form = new URLSearchParams(rawBody.toString('utf8'));
    if (form.get('client_id') !== oauthClient.clientId || form.get('client_secret') !== oauthClient.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    if (form.get('grant_type') !== 'authorization_code') return { status: 400, body: { error: 'unsupported_grant_type' } };
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    // A code is single-use: the first attempt takes it, whatever its outcome.
    codes.delete(code);
    if (!grant || grant.redirectUri !== form.get('redirect_uri')) {
      return { status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or already used' } };
    }
    return {
      body: {
        access_token: grant.accessToken,
        token_type: 'bearer',
        expires_in: 3600,
        refresh_token: hex(32),
        scope: 'account:read zone:read dns_records:edit',
      },
    };
  });

  function addAccount(name: string): string {
    const id = hex(32);
    accounts.set(id, { id, name });
    return id;
  }

  function addZone(accountId: string, name: string, status: FakeZone['status'] = 'active'): FakeZone {
    const zone: FakeZone = { id: hex(32), accountId, name, status };
    zones.set(zone.id, zone);
    return zone;
  }

  function addToken(accountId: string, tokenOptions: Partial<Pick<FakeToken, 'status' | 'readsAccount' | 'zoneIds'>> = {}): string {
    const value = randomBytes(30).toString('base64url');
    tokens.set(value, {
      value,
      id: hex(32),
      accountId,
      status: tokenOptions.status ?? 'active',
      readsAccount: tokenOptions.readsAccount ?? true,
      zoneIds: tokenOptions.zoneIds ?? 'all',
    });
    return value;
  }

  function issueCode(accessToken: string, redirectUri: string): string {
    const code = hex(16);
    codes.set(code, { accessToken, redirectUri });
    return code;
  }

  const { url } = await http.listen();
  return {
    apiUrl: `${url}/client/v4`,
    authorizeUrl: `${url}/oauth2/auth`,
    tokenUrl: `${url}/oauth2/token`,
    oauthClient,
    requests: http.requests,
    addAccount,
    addZone,
    addToken,
    revokeToken: (value) => {
      tokens.delete(value);
    },
    addRecord(zoneId, partial) {
      const now = timestamp();
      const record: FakeRecord = { id: hex(32), zoneId, ttl: 1, proxied: false, createdOn: now, modifiedOn: now, ...partial };
      records.set(record.id, record);
      return record;
    },
    records: (zoneId) => [...records.values()].filter((record) => record.zoneId === zoneId),
    issueCode,
    fail: (route, fault) => http.fail({ ...fault, route }),
    close: () => http.close(),
  };
}

/** `@`, the zone's name, a name inside it, or a relative name the zone is appended to: Cloudflare's reading of `name`. */
function qualify(name: unknown, zone: string): string {
  if (typeof name !== 'string' || name === '') throw refuse(400, 9007, 'DNS record name is required.');
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower === '@' || lower === zone) return zone;
  return lower.endsWith(`.${zone}`) ? lower : `${lower}.${zone}`;
}

function jsonObject(raw: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw refuse(400, 6007, 'Malformed JSON in request body');
  }
  const object = objectOrNull(parsed);
  if (!object) throw refuse(400, 6007, 'Malformed JSON in request body');
  return object;
}

function objectOrNull(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

function hex(length: number): string {
  return randomBytes(length / 2).toString('hex');
}

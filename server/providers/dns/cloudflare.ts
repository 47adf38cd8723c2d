import { z } from 'zod';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import {
  DNS_RECORD_TYPES,
  type DnsAccount,
  type DnsOAuth,
  type DnsProvider,
  type DnsRecord,
  type DnsRecordInput,
  type DnsRecordType,
  type DnsZone,
} from './types';

export interface CloudflareOAuthOptions {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
}

export interface CloudflareDnsOptions {
  /** `https://api.cloudflare.com/client/v4` in production; a loopback fake in tests. */
  apiUrl: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs?: number;
  oauth?: CloudflareOAuthOptions | null;
}

/** What the panel asks of the customer's account: their zones, their DNS records, and the account's name. */
export const CLOUDFLARE_OAUTH_SCOPES = ['account:read', 'zone:read', 'dns_records:edit'];

/** Cloudflare's largest page of zones; DNS record pages may be larger, but this keeps each answer small. */
const ZONES_PER_PAGE = 50;
const RECORDS_PER_PAGE = 100;

/** Cloudflare's codes for a token it does not accept: 9109 "Invalid access token", 10000 "Authentication error". */
const CREDENTIAL_CODES = new Set([9109, 10_000]);
/** 7003 "Could not route to …, perhaps your object identifier is invalid?", 81044 "Record does not exist". */
const NOT_FOUND_CODES = new Set([7003, 81_044]);
/** The field a refusal of a record concerns, for the codes whose meaning is known. */
const REFUSAL_FIELDS = new Map<number, keyof DnsRecordInput>([
  [9005, 'content'],
  [81_053, 'name'],
  [81_054, 'name'],
  [81_057, 'content'],
  [81_058, 'content'],
]);

const envelopeSchema = z.object({
  success: z.boolean(),
  errors: z.array(z.looseObject({ code: z.number(), message: z.string() })).default([]),
  result: z.unknown(),
  result_info: z
    .looseObject({
      page: z.number().int().optional(),
      per_page: z.number().int().optional(),
      total_pages: z.number().int().optional(),
      count: z.number().int().optional(),
      total_count: z.number().int().optional(),
    })
    .nullish(),
});
type Envelope = z.output<typeof envelopeSchema>;

const tokenStatusSchema = z.looseObject({ id: z.string(), status: z.string() });
const accountSchema = z.looseObject({ id: z.string(), name: z.string() });
const zoneSchema = z.looseObject({ id: z.string(), name: z.string(), status: z.string() });
const recordSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  content: z.string().nullish(),
  ttl: z.number(),
  proxied: z.boolean().nullish(),
  priority: z.number().nullish(),
  data: z.looseObject({}).nullish(),
  created_on: z.string(),
  modified_on: z.string(),
});
type CloudflareRecord = z.output<typeof recordSchema>;
const srvDataSchema = z.looseObject({ priority: z.number(), weight: z.number(), port: z.number(), target: z.string() });
const caaDataSchema = z.looseObject({ flags: z.number(), tag: z.string(), value: z.string() });
const deletedSchema = z.looseObject({ id: z.string() });
const oauthTokenSchema = z.looseObject({ access_token: z.string().min(1) });

type Refusal = 'credential' | 'not-found' | 'record' | 'upstream';

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  credential: string;
  /** Names the work in messages: "listing zones". */
  operation: string;
  query?: Record<string, string>;
  body?: unknown;
  /** What a 404 means here, for the NOT_FOUND message. */
  subject?: 'DNS zone' | 'DNS record';
  /** A write of a record: Cloudflare's 4xx refusals are the record's fault, not the provider's. */
  writesRecord?: boolean;
}

/**
 * The production DNS adapter, on Cloudflare's API v4 with the customer's own token (an API token or
 * an OAuth access token, both sent as a bearer). Every answer is checked against the envelope and
 * the shape used, so an upstream that changes fails one request with UPSTREAM_ERROR instead of
 * handing malformed records on. The credential never reaches a message, a cause or a log line.
 */
export class CloudflareDnsProvider implements DnsProvider {
  readonly kind = 'cloudflare' as const;
  readonly description = 'Cloudflare DNS (API v4), reached with each project’s own API token or OAuth grant';
  readonly oauth: DnsOAuth | null;
  readonly #base: string;
  readonly #timeoutMs: number;

  constructor(options: CloudflareDnsOptions) {
    this.#base = options.apiUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.oauth = options.oauth ? new CloudflareOAuth(options.oauth, this.#timeoutMs) : null;
  }

  async verifyCredential(credential: string): Promise<DnsAccount> {
    const operation = 'verifying the API token';
    const envelope = await this.call({ method: 'GET', path: '/user/tokens/verify', credential, operation });
    const token = parse(tokenStatusSchema, envelope.result, operation);
    // A disabled or expired token still answers 200 here; only `active` may be used.
    if (token.status !== 'active') throw credentialRefused();
    return { accountName: await this.accountName(credential) };
  }

  async listZones(credential: string): Promise<DnsZone[]> {
    const zones = await this.listAll(credential, '/zones', ZONES_PER_PAGE, zoneSchema, 'listing zones');
    return zones
      .map((zone): DnsZone => ({ id: zone.id, name: bareName(zone.name), status: zone.status === 'active' ? 'active' : 'pending' }))
      .sort((a, b) => compare(a.name, b.name));
  }

  async listRecords(credential: string, zoneId: string): Promise<DnsRecord[]> {
    const path = `/zones/${encodeURIComponent(zoneId)}/dns_records`;
    const records = await this.listAll(credential, path, RECORDS_PER_PAGE, recordSchema, 'listing DNS records', 'DNS zone');
    return records
      .flatMap((record) => (isSupportedType(record.type) ? [fromCloudflare(record, record.type, zoneId, 'listing DNS records')] : []))
      .sort((a, b) => compare(a.name, b.name) || compare(a.type, b.type));
  }

  async createRecord(credential: string, zoneId: string, record: DnsRecordInput): Promise<DnsRecord> {
    const operation = 'creating a DNS record';
    const envelope = await this.call({
      method: 'POST',
      path: `/zones/${encodeURIComponent(zoneId)}/dns_records`,
      credential,
      operation,
      body: toCloudflare(record),
      subject: 'DNS zone',
      writesRecord: true,
    });
    return this.recordFrom(envelope, zoneId, operation);
  }

  async updateRecord(credential: string, zoneId: string, recordId: string, record: DnsRecordInput): Promise<DnsRecord> {
    const operation = 'replacing a DNS record';
    const envelope = await this.call({
      method: 'PUT',
      path: `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(recordId)}`,
      credential,
      operation,
      body: toCloudflare(record),
      subject: 'DNS record',
      writesRecord: true,
    });
    return this.recordFrom(envelope, zoneId, operation);
  }

  async deleteRecord(credential: string, zoneId: string, recordId: string): Promise<void> {
    const operation = 'deleting a DNS record';
    const envelope = await this.call({
      method: 'DELETE',
      path: `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(recordId)}`,
      credential,
      operation,
      subject: 'DNS record',
    });
    parse(deletedSchema, envelope.result, operation);
  }

  /** The first account the token may read, or null when it may read none (a token scoped to zones only). */
  private async accountName(credential: string): Promise<string | null> {
    const operation = 'reading the account';
    try {
      const envelope = await this.call({ method: 'GET', path: '/accounts', credential, operation });
      const [account] = parse(z.array(accountSchema), envelope.result, operation);
      return account?.name ?? null;
    } catch (err) {
      if (err instanceof AppError && err.code === 'DNS_CREDENTIAL_INVALID') return null;
      throw err;
    }
  }

  private recordFrom(envelope: Envelope, zoneId: string, operation: string): DnsRecord {
    const record = parse(recordSchema, envelope.result, operation);
    if (!isSupportedType(record.type)) throw unexpectedResponse(operation, new Error(`Record of unsupported type ${record.type}`));
    return fromCloudflare(record, record.type, zoneId, operation);
  }

  /** Walks `page` until `result_info.total_pages`; an upstream that keeps offering pages is stopped by its own total. */
  private async listAll<S extends z.ZodType>(
    credential: string,
    path: string,
    perPage: number,
    item: S,
    operation: string,
    subject?: Call['subject'],
  ): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    for (let page = 1; ; page += 1) {
      const envelope = await this.call({ method: 'GET', path, credential, operation, subject, query: { page: String(page), per_page: String(perPage) } });
      const batch = parse(z.array(item), envelope.result, operation);
      items.push(...batch);
      const info = envelope.result_info;
      const lastPage = info?.total_pages ?? (batch.length < (info?.per_page ?? perPage) ? page : page + 1);
      const total = info?.total_count;
      if (batch.length === 0 || page >= lastPage || (total !== undefined && items.length >= total)) return items;
    }
  }

  private async call(call: Call): Promise<Envelope> {
    const url = new URL(this.#base + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${call.credential}`, accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';

    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const message = isTimeout(err)
        ? `The DNS provider did not answer within ${this.#timeoutMs} ms while ${call.operation}`
        : `The DNS provider could not be reached while ${call.operation}`;
      logFailure(call, null, [], 'unreachable');
      throw new AppError('UPSTREAM_ERROR', message, { cause: new Error(`${call.method} ${url.pathname}: ${describeNetworkError(err)}`) });
    }

    const parsed = envelopeSchema.safeParse(parseJson(text));
    if (!parsed.success) {
      logFailure(call, response.status, [], 'unparseable');
      throw unexpectedResponse(call.operation, new Error(`${call.method} ${url.pathname} answered ${response.status} with an unparseable body`));
    }
    const envelope = parsed.data;
    if (response.ok && envelope.success) return envelope;

    const errors = envelope.errors.map((error) => ({ code: error.code, message: redact(error.message, call.credential) }));
    const refusal = classify(response.status, errors, call.writesRecord === true);
    logFailure(call, response.status, errors, refusal);
    const cause = new CloudflareApiError(
      response.status,
      errors.map((error) => error.code),
      `${call.method} ${url.pathname} answered ${response.status}: ${errors.map((error) => `${error.code} ${error.message}`).join('; ') || 'no error given'}`,
    );
    switch (refusal) {
      case 'credential':
        throw credentialRefused(cause);
      case 'not-found':
        throw new AppError('NOT_FOUND', `${errors.some((error) => error.code === 81_044) ? 'DNS record' : (call.subject ?? 'DNS resource')} not found`, {
          cause,
        });
      case 'record': {
        const [first] = errors;
        const message = first?.message ?? 'the record was refused';
        const field = errors.map((error) => REFUSAL_FIELDS.get(error.code)).find((known) => known !== undefined);
        throw new AppError('VALIDATION_ERROR', `The DNS provider refused the record: ${message}`, { cause, fields: field ? { [field]: message } : {} });
      }
      case 'upstream':
        throw new AppError(
          'UPSTREAM_ERROR',
          response.status === 429
            ? `The DNS provider's rate limit was reached while ${call.operation}; try again shortly`
            : `The DNS provider failed while ${call.operation}`,
          { cause },
        );
    }
  }
}

class CloudflareOAuth implements DnsOAuth {
  readonly #options: CloudflareOAuthOptions;
  readonly #timeoutMs: number;

  constructor(options: CloudflareOAuthOptions, timeoutMs: number) {
    this.#options = options;
    this.#timeoutMs = timeoutMs;
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL(this.#options.authorizeUrl);
    url.searchParams.set('client_id', this.#options.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('state', state);
    url.searchParams.set('scope', CLOUDFLARE_OAUTH_SCOPES.join(' '));
    return url.toString();
  }

  async exchangeCode(code: string, redirectUri: string): Promise<{ accessToken: string }> {
    const operation = 'exchanging the authorization code';
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: this.#options.clientId,
      client_secret: this.#options.clientSecret,
    });
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#options.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      getLogger().warn({ provider: 'cloudflare', operation }, 'DNS provider OAuth token endpoint unreachable');
      throw new AppError(
        'UPSTREAM_ERROR',
        isTimeout(err)
          ? `The DNS provider did not answer within ${this.#timeoutMs} ms while ${operation}`
          : `The DNS provider could not be reached while ${operation}`,
        { cause: new Error(describeNetworkError(err)) },
      );
    }
    // RFC 6749 §5.2: a code that is invalid, expired, used or issued to another client is 400 (or 401 for the client).
    if (response.status === 400 || response.status === 401) {
      getLogger().info({ provider: 'cloudflare', operation, status: response.status }, 'DNS provider refused an OAuth authorization code');
      throw new AppError('DNS_CREDENTIAL_INVALID', 'The DNS provider refused the authorization: start the connection again');
    }
    const parsed = response.ok ? oauthTokenSchema.safeParse(parseJson(text)) : undefined;
    if (!parsed?.success) {
      getLogger().warn({ provider: 'cloudflare', operation, status: response.status }, 'DNS provider OAuth token endpoint failed');
      throw new AppError('UPSTREAM_ERROR', `The DNS provider failed while ${operation}`, {
        cause: new Error(`Token endpoint answered ${response.status}${parsed ? ' without an access token' : ''}`),
      });
    }
    return { accessToken: parsed.data.access_token };
  }
}

/** Cloudflare's account of a failed request, kept as the cause for the server log. */
class CloudflareApiError extends Error {
  constructor(
    readonly status: number,
    readonly codes: number[],
    message: string,
  ) {
    super(message);
    this.name = 'CloudflareApiError';
  }
}

function classify(status: number, errors: Array<{ code: number }>, writesRecord: boolean): Refusal {
  const codes = errors.map((error) => error.code);
  if (status === 401 || status === 403 || codes.some((code) => CREDENTIAL_CODES.has(code))) return 'credential';
  if (status === 404 || codes.some((code) => NOT_FOUND_CODES.has(code))) return 'not-found';
  if (writesRecord && status >= 400 && status < 500 && status !== 429) return 'record';
  return 'upstream';
}

/** What the API takes: SRV and CAA as `data` objects, MX's priority beside its content, `proxied` only where it applies. */
function toCloudflare(record: DnsRecordInput): Record<string, unknown> {
  const common = { type: record.type, name: record.name, ttl: record.ttl };
  switch (record.type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
      return { ...common, content: record.content, proxied: record.proxied };
    case 'MX':
      return { ...common, content: record.content, priority: record.priority };
    case 'SRV': {
      const [priority, weight, port, target] = record.content.trim().split(/\s+/);
      return { ...common, data: { priority: Number(priority), weight: Number(weight), port: Number(port), target } };
    }
    case 'CAA': {
      const match = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(record.content.trim());
      return { ...common, data: { flags: Number(match?.[1]), tag: match?.[2], value: match?.[3] } };
    }
    default:
      return { ...common, content: record.content };
  }
}

function fromCloudflare(record: CloudflareRecord, type: DnsRecordType, zoneId: string, operation: string): DnsRecord {
  return {
    id: record.id,
    zoneId,
    type,
    name: bareName(record.name),
    content: contentOf(record, type, operation),
    ttl: record.ttl,
    proxied: record.proxied ?? false,
    priority: type === 'MX' ? (record.priority ?? 0) : null,
    createdAt: record.created_on,
    modifiedAt: record.modified_on,
  };
}

/** SRV and CAA are read from their `data` when present: Cloudflare's SRV `content` leaves the priority out. */
function contentOf(record: CloudflareRecord, type: DnsRecordType, operation: string): string {
  if (type === 'SRV') {
    const data = srvDataSchema.safeParse(record.data);
    if (data.success) return `${data.data.priority} ${data.data.weight} ${data.data.port} ${bareName(data.data.target) || '.'}`;
    if (record.content && record.priority !== null && record.priority !== undefined) return `${record.priority} ${record.content}`;
  } else if (type === 'CAA') {
    const data = caaDataSchema.safeParse(record.data);
    if (data.success) return `${data.data.flags} ${data.data.tag} "${data.data.value}"`;
    if (record.content) return record.content;
  } else if (typeof record.content === 'string') {
    return type === 'CNAME' || type === 'MX' || type === 'NS' ? bareName(record.content) : record.content;
  }
  throw unexpectedResponse(operation, new Error(`${type} record ${record.id} without usable content`));
}

function credentialRefused(cause?: Error): AppError {
  return new AppError('DNS_CREDENTIAL_INVALID', 'The DNS provider refused the API token: it is invalid, expired, revoked or lacks the permissions needed', {
    cause,
  });
}

function unexpectedResponse(operation: string, cause: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', `The DNS provider sent an unexpected response while ${operation}`, { cause });
}

function parse<S extends z.ZodType>(schema: S, value: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw unexpectedResponse(operation, result.error);
  return result.data;
}

/** What a failure tells the operator: the request, never its credential, and Cloudflare's codes. */
function logFailure(call: Call, status: number | null, errors: Array<{ code: number; message: string }>, outcome: string): void {
  const entry = { provider: 'cloudflare', method: call.method, path: call.path, status, errors, outcome };
  if (outcome === 'upstream' || outcome === 'unreachable' || outcome === 'unparseable') getLogger().warn(entry, `DNS provider failed while ${call.operation}`);
  else getLogger().info(entry, `DNS provider refused ${call.operation}`);
}

/** Cloudflare never echoes a token that we know of; this keeps it so if it starts to. */
function redact(text: string, credential: string): string {
  return credential === '' ? text : text.split(credential).join('[redacted]');
}

/** Only the error's name and code: a fetch failure's message can quote the request it failed. */
function describeNetworkError(err: unknown): string {
  if (typeof err !== 'object' || err === null) return 'network error';
  const { name, cause } = err as { name?: unknown; cause?: unknown };
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return [typeof name === 'string' ? name : 'Error', typeof code === 'string' ? code : undefined].filter(Boolean).join(' ');
}

function bareName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isSupportedType(type: string): type is DnsRecordType {
  return (DNS_RECORD_TYPES as readonly string[]).includes(type);
}

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

import { z } from 'zod';
import { AppError, type ErrorCode } from '../platform/errors';
import { getLogger } from '../platform/logger';

/**
 * The request plumbing the production adapters of REST upstreams share: timeouts, network
 * failures, JSON answers checked against a schema, status codes turned into AppErrors, failure
 * logging, and next-page links confined to the API. Each adapter keeps its upstream's URLs,
 * credentials, error bodies and special cases. No value a call names as secret reaches a message,
 * a cause or a log line.
 */

/** A listing that keeps offering pages past this is looping, not long. */
const MAX_PAGES = 1000;

export type UpstreamMethod = 'GET' | 'POST' | 'DELETE';

export interface UpstreamCall {
  method: UpstreamMethod;
  url: URL;
  /** Names the work in messages: "listing repositories". */
  operation: string;
  /** The whole Authorization header value, when the call carries a credential. */
  authorization?: string;
  body?: { json: unknown } | { form: URLSearchParams };
  /** The upstream's own headers (an API version, a media type); an `accept` here replaces JSON. */
  headers?: Record<string, string>;
  /** What a 404 means here: "Repository acme/web". */
  subject?: string;
  /** Values never to repeat in a cause or a log line, such as the token the call carries. */
  secrets: readonly string[];
}

export interface UpstreamReply {
  status: number;
  headers: Headers;
  text: string;
}

export interface UpstreamHttpOptions {
  /** Starts every message: "Git host 2", "The image hub". */
  label: string;
  /** Starts the failure log lines instead, where the adapter names its upstream there otherwise. */
  logLabel?: string;
  /** What every failure log line carries besides the request, such as `{ provider: 'bitbucket' }`. */
  logFields: Readonly<Record<string, string>>;
  /** The API's root: paths are resolved below it, and next-page links are followed only within it. */
  apiUrl: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs: number;
}

/** How a refusal reads to the caller. */
export interface RefusalWording {
  code: ErrorCode;
  message: string;
}

export interface UpstreamClientOptions extends UpstreamHttpOptions {
  /** Names the upstream inside a sentence ("… not found on the image hub"); the label when absent. */
  name?: string;
  /** What a refused credential (401) becomes: the caller's credential to renew. */
  credentialInvalidCode: ErrorCode;
  /** The upstream's own words in an error body, for the cause and the log line; '' when it gave none. */
  upstreamMessage: (text: string) => string;
  /** The messages of a 401 and a 403, which each upstream means its own way. */
  refusals: {
    unauthorized: (operation: string) => string;
    forbidden: (operation: string, reply: UpstreamReply) => RefusalWording;
  };
}

/** What one page of a listing holds: its items, and the link to the next page unless it is the last. */
export interface ListingPage {
  items: unknown;
  next?: string | URL | null;
}

/** The upstream's refusal of a request, kept as the cause for the server log and for callers that tell statuses apart. */
export class UpstreamRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamRefusal';
  }
}

/**
 * Sends calls to one upstream and reads its answers: the transport and the failures every
 * upstream has alike. Statuses are the caller's to read (see UpstreamClient for the usual mapping).
 */
export class UpstreamHttp {
  protected readonly label: string;
  readonly #logLabel: string;
  readonly #logFields: Readonly<Record<string, string>>;
  readonly #base: string;
  readonly #api: URL;
  readonly #timeoutMs: number;

  constructor(options: UpstreamHttpOptions) {
    this.label = options.label;
    this.#logLabel = options.logLabel ?? options.label;
    this.#logFields = options.logFields;
    this.#base = options.apiUrl.replace(/\/+$/, '');
    this.#api = new URL(this.#base);
    this.#timeoutMs = options.timeoutMs;
  }

  /** A path below the API's root, or a copy of an absolute URL, with the query set on it. */
  url(target: string | URL, query: Readonly<Record<string, string>> = {}): URL {
    const url = typeof target === 'string' ? new URL(this.#base + target) : new URL(target);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  }

  /** The upstream's answer, whatever its status; a timeout or a network failure becomes UPSTREAM_ERROR. */
  async send(call: UpstreamCall): Promise<UpstreamReply> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.authorization !== undefined) headers.authorization = call.authorization;
    let body: string | undefined;
    if (call.body && 'json' in call.body) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body.json);
    } else if (call.body) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = call.body.form.toString();
    }
    Object.assign(headers, call.headers);
    try {
      const response = await fetch(call.url, { method: call.method, headers, body, signal: AbortSignal.timeout(this.#timeoutMs) });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (err) {
      this.logFailure(call, null, describeNetworkError(err));
      throw new AppError(
        'UPSTREAM_ERROR',
        isTimeout(err)
          ? `${this.label} did not answer within ${this.#timeoutMs} ms while ${call.operation}`
          : `${this.label} could not be reached while ${call.operation}`,
        { cause: new Error(`${call.method} ${call.url.pathname}: ${describeNetworkError(err)}`) },
      );
    }
  }

  /** The value as the schema reads it, or UPSTREAM_ERROR: an upstream that changes shape fails one request. */
  parse<S extends z.ZodType>(schema: S, value: unknown, operation: string): z.output<S> {
    const result = schema.safeParse(value);
    if (!result.success) throw this.unexpected(operation, result.error);
    return result.data;
  }

  unexpected(operation: string, cause: unknown): AppError {
    return new AppError('UPSTREAM_ERROR', `${this.label} sent an unexpected response while ${operation}`, { cause });
  }

  /**
   * What a failure tells the operator: the request and the upstream's own words, never a credential
   * or a query. Unreachable, rate-limited and failing upstreams are warnings; refusals are news.
   */
  logFailure(call: UpstreamCall, status: number | null, detail: string): void {
    const entry = { ...this.#logFields, method: call.method, path: call.url.pathname, status, detail: redact(detail, call.secrets) };
    if (status === null || status === 429 || status >= 500) getLogger().warn(entry, `${this.#logLabel} failed while ${call.operation}`);
    else getLogger().info(entry, `${this.#logLabel} refused ${call.operation}`);
  }

  /** A link the upstream gave, followed only within the API it was given: the credential goes wherever it points. */
  onApi(link: string | URL, operation: string): URL {
    let url: URL;
    try {
      url = new URL(link);
    } catch (err) {
      throw this.unexpected(operation, err);
    }
    const root = this.#api.pathname.replace(/\/+$/, '');
    if (url.origin !== this.#api.origin || !(url.pathname === root || url.pathname.startsWith(`${root}/`))) {
      throw this.unexpected(operation, new Error(`a next link left the API (${url.origin}${url.pathname})`));
    }
    return url;
  }

  /** The page a next link names, or null on the last page; `seen` holds the pages the listing has had, so a loop ends in UPSTREAM_ERROR. */
  nextPage(link: string | URL | null | undefined, seen: Set<string>, operation: string): URL | null {
    if (!link) return null;
    const url = this.onApi(link, operation);
    if (seen.has(url.href) || seen.size >= MAX_PAGES) throw this.unexpected(operation, new Error('the listing kept offering pages'));
    seen.add(url.href);
    return url;
  }
}

/**
 * An UpstreamHttp that also reads statuses the usual way: 401 the caller's credential, 403 and 404
 * NOT_FOUND, 429 and everything else UPSTREAM_ERROR.
 */
export class UpstreamClient extends UpstreamHttp {
  readonly #name: string;
  readonly #credentialInvalidCode: ErrorCode;
  readonly #upstreamMessage: (text: string) => string;
  readonly #refusals: UpstreamClientOptions['refusals'];

  constructor(options: UpstreamClientOptions) {
    super(options);
    this.#name = options.name ?? options.label;
    this.#credentialInvalidCode = options.credentialInvalidCode;
    this.#upstreamMessage = options.upstreamMessage;
    this.#refusals = options.refusals;
  }

  /** The JSON of a successful answer as the schema reads it; every other answer becomes its AppError. */
  async json<S extends z.ZodType>(call: UpstreamCall, schema: S): Promise<z.output<S>> {
    const reply = await this.send(call);
    if (!isSuccess(reply.status)) throw this.refusal(call, reply);
    const body = parseJson(reply.text);
    if (body === undefined) throw this.unexpected(call.operation, new Error(`${call.method} ${call.url.pathname} answered ${reply.status} without JSON`));
    return this.parse(schema, body, call.operation);
  }

  /**
   * Every item of a listing: `page` reads each successful answer's JSON (undefined when it has
   * none) for its items and its next link; the first call's other fields go with every page.
   */
  async collect<S extends z.ZodType>(
    first: UpstreamCall,
    item: S,
    page: (body: unknown, reply: UpstreamReply, url: URL) => ListingPage | Promise<ListingPage>,
  ): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    const seen = new Set<string>();
    let url: URL | null = first.url;
    while (url) {
      const call: UpstreamCall = { ...first, url };
      const reply = await this.send(call);
      if (!isSuccess(reply.status)) throw this.refusal(call, reply);
      const { items: raw, next } = await page(parseJson(reply.text), reply, url);
      items.push(...this.parse(z.array(item), raw, call.operation));
      url = this.nextPage(next, seen, call.operation);
    }
    return items;
  }

  /** The AppError an unsuccessful answer stands for, logged with the upstream's words. */
  refusal(call: UpstreamCall, reply: UpstreamReply): AppError {
    const detail = redact(this.#upstreamMessage(reply.text), call.secrets);
    const cause = new UpstreamRefusal(reply.status, `${call.method} ${call.url.pathname} answered ${reply.status}${detail ? `: ${detail}` : ''}`);
    this.logFailure(call, reply.status, detail);
    switch (reply.status) {
      case 401:
        return new AppError(this.#credentialInvalidCode, this.#refusals.unauthorized(call.operation), { cause });
      case 403: {
        const { code, message } = this.#refusals.forbidden(call.operation, reply);
        return new AppError(code, message, { cause });
      }
      case 404:
        return new AppError('NOT_FOUND', `${call.subject ?? 'Resource'} not found on ${this.#name}`, { cause });
      case 429:
        return new AppError('UPSTREAM_ERROR', `${this.label}'s rate limit was reached while ${call.operation}; try again shortly`, { cause });
      default:
        return new AppError('UPSTREAM_ERROR', `${this.label} failed while ${call.operation} (HTTP ${reply.status})`, { cause });
    }
  }
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Undefined for an empty or non-JSON body, which every schema then rejects. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The text with every secret replaced, for upstreams that echo what they were sent. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  return secrets.reduce<string>((out, secret) => (secret ? out.split(secret).join('[redacted]') : out), text);
}

function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
}

/** Only the error's name and code: a fetch failure's message can quote the request it failed. */
function describeNetworkError(err: unknown): string {
  if (typeof err !== 'object' || err === null) return 'network error';
  const { name, cause } = err as { name?: unknown; cause?: unknown };
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return [typeof name === 'string' ? name : 'Error', typeof code === 'string' ? code : undefined].filter(Boolean).join(' ');
}

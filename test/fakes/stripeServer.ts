import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Stripe's HTTP API, speaking its wire format: form-encoded bodies with
 * bracket notation, JSON objects tagged with `object`, errors as `{ error: { type, code, … } }`,
 * and replay of a stored response for a repeated Idempotency-Key. It models only what the payments
 * adapter calls, with the state those calls touch, so the adapter is tested through the real SDK.
 */

type FormValue = string | FormValue[] | { [key: string]: FormValue };
type Form = { [key: string]: FormValue };
type JsonObject = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case names, as Node delivers them. */
  headers: IncomingHttpHeaders;
  query: Form;
  body: Form;
}

/** Stripe's test PaymentMethod tokens this fake knows, with the behaviour Stripe documents for each. */
export type TestCardToken =
  | 'pm_card_visa'
  | 'pm_card_mastercard'
  | 'pm_card_chargeCustomerFail'
  | 'pm_card_chargeDeclined'
  | 'pm_card_chargeDeclinedInsufficientFunds';

interface Decline {
  declineCode: string;
  message: string;
}

interface TestCard {
  brand: string;
  last4: string;
  country: string;
  /** Stripe validates a card when it is saved; these cards fail that check. */
  onSave: Decline | null;
  onCharge: Decline | null;
}

const GENERIC_DECLINE: Decline = { declineCode: 'generic_decline', message: 'Your card was declined.' };
const INSUFFICIENT_FUNDS: Decline = { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' };

const TEST_CARDS: Record<TestCardToken, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242', country: 'US', onSave: null, onCharge: null },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', country: 'US', onSave: null, onCharge: null },
  pm_card_chargeCustomerFail: { brand: 'visa', last4: '0341', country: 'US', onSave: null, onCharge: GENERIC_DECLINE },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', country: 'US', onSave: GENERIC_DECLINE, onCharge: GENERIC_DECLINE },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', country: 'US', onSave: INSUFFICIENT_FUNDS, onCharge: INSUFFICIENT_FUNDS },
};

interface CustomerState {
  id: string;
  created: number;
  email: string | null;
  name: string | null;
  metadata: Form;
  defaultPaymentMethod: string | null;
}

interface PaymentMethodState {
  id: string;
  seq: number;
  created: number;
  customer: string | null;
  card: TestCard;
  expMonth: number;
  expYear: number;
}

interface ChargeState {
  id: string;
  created: number;
  amount: number;
  amountRefunded: number;
  currency: string;
  status: 'succeeded' | 'failed';
  paymentIntent: string;
  paymentMethod: string;
  customer: string;
  metadata: Form;
  failure: Decline | null;
}

interface PaymentIntentState {
  id: string;
  created: number;
  amount: number;
  currency: string;
  customer: string;
  paymentMethod: string;
  description: string | null;
  metadata: Form;
  status: 'succeeded' | 'requires_payment_method';
  failure: Decline | null;
  latestCharge: string;
}

interface RefundState {
  id: string;
  created: number;
  amount: number;
  charge: string;
  paymentIntent: string;
  currency: string;
}

interface SetupIntentState {
  id: string;
  created: number;
  customer: string;
  usage: string;
  paymentMethodTypes: string[];
  clientSecret: string;
}

interface StoredResponse {
  method: string;
  path: string;
  params: string;
  status: number;
  body: string;
}

export interface FakeStripe {
  /** Base URL to hand the SDK (host, port and protocol of the loopback server). */
  url: string;
  secretKey: string;
  requests: RecordedRequest[];
  /**
   * Creates a card the way Stripe's test token does. With `customer`, the card is saved on that
   * customer as a SetupIntent confirmed in the browser would leave it.
   */
  createTestPaymentMethod(token: TestCardToken, options?: { customer?: string; country?: string }): string;
  customer(id: string): CustomerState | undefined;
  paymentIntents(): PaymentIntentState[];
  refunds(): RefundState[];
  setupIntents(): SetupIntentState[];
  close(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: JsonObject,
  ) {
    super(String(error.message));
  }
}

const invalidRequest = (message: string, extra: JsonObject = {}) =>
  new ApiError(400, { type: 'invalid_request_error', message, ...extra });
const noSuch = (kind: string, id: string, status = 404, param?: string) =>
  new ApiError(status, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, ...(param && { param }) });

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  const customers = new Map<string, CustomerState>();
  const paymentMethods = new Map<string, PaymentMethodState>();
  const paymentIntents = new Map<string, PaymentIntentState>();
  const charges = new Map<string, ChargeState>();
  const refunds = new Map<string, RefundState>();
  const setupIntents = new Map<string, SetupIntentState>();
  const idempotent = new Map<string, StoredResponse>();
  let seq = 0;

  const now = () => Math.floor(Date.now() / 1000);
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

  function customerJson(c: CustomerState): JsonObject {
    return {
      id: c.id,
      object: 'customer',
      created: c.created,
      email: c.email,
      name: c.name,
      metadata: c.metadata,
      invoice_settings: { custom_fields: null, default_payment_method: c.defaultPaymentMethod, footer: null, rendering_options: null },
      livemode: false,
    };
  }

  function paymentMethodJson(pm: PaymentMethodState): JsonObject {
    return {
      id: pm.id,
      object: 'payment_method',
      type: 'card',
      created: pm.created,
      customer: pm.customer,
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: pm.card.brand,
        last4: pm.card.last4,
        exp_month: pm.expMonth,
        exp_year: pm.expYear,
        country: pm.card.country,
        funding: 'credit',
      },
      metadata: {},
      livemode: false,
    };
  }

  function chargeJson(ch: ChargeState): JsonObject {
    return {
      id: ch.id,
      object: 'charge',
      created: ch.created,
      amount: ch.amount,
      amount_captured: ch.status === 'succeeded' ? ch.amount : 0,
      amount_refunded: ch.amountRefunded,
      refunded: ch.amountRefunded > 0 && ch.amountRefunded === ch.amount,
      currency: ch.currency,
      customer: ch.customer,
      paid: ch.status === 'succeeded',
      status: ch.status,
      payment_intent: ch.paymentIntent,
      payment_method: ch.paymentMethod,
      failure_code: ch.failure ? 'card_declined' : null,
      failure_message: ch.failure?.message ?? null,
      metadata: ch.metadata,
      livemode: false,
    };
  }

  function paymentIntentJson(pi: PaymentIntentState, expand: ReadonlySet<string>): JsonObject {
    const charge = charges.get(pi.latestCharge);
    return {
      id: pi.id,
      object: 'payment_intent',
      created: pi.created,
      amount: pi.amount,
      amount_received: pi.status === 'succeeded' ? pi.amount : 0,
      currency: pi.currency,
      customer: pi.customer,
      description: pi.description,
      metadata: pi.metadata,
      payment_method: pi.status === 'succeeded' ? pi.paymentMethod : null,
      status: pi.status,
      confirmation_method: 'automatic',
      capture_method: 'automatic',
      client_secret: `${pi.id}_secret_fake`,
      last_payment_error: pi.failure ? declineJson(pi.failure, { payment_method: paymentMethodJson(paymentMethods.get(pi.paymentMethod)!) }) : null,
      latest_charge: expand.has('latest_charge') && charge ? chargeJson(charge) : pi.latestCharge,
      livemode: false,
    };
  }

  function declineJson(decline: Decline, extra: JsonObject = {}): JsonObject {
    return {
      type: 'card_error',
      code: 'card_declined',
      decline_code: decline.declineCode,
      message: decline.message,
      doc_url: 'https://stripe.com/docs/error-codes/card-declined',
      ...extra,
    };
  }

  function refundJson(r: RefundState): JsonObject {
    return {
      id: r.id,
      object: 'refund',
      created: r.created,
      amount: r.amount,
      charge: r.charge,
      payment_intent: r.paymentIntent,
      currency: r.currency,
      status: 'succeeded',
      metadata: {},
    };
  }

  function requireCustomer(customerId: string, status = 404, param?: string): CustomerState {
    const customer = customers.get(customerId);
    if (!customer) throw noSuch('customer', customerId, status, param);
    return customer;
  }

  function requirePaymentMethod(paymentMethodId: string, status = 404, param?: string): PaymentMethodState {
    const pm = paymentMethods.get(paymentMethodId);
    if (!pm) throw noSuch('PaymentMethod', paymentMethodId, status, param);
    return pm;
  }

  function route(method: string, path: string, query: Form, body: Form): { status: number; body: JsonObject } {
    const ok = (json: JsonObject) => ({ status: 200, body: json });
    let m: RegExpExecArray | null;

    if (method === 'POST' && path === '/v1/customers') {
      const customer: CustomerState = {
        id: id('cus'),
        created: now(),
        email: optionalText(body.email),
        name: optionalText(body.name),
        metadata: objectParam(body.metadata),
        defaultPaymentMethod: null,
      };
      customers.set(customer.id, customer);
      return ok(customerJson(customer));
    }
    if ((m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = requireCustomer(decodeURIComponent(m[1]!));
      if (method === 'GET') return ok(customerJson(customer));
      if (method === 'POST') {
        const settings = objectParam(body.invoice_settings);
        if ('default_payment_method' in settings) {
          const value = text(settings.default_payment_method, 'invoice_settings[default_payment_method]');
          if (value !== '') {
            const pm = requirePaymentMethod(value, 400, 'invoice_settings[default_payment_method]');
            if (pm.customer !== customer.id) {
              throw invalidRequest(`The customer does not have a payment method with the ID ${value}. The payment method must be attached to the customer.`, {
                param: 'invoice_settings[default_payment_method]',
              });
            }
          }
          customer.defaultPaymentMethod = value === '' ? null : value;
        }
        return ok(customerJson(customer));
      }
    }
    if (method === 'GET' && path === '/v1/payment_methods') {
      const customerId = text(query.customer, 'customer');
      requireCustomer(customerId, 400, 'customer');
      if (query.type !== undefined && query.type !== 'card') return ok(list('/v1/payment_methods', [], false));
      const limit = intParam(query.limit, 'limit', 10);
      const newestFirst = [...paymentMethods.values()].filter((pm) => pm.customer === customerId).sort((a, b) => b.seq - a.seq);
      const after = query.starting_after === undefined ? -1 : newestFirst.findIndex((pm) => pm.id === query.starting_after);
      const page = newestFirst.slice(after + 1, after + 1 + limit);
      return ok(list('/v1/payment_methods', page.map(paymentMethodJson), after + 1 + limit < newestFirst.length));
    }
    if ((m = /^\/v1\/payment_methods\/([^/]+)$/.exec(path)) && method === 'GET') {
      return ok(paymentMethodJson(requirePaymentMethod(decodeURIComponent(m[1]!))));
    }
    if ((m = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path)) && method === 'POST') {
      const pm = requirePaymentMethod(decodeURIComponent(m[1]!));
      const customer = requireCustomer(text(body.customer, 'customer'), 400, 'customer');
      if (pm.customer !== null && pm.customer !== customer.id) {
        throw invalidRequest('The payment method you provided has already been attached to a customer.');
      }
      if (pm.card.onSave) throw new ApiError(402, declineJson(pm.card.onSave));
      pm.customer = customer.id;
      return ok(paymentMethodJson(pm));
    }
    if ((m = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path)) && method === 'POST') {
      const pm = requirePaymentMethod(decodeURIComponent(m[1]!));
      if (pm.customer === null) {
        throw invalidRequest('The payment method you provided is not attached to a customer so detachment is impossible.');
      }
      const owner = customers.get(pm.customer);
      // Stripe clears the customer's default when that card is detached.
      if (owner?.defaultPaymentMethod === pm.id) owner.defaultPaymentMethod = null;
      pm.customer = null;
      return ok(paymentMethodJson(pm));
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      return createPaymentIntent(body);
    }
    if (method === 'GET' && path === '/v1/payment_intents/search') {
      const wanted = parseMetadataQuery(text(query.query, 'query'));
      const limit = intParam(query.limit, 'limit', 10);
      const expand = expansions(query.expand, 'data.');
      const found = [...paymentIntents.values()]
        .filter((pi) => pi.metadata[wanted.key] === wanted.value)
        .sort((a, b) => b.created - a.created);
      return ok({
        object: 'search_result',
        url: '/v1/payment_intents/search',
        data: found.slice(0, limit).map((pi) => paymentIntentJson(pi, expand)),
        has_more: found.length > limit,
        next_page: null,
      });
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intentId = text(body.payment_intent, 'payment_intent');
      const pi = paymentIntents.get(intentId);
      if (!pi) throw noSuch('payment_intent', intentId, 400, 'payment_intent');
      const charge = charges.get(pi.latestCharge);
      if (!charge || charge.status !== 'succeeded') {
        throw invalidRequest('This PaymentIntent does not have a successful charge to refund.', { code: 'payment_intent_unexpected_state' });
      }
      const remaining = charge.amount - charge.amountRefunded;
      if (remaining === 0) {
        throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' });
      }
      const amount = body.amount === undefined ? remaining : intParam(body.amount, 'amount', 0);
      if (amount <= 0) throw invalidRequest('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
      if (amount > remaining) {
        throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, {
          code: 'amount_too_large',
          param: 'amount',
        });
      }
      charge.amountRefunded += amount;
      const refund: RefundState = { id: id('re'), created: now(), amount, charge: charge.id, paymentIntent: pi.id, currency: pi.currency };
      refunds.set(refund.id, refund);
      return ok(refundJson(refund));
    }
    if (method === 'POST' && path === '/v1/setup_intents') {
      const customer = requireCustomer(text(body.customer, 'customer'), 400, 'customer');
      const types = body.allowed_payment_method_types ?? body.payment_method_types ?? ['card'];
      const intentId = id('seti');
      const intent: SetupIntentState = {
        id: intentId,
        created: now(),
        customer: customer.id,
        usage: body.usage === undefined ? 'off_session' : text(body.usage, 'usage'),
        paymentMethodTypes: Array.isArray(types) ? types.map((t) => text(t, 'allowed_payment_method_types')) : [text(types, 'allowed_payment_method_types')],
        clientSecret: `${intentId}_secret_${randomBytes(12).toString('hex')}`,
      };
      setupIntents.set(intent.id, intent);
      return ok({
        id: intent.id,
        object: 'setup_intent',
        created: intent.created,
        customer: intent.customer,
        usage: intent.usage,
        allowed_payment_method_types: intent.paymentMethodTypes,
        payment_method_types: intent.paymentMethodTypes,
        client_secret: intent.clientSecret,
        status: 'requires_payment_method',
        payment_method: null,
        livemode: false,
      });
    }
    throw new ApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  function createPaymentIntent(body: Form): { status: number; body: JsonObject } {
    const amount = intParam(body.amount, 'amount', 0);
    if (amount < 1) throw invalidRequest('This value must be greater than or equal to 1.', { code: 'parameter_invalid_integer', param: 'amount' });
    const currency = text(body.currency, 'currency').toLowerCase();
    const customer = requireCustomer(text(body.customer, 'customer'), 400, 'customer');
    const pm = requirePaymentMethod(text(body.payment_method, 'payment_method'), 400, 'payment_method');
    if (pm.customer !== customer.id) {
      throw invalidRequest('The provided PaymentMethod does not belong to the Customer.', { param: 'payment_method' });
    }
    if (body.confirm !== 'true' || body.off_session !== 'true') {
      throw invalidRequest('This fake models only confirmed off-session payments (confirm=true, off_session=true).');
    }
    const metadata = objectParam(body.metadata);
    const failure = pm.card.onCharge;
    const intent: PaymentIntentState = {
      id: id('pi'),
      created: now(),
      amount,
      currency,
      customer: customer.id,
      paymentMethod: pm.id,
      description: optionalText(body.description),
      metadata,
      status: failure ? 'requires_payment_method' : 'succeeded',
      failure,
      latestCharge: id('ch'),
    };
    charges.set(intent.latestCharge, {
      id: intent.latestCharge,
      created: intent.created,
      amount,
      amountRefunded: 0,
      currency,
      status: failure ? 'failed' : 'succeeded',
      paymentIntent: intent.id,
      paymentMethod: pm.id,
      customer: customer.id,
      // A PaymentIntent's charge carries its metadata, so charge webhooks can be matched up.
      metadata,
      failure,
    });
    paymentIntents.set(intent.id, intent);
    const expand = expansions(body.expand, '');
    if (failure) {
      throw new ApiError(
        402,
        declineJson(failure, {
          charge: intent.latestCharge,
          payment_intent: paymentIntentJson(intent, expand),
          payment_method: paymentMethodJson(pm),
        }),
      );
    }
    return { status: 200, body: paymentIntentJson(intent, expand) };
  }

  function list(url: string, data: JsonObject[], hasMore: boolean): JsonObject {
    return { object: 'list', url, data, has_more: hasMore };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    let status: number;
    let payload: string;
    let replayed = false;
    try {
      const query = parseForm(url.search.slice(1));
      const body = parseForm(raw);
      requests.push({ method, path: url.pathname, headers: req.headers, query, body });
      if (req.headers.authorization !== `Bearer ${secretKey}`) {
        throw new ApiError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided.' });
      }
      const key = typeof req.headers['idempotency-key'] === 'string' && method === 'POST' ? req.headers['idempotency-key'] : undefined;
      const params = JSON.stringify(body);
      const stored = key === undefined ? undefined : idempotent.get(key);
      if (stored) {
        if (stored.method !== method || stored.path !== url.pathname || stored.params !== params) {
          throw new ApiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          });
        }
        status = stored.status;
        payload = stored.body;
        replayed = true;
      } else {
        try {
          const result = route(method, url.pathname, query, body);
          status = result.status;
          payload = JSON.stringify(result.body);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          status = err.status;
          payload = JSON.stringify({ error: err.error });
        }
        // Stripe keeps the outcome of every request that began executing, declines included.
        if (key !== undefined && status < 500) idempotent.set(key, { method, path: url.pathname, params, status, body: payload });
      }
    } catch (err) {
      if (err instanceof ApiError) {
        status = err.status;
        payload = JSON.stringify({ error: err.error });
      } else {
        status = 500;
        payload = JSON.stringify({ error: { type: 'api_error', message: err instanceof Error ? err.message : 'fake failure' } });
      }
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': id('req') };
    if (replayed) headers['idempotent-replayed'] = 'true';
    if (typeof req.headers['idempotency-key'] === 'string') headers['idempotency-key'] = req.headers['idempotency-key'];
    res.writeHead(status, headers).end(payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    requests,
    createTestPaymentMethod(token, opts = {}) {
      const card = TEST_CARDS[token];
      if (opts.customer !== undefined) {
        requireCustomer(opts.customer);
        if (card.onSave) throw new Error(`${token} is declined when saved, so no customer can hold it`);
      }
      seq += 1;
      const pm: PaymentMethodState = {
        id: id('pm'),
        seq,
        created: now(),
        customer: opts.customer ?? null,
        card: opts.country ? { ...card, country: opts.country } : card,
        expMonth: 12,
        expYear: new Date().getUTCFullYear() + 3,
      };
      paymentMethods.set(pm.id, pm);
      return pm.id;
    },
    customer: (customerId) => customers.get(customerId),
    paymentIntents: () => [...paymentIntents.values()],
    refunds: () => [...refunds.values()],
    setupIntents: () => [...setupIntents.values()],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Decodes `a[b][c]=1&list[0]=x&list[]=y` into nested objects and arrays, as Stripe's servers do. */
export function parseForm(encoded: string): Form {
  const root: Form = {};
  for (const pair of encoded.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
    if (!match) throw invalidRequest(`Invalid parameter name: ${name}`);
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((segment) => segment[1]!)];
    let node: Form = root;
    for (let i = 0; i < path.length; i += 1) {
      const segment = path[i] === '' ? String(Object.keys(node).length) : path[i]!;
      if (i === path.length - 1) {
        node[segment] = value;
      } else {
        const next = node[segment];
        if (typeof next !== 'object' || Array.isArray(next)) node[segment] = {};
        node = node[segment] as Form;
      }
    }
  }
  return arraysFromIndices(root) as Form;
}

function arraysFromIndices(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: Form = {};
  for (const key of keys) converted[key] = arraysFromIndices(value[key]!);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => converted[key]!);
  }
  return converted;
}

function decodeFormComponent(part: string): string {
  return decodeURIComponent(part.replace(/\+/g, ' '));
}

function text(value: FormValue | undefined, param: string): string {
  if (typeof value !== 'string') {
    throw invalidRequest(`Missing required param: ${param}.`, { code: 'parameter_missing', param });
  }
  return value;
}

function optionalText(value: FormValue | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function objectParam(value: FormValue | undefined): Form {
  return value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function intParam(value: FormValue | undefined, param: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) {
    throw invalidRequest('Invalid integer', { code: 'parameter_invalid_integer', param });
  }
  return Number(value);
}

/** The `expand` entries for one level of the response (`data.` for list and search results). */
function expansions(value: FormValue | undefined, prefix: string): Set<string> {
  const entries = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return new Set(
    entries.filter((entry): entry is string => typeof entry === 'string' && entry.startsWith(prefix)).map((entry) => entry.slice(prefix.length)),
  );
}

/** The one search the adapter makes: `metadata['key']:'value'`, with backslash escapes in the value. */
function parseMetadataQuery(query: string): { key: string; value: string } {
  const match = /^metadata\['([^'\\]+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(query.trim());
  if (!match) throw invalidRequest(`This fake supports only metadata['key']:'value' searches, not: ${query}`, { param: 'query' });
  return { key: match[1]!, value: match[2]!.replace(/\\(.)/g, '$1') };
}

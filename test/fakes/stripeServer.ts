import { randomBytes } from 'node:crypto';
import { createHttpFake, FakeHttpError, type FakeResponse, type FormFields as Form, type FormValue, type RecordedRequest, type RouteHandler } from './httpFake';

/**
 * A loopback stand-in for Stripe's HTTP API, speaking its wire format: form-encoded bodies with
 * bracket notation, JSON objects tagged with `object`, errors as `{ error: { type, code, … } }`,
 * and replay of a stored response for a repeated Idempotency-Key. It models only what the payments
 * adapter calls, with the state those calls touch, so the adapter is tested through the real SDK.
 */

type JsonObject = Record<string, unknown>;

/** Stripe's test PaymentMethod tokens this fake knows, with the behaviour Stripe documents for each. */
export type TestCardToken =
  'pm_card_visa' | 'pm_card_mastercard' | 'pm_card_chargeCustomerFail' | 'pm_card_chargeDeclined' | 'pm_card_chargeDeclinedInsufficientFunds';

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
  path: string;
  params: string;
  response: FakeResponse;
}

export interface FakeStripe {
  /** Base URL to hand the SDK (host, port and protocol of the loopback server). */
  url: string;
  secretKey: string;
  requests: RecordedRequest<Form>[];
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

const apiError = (status: number, error: JsonObject) => new FakeHttpError(status, { error });
const invalidRequest = (message: string, extra: JsonObject = {}) => apiError(400, { type: 'invalid_request_error', message, ...extra });
const noSuch = (kind: string, id: string, status = 404, param?: string) =>
  apiError(status, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, ...(param && { param }) });

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const customers = new Map<string, CustomerState>();
  const paymentMethods = new Map<string, PaymentMethodState>();
  const paymentIntents = new Map<string, PaymentIntentState>();
  const charges = new Map<string, ChargeState>();
  const refunds = new Map<string, RefundState>();
  const setupIntents = new Map<string, SetupIntentState>();
  const idempotencyKeys = new Map<string, StoredResponse>();
  let seq = 0;
  const now = () => Math.floor(Date.now() / 1000);
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
  const http = createHttpFake({
    name: 'Stripe',
    parseBody: 'form',
    auth: { bearer: secretKey },
    errorBody: ({ status, reason, message, method, path }) => ({
      error: {
        type: status >= 500 ? 'api_error' : 'invalid_request_error',
        message:
          reason === 'unauthorized'
            ? 'Invalid API Key provided.'
            : reason === 'no_route' || reason === 'method_not_allowed'
              ? `Unrecognized request URL (${method}: ${path}).`
              : message,
      },
    }),
    responseHeaders: ({ headers }) => ({
      'request-id': id('req'),
      ...(typeof headers['idempotency-key'] === 'string' && { 'idempotency-key': headers['idempotency-key'] }),
    }),
  });

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

  /** Stripe stores the outcome of a POST under its Idempotency-Key and replays it for a retry with the same parameters. */
  function idempotent<Params>(handler: RouteHandler<Form, Params>): RouteHandler<Form, Params> {
    return async (request) => {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string') return handler(request);
      const params = JSON.stringify(request.body);
      const stored = idempotencyKeys.get(key);
      if (stored) {
        if (stored.path !== request.path || stored.params !== params) {
          throw apiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          });
        }
        return { ...stored.response, headers: { ...stored.response.headers, 'idempotent-replayed': 'true' } };
      }
      let response: FakeResponse;
      try {
        response = await handler(request);
      } catch (err) {
        if (!(err instanceof FakeHttpError)) throw err;
        response = { status: err.status, body: err.body, headers: err.headers };
      }
      // Stripe keeps the outcome of every request that began executing, declines included; a copy,
      // so the replay is the first answer even after the objects in it have changed.
      if ((response.status ?? 200) < 500) idempotencyKeys.set(key, { path: request.path, params, response: structuredClone(response) });
      return response;
    };
  }

  http.route(
    'POST /v1/customers',
    idempotent(({ body }) => {
      const customer: CustomerState = {
        id: id('cus'),
        created: now(),
        email: optionalText(body.email),
        name: optionalText(body.name),
        metadata: objectParam(body.metadata),
        defaultPaymentMethod: null,
      };
      customers.set(customer.id, customer);
      return { body: customerJson(customer) };
    }),
  );
  http.route('GET /v1/customers/:id', ({ params }) => ({ body: customerJson(requireCustomer(params.id)) }));
  http.route(
    'POST /v1/customers/:id',
    idempotent(({ params, body }) => {
      const customer = requireCustomer(params.id);
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
      return { body: customerJson(customer) };
    }),
  );
  http.route('GET /v1/payment_methods', ({ query }) => {
    const customerId = text(query.customer, 'customer');
    requireCustomer(customerId, 400, 'customer');
    if (query.type !== undefined && query.type !== 'card') return { body: list('/v1/payment_methods', [], false) };
    const limit = intParam(query.limit, 'limit', 10);
    const newestFirst = [...paymentMethods.values()].filter((pm) => pm.customer === customerId).sort((a, b) => b.seq - a.seq);
    const after = query.starting_after === undefined ? -1 : newestFirst.findIndex((pm) => pm.id === query.starting_after);
    const page = newestFirst.slice(after + 1, after + 1 + limit);
    return { body: list('/v1/payment_methods', page.map(paymentMethodJson), after + 1 + limit < newestFirst.length) };
  });
  http.route('GET /v1/payment_methods/:id', ({ params }) => ({ body: paymentMethodJson(requirePaymentMethod(params.id)) }));
  http.route(
    'POST /v1/payment_methods/:id/attach',
    idempotent(({ params, body }) => {
      const pm = requirePaymentMethod(params.id);
      const customer = requireCustomer(text(body.customer, 'customer'), 400, 'customer');
      if (pm.customer !== null && pm.customer !== customer.id) {
        throw invalidRequest('The payment method you provided has already been attached to a customer.');
      }
      if (pm.card.onSave) throw apiError(402, declineJson(pm.card.onSave));
      pm.customer = customer.id;
      return { body: paymentMethodJson(pm) };
    }),
  );
  http.route(
    'POST /v1/payment_methods/:id/detach',
    idempotent(({ params }) => {
      const pm = requirePaymentMethod(params.id);
      if (pm.customer === null) {
        throw invalidRequest('The payment method you provided is not attached to a customer so detachment is impossible.');
      }
      const owner = customers.get(pm.customer);
      // Stripe clears the customer's default when that card is detached.
      if (owner?.defaultPaymentMethod === pm.id) owner.defaultPaymentMethod = null;
      pm.customer = null;
      return { body: paymentMethodJson(pm) };
    }),
  );
  http.route(
    'POST /v1/payment_intents',
    idempotent(({ body }) => createPaymentIntent(body)),
  );
  http.route('GET /v1/payment_intents/search', ({ query }) => {
    const wanted = parseMetadataQuery(text(query.query, 'query'));
    const limit = intParam(query.limit, 'limit', 10);
    const expand = expansions(query.expand, 'data.');
    const found = [...paymentIntents.values()].filter((pi) => pi.metadata[wanted.key] === wanted.value).sort((a, b) => b.created - a.created);
    return {
      body: {
        object: 'search_result',
        url: '/v1/payment_intents/search',
        data: found.slice(0, limit).map((pi) => paymentIntentJson(pi, expand)),
        has_more: found.length > limit,
        next_page: null,
      },
    };
  });
  http.route(
    'POST /v1/refunds',
    idempotent(({ body }) => {
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
      return { body: refundJson(refund) };
    }),
  );
  http.route(
    'POST /v1/setup_intents',
    idempotent(({ body }) => {
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
      return {
        body: {
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
        },
      };
    }),
  );

  function createPaymentIntent(body: Form): FakeResponse {
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
      throw apiError(
        402,
        declineJson(failure, {
          charge: intent.latestCharge,
          payment_intent: paymentIntentJson(intent, expand),
          payment_method: paymentMethodJson(pm),
        }),
      );
    }
    return { body: paymentIntentJson(intent, expand) };
  }

  function list(url: string, data: JsonObject[], hasMore: boolean): JsonObject {
    return { object: 'list', url, data, has_more: hasMore };
  }

  const { url } = await http.listen();
  return {
    url,
    secretKey,
    requests: http.requests,
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
    close: () => http.close(),
  };
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
  return new Set(entries.filter((entry): entry is string => typeof entry === 'string' && entry.startsWith(prefix)).map((entry) => entry.slice(prefix.length)));
}

/** The one search the adapter makes: `metadata['key']:'value'`, with backslash escapes in the value. */
function parseMetadataQuery(query: string): { key: string; value: string } {
  const match = /^metadata\['([^'\\]+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(query.trim());
  if (!match) throw invalidRequest(`This fake supports only metadata['key']:'value' searches, not: ${query}`, { param: 'query' });
  return { key: match[1]!, value: match[2]!.replace(/\\(.)/g, '$1') };
}

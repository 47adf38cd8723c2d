import Stripe from 'stripe';
import type { DbOrTx } from '../../../db';
import { AppError, invalidField } from '../../platform/errors';
import type { AttachCardInput, CardSetup, ChargeOutcome, ChargeRecord, CreateCustomerInput, OffSessionChargeInput, PaymentsProvider, SavedCard } from './types';

export interface StripePaymentsOptions {
  secretKey: string;
  /** Handed to the browser with a SetupIntent's client secret; card setup is refused without it. */
  publishableKey?: string;
  /** Base URL that replaces api.stripe.com, for a loopback fake in tests. */
  apiUrl?: string;
  maxNetworkRetries?: number;
  timeoutMs?: number;
}

const UNREACHABLE = 'The payment processor could not be reached';

/**
 * The production payments adapter on Stripe's own SDK. Card numbers never reach this server: the
 * browser saves a card through a SetupIntent and Stripe Elements, and only its id comes here.
 */
export class StripePayments implements PaymentsProvider {
  readonly kind = 'stripe' as const;
  // A true private field: a logged or serialised provider must never carry the client, whose
  // authenticator holds the secret key.
  readonly #stripe: Stripe;
  readonly #publishableKey: string | undefined;

  constructor(options: StripePaymentsOptions) {
    this.#stripe = new Stripe(options.secretKey, {
      // Safe because every POST carries an idempotency key (ours, or one the SDK adds itself).
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      timeout: options.timeoutMs ?? 30_000,
      telemetry: false,
      appInfo: { name: 'cloud-panel' },
      ...apiLocation(options.apiUrl),
    });
    this.#publishableKey = options.publishableKey;
  }

  async createCustomer(input: CreateCustomerInput, _tx: DbOrTx): Promise<{ customerId: string }> {
    try {
      const customer = await this.#stripe.customers.create(
        { email: input.email, name: input.name, metadata: { idempotency_key: input.idempotencyKey } },
        { idempotencyKey: input.idempotencyKey },
      );
      return { customerId: customer.id };
    } catch (err) {
      throw upstream(err);
    }
  }

  async attachCard(customerId: string, input: AttachCardInput): Promise<SavedCard> {
    if (input.kind !== 'processor') {
      throw invalidField('cardNumber', 'card details are never sent to this server in Stripe mode; use a SetupIntent');
    }
    try {
      const method = await this.#stripe.paymentMethods.retrieve(input.paymentMethodId);
      if (!method.card) throw invalidField('paymentMethodId', 'only cards can be saved');
      const owner = ownerOf(method);
      if (owner !== null && owner !== customerId) throw paymentMethodNotFound();
      // A SetupIntent confirmed in the browser has already attached the card to the customer.
      if (owner === null) await this.#stripe.paymentMethods.attach(method.id, { customer: customerId });
      const customer = await this.retrieveCustomer(customerId);
      let defaultId = defaultPaymentMethodOf(customer);
      if (defaultId === null) {
        await this.#stripe.customers.update(customerId, { invoice_settings: { default_payment_method: method.id } });
        defaultId = method.id;
      }
      return toSavedCard(method.id, method.card, defaultId);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) throw new AppError('CARD_DECLINED', err.message);
      throw upstream(err, paymentMethodNotFound);
    }
  }

  async listCards(customerId: string): Promise<SavedCard[]> {
    try {
      const [customer, methods] = await Promise.all([
        this.retrieveCustomer(customerId),
        this.#stripe.paymentMethods.list({ customer: customerId, type: 'card', limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      ]);
      const defaultId = defaultPaymentMethodOf(customer);
      // Stripe lists newest first; the panel shows cards in the order they were added, as the ledger does.
      return methods.reverse().flatMap((method) => (method.card ? [toSavedCard(method.id, method.card, defaultId)] : []));
    } catch (err) {
      throw upstream(err, () => new AppError('NOT_FOUND', 'Customer not found'));
    }
  }

  async setDefaultCard(customerId: string, paymentMethodId: string): Promise<void> {
    try {
      await this.assertOwnedCard(customerId, paymentMethodId);
      await this.#stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
    } catch (err) {
      throw upstream(err, paymentMethodNotFound);
    }
  }

  async detachCard(customerId: string, paymentMethodId: string): Promise<void> {
    try {
      await this.assertOwnedCard(customerId, paymentMethodId);
      await this.#stripe.paymentMethods.detach(paymentMethodId);
    } catch (err) {
      throw upstream(err, paymentMethodNotFound);
    }
  }

  async chargeOffSession(input: OffSessionChargeInput): Promise<ChargeOutcome> {
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.#stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency,
          customer: input.customerId,
          payment_method: input.paymentMethodId,
          off_session: true,
          confirm: true,
          description: input.description,
          // Stored on the intent so findCharge can recover it after a crash lost our copy of its id.
          metadata: { idempotency_key: input.idempotencyKey, project_id: input.projectId },
        },
        { idempotencyKey: input.idempotencyKey },
      );
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) {
        return {
          status: 'failed',
          chargeId: err.payment_intent?.id ?? null,
          declineCode: err.decline_code ?? err.code ?? 'card_declined',
          message: err.message,
        };
      }
      throw new AppError('UPSTREAM_ERROR', UNREACHABLE, { cause: err });
    }
    if (intent.status === 'succeeded') return { status: 'succeeded', chargeId: intent.id };
    const failure = intent.last_payment_error;
    return {
      status: 'failed',
      chargeId: intent.id,
      declineCode: failure?.decline_code ?? failure?.code ?? intent.status,
      message: failure?.message ?? 'The payment was not completed.',
    };
  }

  async findCharge(idempotencyKey: string): Promise<ChargeRecord | null> {
    let intents: Stripe.PaymentIntent[];
    try {
      // Search is eventually consistent (Stripe documents up to a minute), which suits its one
      // caller: reconciling purchases that have been pending for longer than that.
      const result = await this.#stripe.paymentIntents.search({
        query: `metadata['idempotency_key']:'${searchLiteral(idempotencyKey)}'`,
        expand: ['data.latest_charge'],
        limit: 10,
      });
      intents = result.data;
    } catch (err) {
      throw upstream(err);
    }
    const intent = intents.find((candidate) => candidate.status === 'succeeded') ?? intents[0];
    if (!intent) return null;
    const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
    return {
      chargeId: intent.id,
      status: intent.status === 'succeeded' ? 'succeeded' : 'failed',
      amount: intent.amount,
      amountRefunded: charge?.amount_refunded ?? 0,
    };
  }

  async refund(input: { chargeId: string; amount: number; idempotencyKey: string }): Promise<void> {
    try {
      await this.#stripe.refunds.create({ payment_intent: input.chargeId, amount: input.amount }, { idempotencyKey: input.idempotencyKey });
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code !== 'resource_missing') {
        throw new AppError('BAD_REQUEST', err.message);
      }
      throw upstream(err, () => new AppError('NOT_FOUND', 'Charge not found'));
    }
  }

  async createCardSetup(customerId: string): Promise<CardSetup> {
    if (!this.#publishableKey) throw new AppError('INTERNAL_ERROR', 'Card setup is not configured on this server');
    try {
      const intent = await this.#stripe.setupIntents.create({ customer: customerId, usage: 'off_session', allowed_payment_method_types: ['card'] });
      if (!intent.client_secret) throw new AppError('UPSTREAM_ERROR', 'The payment processor did not return a card setup');
      return { clientSecret: intent.client_secret, publishableKey: this.#publishableKey };
    } catch (err) {
      throw upstream(err, () => new AppError('NOT_FOUND', 'Customer not found'));
    }
  }

  private async retrieveCustomer(customerId: string): Promise<Stripe.Customer> {
    const customer = await this.#stripe.customers.retrieve(customerId);
    if (customer.deleted) throw new AppError('NOT_FOUND', 'Customer not found');
    return customer;
  }

  /** Another customer's card reads as missing, so ids cannot be probed across customers. */
  private async assertOwnedCard(customerId: string, paymentMethodId: string): Promise<void> {
    const method = await this.#stripe.paymentMethods.retrieve(paymentMethodId);
    if (method.type !== 'card' || ownerOf(method) !== customerId) throw paymentMethodNotFound();
  }
}

function apiLocation(apiUrl: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiUrl) return {};
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}

const paymentMethodNotFound = () => new AppError('NOT_FOUND', 'Payment method not found');

/**
 * Our own errors pass through; Stripe's "no such object" becomes `missing()` where the caller named
 * an object; anything else is the processor failing us. The original error goes along as the cause
 * for the server log: Stripe's errors carry neither the secret key nor card numbers.
 */
function upstream(err: unknown, missing?: () => AppError): AppError {
  if (err instanceof AppError) return err;
  if (missing && err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') return missing();
  return new AppError('UPSTREAM_ERROR', UNREACHABLE, { cause: err });
}

function ownerOf(method: Stripe.PaymentMethod): string | null {
  if (method.customer === null) return null;
  return typeof method.customer === 'string' ? method.customer : method.customer.id;
}

function defaultPaymentMethodOf(customer: Stripe.Customer): string | null {
  const value = customer.invoice_settings.default_payment_method;
  if (value === null) return null;
  return typeof value === 'string' ? value : value.id;
}

function toSavedCard(id: string, card: Stripe.PaymentMethod.Card, defaultId: string | null): SavedCard {
  return {
    id,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.exp_month,
    expYear: card.exp_year,
    country: card.country,
    isDefault: id === defaultId,
  };
}

/** Stripe's search language quotes values in single quotes and escapes with a backslash. */
function searchLiteral(value: string): string {
  return value.replace(/[\\']/g, (c) => `\\${c}`);
}

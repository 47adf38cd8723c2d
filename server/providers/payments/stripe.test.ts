import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../../db';
import { startFakeStripe, type FakeStripe } from '../../../test/fakes/stripeServer';
import { resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getPaymentsProvider } from './index';
import { StripePayments } from './stripe';

let fake: FakeStripe;
let payments: StripePayments;
let counter = 0;

beforeAll(async () => {
  fake = await startFakeStripe();
  payments = new StripePayments({ secretKey: fake.secretKey, publishableKey: 'pk_test_fake', apiUrl: fake.url, maxNetworkRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

function uniqueKey(kind: string): string {
  counter += 1;
  return `${kind}:${Date.now()}-${counter}`;
}

async function newCustomer(): Promise<string> {
  const { customerId } = await payments.createCustomer({ email: 'buyer@example.com', name: 'Buyer', idempotencyKey: uniqueKey('customer') }, await getDb());
  return customerId;
}

/** A customer holding one saved card (the default), as a confirmed SetupIntent leaves it. */
async function customerWithCard(token: Parameters<FakeStripe['createTestPaymentMethod']>[0] = 'pm_card_visa') {
  const customerId = await newCustomer();
  const paymentMethodId = fake.createTestPaymentMethod(token);
  await payments.attachCard(customerId, { kind: 'processor', paymentMethodId });
  return { customerId, paymentMethodId };
}

async function caught(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('StripePayments against a Stripe wire-format fake', () => {
  it('creates a customer with the idempotency key, the secret key as bearer and no secret in metadata', async () => {
    const idempotencyKey = uniqueKey('customer');
    const db = await getDb();
    const first = await payments.createCustomer({ email: 'a@example.com', name: 'A', idempotencyKey }, db);
    const again = await payments.createCustomer({ email: 'a@example.com', name: 'A', idempotencyKey }, db);
    expect(again.customerId).toBe(first.customerId);

    const creates = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers' && r.headers['idempotency-key'] === idempotencyKey);
    expect(creates).toHaveLength(2);
    expect(creates[0]!.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(creates[0]!.body).toMatchObject({ email: 'a@example.com', name: 'A', metadata: { idempotency_key: idempotencyKey } });
    expect(JSON.stringify(creates[0]!.body)).not.toContain(fake.secretKey);
    expect(fake.customer(first.customerId)).toMatchObject({ email: 'a@example.com' });
  });

  it('attaches a card saved by a SetupIntent; the first card becomes the default', async () => {
    const customerId = await newCustomer();
    const first = fake.createTestPaymentMethod('pm_card_visa', { country: 'DE' });
    const second = fake.createTestPaymentMethod('pm_card_mastercard');

    const saved = await payments.attachCard(customerId, { kind: 'processor', paymentMethodId: first });
    expect(saved).toEqual({ id: first, brand: 'visa', last4: '4242', expMonth: 12, expYear: expect.any(Number), country: 'DE', isDefault: true });
    expect(fake.customer(customerId)?.defaultPaymentMethod).toBe(first);

    const other = await payments.attachCard(customerId, { kind: 'processor', paymentMethodId: second });
    expect(other).toMatchObject({ id: second, brand: 'mastercard', last4: '4444', isDefault: false });
  });

  it('accepts a card the SetupIntent already attached to this customer, and refuses another customer’s', async () => {
    const customerId = await newCustomer();
    const already = fake.createTestPaymentMethod('pm_card_visa', { customer: customerId });
    await expect(payments.attachCard(customerId, { kind: 'processor', paymentMethodId: already })).resolves.toMatchObject({ id: already, isDefault: true });
    expect(fake.requests.some((r) => r.path === `/v1/payment_methods/${already}/attach`)).toBe(false);

    const stranger = await newCustomer();
    const err = await caught(payments.attachCard(stranger, { kind: 'processor', paymentMethodId: already }));
    expect(err.code).toBe('NOT_FOUND');
  });

  it('refuses card details in Stripe mode and reports a card declined when saved', async () => {
    const customerId = await newCustomer();
    const raw = await caught(payments.attachCard(customerId, { kind: 'card', cardNumber: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123' }));
    expect(raw.code).toBe('VALIDATION_ERROR');
    expect(raw.message).toBe('cardNumber: card details are never sent to this server in Stripe mode; use a SetupIntent');
    expect(raw.message).not.toContain('4242424242424242');

    const declined = await caught(
      payments.attachCard(customerId, { kind: 'processor', paymentMethodId: fake.createTestPaymentMethod('pm_card_chargeDeclined') }),
    );
    expect(declined.code).toBe('CARD_DECLINED');
    expect(declined.message).toBe('Your card was declined.');

    const missing = await caught(payments.attachCard(customerId, { kind: 'processor', paymentMethodId: 'pm_doesnotexist' }));
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('lists cards oldest first with the default marked, and moves the default', async () => {
    const { customerId, paymentMethodId: first } = await customerWithCard();
    const second = fake.createTestPaymentMethod('pm_card_mastercard');
    await payments.attachCard(customerId, { kind: 'processor', paymentMethodId: second });

    expect((await payments.listCards(customerId)).map((c) => [c.id, c.isDefault])).toEqual([
      [first, true],
      [second, false],
    ]);
    await payments.setDefaultCard(customerId, second);
    expect((await payments.listCards(customerId)).map((c) => [c.id, c.isDefault])).toEqual([
      [first, false],
      [second, true],
    ]);
    expect(fake.requests.some((r) => r.path === '/v1/payment_methods' && r.query.type === 'card' && r.query.customer === customerId)).toBe(true);

    const stranger = await newCustomer();
    expect((await caught(payments.setDefaultCard(stranger, first))).code).toBe('NOT_FOUND');
  });

  it('detaches a card, and answers NOT_FOUND for an unknown or foreign one', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    await payments.detachCard(customerId, paymentMethodId);
    expect(await payments.listCards(customerId)).toEqual([]);
    expect(fake.customer(customerId)?.defaultPaymentMethod).toBeNull();

    expect((await caught(payments.detachCard(customerId, paymentMethodId))).code).toBe('NOT_FOUND');
    expect((await caught(payments.detachCard(customerId, 'pm_unknown'))).code).toBe('NOT_FOUND');
    const other = await customerWithCard();
    expect((await caught(payments.detachCard(customerId, other.paymentMethodId))).code).toBe('NOT_FOUND');
  });

  it('charges a saved card off-session with the idempotency key', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    const idempotencyKey = uniqueKey('charge');
    const outcome = await payments.chargeOffSession({
      customerId,
      paymentMethodId,
      amount: 1234,
      currency: 'usd',
      description: 'Server s-1',
      idempotencyKey,
      projectId: 'prj_test',
    });
    expect(outcome).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^pi_/) });

    const request = fake.requests.find((r) => r.path === '/v1/payment_intents' && r.headers['idempotency-key'] === idempotencyKey);
    expect(request?.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(request?.body).toMatchObject({
      amount: '1234',
      currency: 'usd',
      customer: customerId,
      payment_method: paymentMethodId,
      off_session: 'true',
      confirm: 'true',
      description: 'Server s-1',
      metadata: { idempotency_key: idempotencyKey, project_id: 'prj_test' },
    });
  });

  it('turns a decline into a failed outcome carrying the decline code', async () => {
    const { customerId, paymentMethodId } = await customerWithCard('pm_card_chargeCustomerFail');
    const outcome = await payments.chargeOffSession({
      customerId,
      paymentMethodId,
      amount: 500,
      currency: 'usd',
      description: 'Redis r-1',
      idempotencyKey: uniqueKey('charge'),
      projectId: 'prj_test',
    });
    expect(outcome).toEqual({ status: 'failed', chargeId: expect.stringMatching(/^pi_/), declineCode: 'generic_decline', message: 'Your card was declined.' });
  });

  it('charges once when a charge is retried with the same idempotency key', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    const input = {
      customerId,
      paymentMethodId,
      amount: 900,
      currency: 'usd',
      description: 'Volume v-1',
      idempotencyKey: uniqueKey('charge'),
      projectId: 'prj_test',
    };
    const first = await payments.chargeOffSession(input);
    const retry = await payments.chargeOffSession(input);
    expect(retry).toEqual(first);
    expect(fake.paymentIntents().filter((pi) => pi.metadata.idempotency_key === input.idempotencyKey)).toHaveLength(1);

    const declined = await customerWithCard('pm_card_chargeCustomerFail');
    const declineInput = { ...input, ...declined, idempotencyKey: uniqueKey('charge') };
    expect(await payments.chargeOffSession(declineInput)).toEqual(await payments.chargeOffSession(declineInput));
    expect(fake.paymentIntents().filter((pi) => pi.metadata.idempotency_key === declineInput.idempotencyKey)).toHaveLength(1);
  });

  it('finds a charge by its idempotency key, and null when there is none', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    const idempotencyKey = uniqueKey('charge');
    const outcome = await payments.chargeOffSession({
      customerId,
      paymentMethodId,
      amount: 700,
      currency: 'usd',
      description: 'x',
      idempotencyKey,
      projectId: 'prj_test',
    });
    expect(outcome.status).toBe('succeeded');

    expect(await payments.findCharge(idempotencyKey)).toEqual({ chargeId: outcome.chargeId, status: 'succeeded', amount: 700, amountRefunded: 0 });
    expect(await payments.findCharge(uniqueKey('never-charged'))).toBeNull();
    const search = fake.requests.find((r) => r.path === '/v1/payment_intents/search' && r.query.query === `metadata['idempotency_key']:'${idempotencyKey}'`);
    expect(search?.query.expand).toEqual(['data.latest_charge']);

    const declined = await customerWithCard('pm_card_chargeCustomerFail');
    const declineKey = uniqueKey('charge');
    await payments.chargeOffSession({ ...declined, amount: 300, currency: 'usd', description: 'y', idempotencyKey: declineKey, projectId: 'prj_test' });
    expect(await payments.findCharge(declineKey)).toMatchObject({ status: 'failed', amount: 300, amountRefunded: 0 });
  });

  it('refunds with the idempotency key, once per key, and findCharge shows the refunded amount', async () => {
    const { customerId, paymentMethodId } = await customerWithCard();
    const chargeKey = uniqueKey('charge');
    const outcome = await payments.chargeOffSession({
      customerId,
      paymentMethodId,
      amount: 1000,
      currency: 'usd',
      description: 'z',
      idempotencyKey: chargeKey,
      projectId: 'prj_test',
    });
    if (outcome.status !== 'succeeded') throw new Error('expected a successful charge');

    const refundKey = uniqueKey('refund');
    await payments.refund({ chargeId: outcome.chargeId, amount: 400, idempotencyKey: refundKey });
    await payments.refund({ chargeId: outcome.chargeId, amount: 400, idempotencyKey: refundKey });
    expect(fake.refunds().filter((r) => r.paymentIntent === outcome.chargeId)).toHaveLength(1);
    const request = fake.requests.find((r) => r.path === '/v1/refunds' && r.headers['idempotency-key'] === refundKey);
    expect(request?.body).toEqual({ payment_intent: outcome.chargeId, amount: '400' });
    expect(await payments.findCharge(chargeKey)).toMatchObject({ amount: 1000, amountRefunded: 400 });

    const tooMuch = await caught(payments.refund({ chargeId: outcome.chargeId, amount: 601, idempotencyKey: uniqueKey('refund') }));
    expect(tooMuch.code).toBe('BAD_REQUEST');
    expect((await caught(payments.refund({ chargeId: 'pi_unknown', amount: 1, idempotencyKey: uniqueKey('refund') }))).code).toBe('NOT_FOUND');
  });

  it('creates an off-session card SetupIntent and hands back the publishable key', async () => {
    const customerId = await newCustomer();
    const setup = await payments.createCardSetup(customerId);
    const intent = fake.setupIntents().find((s) => s.customer === customerId);
    expect(setup).toEqual({ clientSecret: intent?.clientSecret, publishableKey: 'pk_test_fake' });
    expect(intent).toMatchObject({ usage: 'off_session', paymentMethodTypes: ['card'] });
  });

  it('answers UPSTREAM_ERROR without the secret key when the processor cannot be reached', async () => {
    const port = await closedPort();
    const unreachable = new StripePayments({ secretKey: fake.secretKey, apiUrl: `http://127.0.0.1:${port}`, maxNetworkRetries: 0 });

    const charge = await caught(
      unreachable.chargeOffSession({
        customerId: 'cus_x',
        paymentMethodId: 'pm_x',
        amount: 100,
        currency: 'usd',
        description: 'x',
        idempotencyKey: uniqueKey('charge'),
        projectId: 'prj_test',
      }),
    );
    expect(charge.code).toBe('UPSTREAM_ERROR');
    expect(charge.message).toBe('The payment processor could not be reached');
    expect(charge.cause).toBeDefined();
    expect(JSON.stringify({ message: charge.message, cause: String(charge.cause) })).not.toContain(fake.secretKey);

    expect((await caught(unreachable.createCustomer({ email: 'x@example.com', name: 'X', idempotencyKey: uniqueKey('customer') }, await getDb()))).code).toBe(
      'UPSTREAM_ERROR',
    );
    expect((await caught(unreachable.listCards('cus_x'))).code).toBe('UPSTREAM_ERROR');
    expect((await caught(unreachable.findCharge('charge:x'))).code).toBe('UPSTREAM_ERROR');
  });

  it('does not expose the secret key through the provider object', () => {
    expect(JSON.stringify(payments)).not.toContain(fake.secretKey);
    expect(Object.values(payments).map(String).join(' ')).not.toContain(fake.secretKey);
  });
});

describe('getPaymentsProvider', () => {
  it('builds the Stripe adapter from the configuration, talking to STRIPE_API_URL', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      PAYMENTS_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: 'whsec_factory_test',
      STRIPE_API_URL: fake.url,
    });
    resetConfigForTests();
    try {
      const provider = getPaymentsProvider();
      expect(provider.kind).toBe('stripe');
      const idempotencyKey = uniqueKey('customer');
      const { customerId } = await provider.createCustomer({ email: 'f@example.com', name: 'F', idempotencyKey }, await getDb());
      expect(fake.customer(customerId)).toMatchObject({ email: 'f@example.com' });
    } finally {
      process.env = saved;
      resetConfigForTests();
    }
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

import { eq, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '../../../app/api/webhooks/payments/route';
import { getDb } from '../../../db';
import { events } from '../../../db/schema';
import { createProject, createUser } from '../../../test/helpers';
import { resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { restApi } from '../../app';
import { recordPaymentEvent } from './paymentEvents';
import { PAYMENT_WEBHOOK_PATH } from './paymentWebhook';

const WEBHOOK_SECRET = 'whsec_route_test_secret';
const STRIPE_ENV = {
  PAYMENTS_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_route_test_key',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
} as const;

let counter = 0;
function eventId(): string {
  counter += 1;
  return `evt_test_${Date.now()}_${counter}`;
}

function invoicePaid(id: string, projectId?: string) {
  return {
    id,
    object: 'event',
    type: 'invoice.paid',
    data: {
      object: {
        id: `in_${id}`,
        object: 'invoice',
        amount_paid: 2500,
        currency: 'usd',
        customer_email: 'payer@example.com',
        metadata: projectId ? { project_id: projectId } : {},
      },
    },
  };
}

function delivery(body: string, header?: string): Request {
  return new Request('http://localhost:3000/api/webhooks/payments', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': header ?? Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    },
    body,
  });
}

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() };
}

function useEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
}

async function eventsOfObject(processorObjectId: string) {
  const db = await getDb();
  return db
    .select()
    .from(events)
    .where(eq(sql`${events.payload}->>'processorObjectId'`, processorObjectId));
}

let projectId: string;

beforeAll(async () => {
  // The account and project are made under the embedded ledger; Stripe mode is switched on after.
  const user = await createUser();
  ({ projectId } = await createProject(user));
  useEnv(STRIPE_ENV);
});

afterAll(() => {
  useEnv({ PAYMENTS_PROVIDER: undefined, STRIPE_SECRET_KEY: undefined, STRIPE_WEBHOOK_SECRET: undefined });
});

describe('POST /api/webhooks/payments', () => {
  it('is not there unless the payments provider is Stripe', async () => {
    useEnv({ PAYMENTS_PROVIDER: 'local' });
    try {
      const body = JSON.stringify(invoicePaid(eventId()));
      expect(await answer(await POST(delivery(body)))).toMatchObject({ status: 404, body: { success: false, error: { code: 'NOT_FOUND' } } });
    } finally {
      useEnv(STRIPE_ENV);
    }
  });

  it('refuses bad signatures with 400 BAD_REQUEST, before looking at the body', async () => {
    const body = JSON.stringify(invoicePaid(eventId()));
    const wrongSecret = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_not_ours' });
    const stale = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 600 });
    const tampered = body.replace('2500', '1');
    for (const res of [
      await POST(delivery(body, wrongSecret)),
      await POST(delivery(body, stale)),
      await POST(delivery(body, 'nonsense')),
      await POST(delivery(tampered, Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }))),
      await POST(delivery('not json at all', 'nonsense')),
    ]) {
      const { status, body: envelope } = await answer(res);
      expect(status).toBe(400);
      expect(envelope).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', message: expect.any(String) } });
      expect(JSON.stringify(envelope)).not.toContain(WEBHOOK_SECRET);
    }
  });

  it('refuses a signed body that is not an event', async () => {
    for (const body of ['not json', JSON.stringify({ hello: 'world' }), JSON.stringify({ ...invoicePaid(eventId()), data: { object: { id: 'in_1' } } })]) {
      expect(await answer(await POST(delivery(body)))).toMatchObject({ status: 400, body: { success: false, error: { code: 'BAD_REQUEST' } } });
    }
  });

  it('acknowledges event types it does not record', async () => {
    const body = JSON.stringify({ id: eventId(), object: 'event', type: 'customer.updated', data: { object: { id: 'cus_1', object: 'customer' } } });
    expect(await answer(await POST(delivery(body)))).toEqual({ status: 200, body: { success: true, data: { received: true } } });
  });

  it('records a signed delivery once, however often it is delivered', async () => {
    const event = invoicePaid(eventId(), projectId);
    const body = JSON.stringify(event);
    expect(await answer(await POST(delivery(body)))).toEqual({ status: 200, body: { success: true, data: { received: true } } });
    expect(await answer(await POST(delivery(body)))).toEqual({ status: 200, body: { success: true, data: { received: true } } });
    const recorded = await eventsOfObject(event.data.object.id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ projectId, type: 'invoice.paid', payload: { processorObjectId: event.data.object.id, amount: 2500, currency: 'usd' } });
  });
});

describe('POST /v1/webhooks/payments', () => {
  const deliverV1 = async (body: string, header?: string) => {
    const old = delivery(body, header);
    return answer(await restApi.handleFetch(new Request(`http://localhost:3000/v1${PAYMENT_WEBHOOK_PATH}`, { method: 'POST', headers: old.headers, body })));
  };

  it('is the same route: signed deliveries recorded once across both addresses, bad signatures refused', async () => {
    const event = invoicePaid(eventId(), projectId);
    const body = JSON.stringify(event);
    expect(await deliverV1(body)).toEqual({ status: 200, body: { success: true, data: { received: true } } });
    expect(await answer(await POST(delivery(body)))).toEqual({ status: 200, body: { success: true, data: { received: true } } });
    expect(await eventsOfObject(event.data.object.id)).toHaveLength(1);
    expect(await deliverV1(body, 'nonsense')).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
  });

  it('answers 405 with Allow to other methods', async () => {
    const res = await restApi.handleFetch(new Request(`http://localhost:3000/v1${PAYMENT_WEBHOOK_PATH}`));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('recordPaymentEvent', () => {
  it('ignores types it does not record, and refuses what is not an event', async () => {
    expect(await recordPaymentEvent({ id: eventId(), type: 'payment_intent.created', data: { object: { id: 'pi_1' } } })).toEqual({ status: 'ignored' });
    await expect(recordPaymentEvent({ type: 'invoice.paid' })).rejects.toBeInstanceOf(AppError);
    await expect(recordPaymentEvent({ id: eventId(), type: 'charge.refunded', data: { object: { id: 'ch_1', currency: 'usd' } } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  describe('with the processed_payment_events table', () => {
    it('records invoice.paid with the project from metadata and only the id, amount and currency', async () => {
      const event = invoicePaid(eventId(), projectId);
      const result = await recordPaymentEvent(event);
      expect(result).toEqual({ status: 'recorded', eventId: expect.stringMatching(/^evt_/) });
      const [row] = await eventsOfObject(event.data.object.id);
      expect(row).toMatchObject({ projectId, type: 'invoice.paid' });
      expect(row?.payload).toEqual({ processorObjectId: event.data.object.id, amount: 2500, currency: 'usd' });
    });

    it('maps payment_intent.payment_failed to payment.failed, without a project when metadata names none', async () => {
      const id = eventId();
      const piId = `pi_${id}`;
      await recordPaymentEvent({
        id,
        type: 'payment_intent.payment_failed',
        data: { object: { id: piId, object: 'payment_intent', amount: 900, currency: 'eur', metadata: {} } },
      });
      expect(await eventsOfObject(piId)).toMatchObject([
        { projectId: null, type: 'payment.failed', payload: { processorObjectId: piId, amount: 900, currency: 'eur' } },
      ]);
    });

    it('records the processor charge.refunded as order.refunded with the refunded amount, and no project for an unknown project id', async () => {
      const id = eventId();
      const chId = `ch_${id}`;
      await recordPaymentEvent({
        id,
        type: 'charge.refunded',
        data: { object: { id: chId, object: 'charge', amount: 1000, amount_refunded: 400, currency: 'usd', metadata: { project_id: 'prj_gone' } } },
      });
      expect(await eventsOfObject(chId)).toMatchObject([
        { projectId: null, type: 'order.refunded', payload: { processorObjectId: chId, amount: 400, currency: 'usd' } },
      ]);
    });

    it('records an event once per processor event id', async () => {
      const event = invoicePaid(eventId(), projectId);
      expect((await recordPaymentEvent(event)).status).toBe('recorded');
      expect(await recordPaymentEvent(event)).toEqual({ status: 'duplicate' });
      await Promise.all([recordPaymentEvent(event), recordPaymentEvent(event)]);
      expect(await eventsOfObject(event.data.object.id)).toHaveLength(1);
    });
  });
});

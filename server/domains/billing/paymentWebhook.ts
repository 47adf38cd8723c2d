import { getConfig } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { MAX_BODY_BYTES } from '../../platform/rest/handler';
import { envelope, type RawRoute } from '../../platform/rest/rawRoutes';
import { verifyWebhookSignature, type SignatureCheck } from '../../providers/payments/webhookSignature';
import { recordPaymentEvent } from './paymentEvents';

/** Where the processor delivers events: `/v1` + this. `/api/webhooks/payments` forwards here too. */
export const PAYMENT_WEBHOOK_PATH = '/webhooks/payments';

const REJECTIONS: Record<Extract<SignatureCheck, { ok: false }>['reason'], string> = {
  malformed: 'Missing or malformed Stripe-Signature header',
  mismatch: 'Webhook signature does not match the payload',
  stale: 'Webhook signature timestamp is too old or too far in the future',
};

/**
 * The payment processor's webhook. The signature is checked over the body exactly as received,
 * before anything parses it; only then is the event recorded. It exists only in Stripe mode.
 */
export const paymentWebhookRoute: RawRoute = {
  method: 'POST',
  path: PAYMENT_WEBHOOK_PATH,
  access: { kind: 'public' },
  // The processor sends from a few addresses shared by every event of every project (in bursts at the
  // monthly close): the anonymous per-address budget would throttle it alongside people's sign-ups.
  budget: 'inboundWebhook',
  async handle(request) {
    const config = getConfig();
    if (config.PAYMENTS_PROVIDER !== 'stripe' || !config.STRIPE_WEBHOOK_SECRET) {
      throw new AppError('NOT_FOUND', `No endpoint at POST /v1${PAYMENT_WEBHOOK_PATH}`);
    }
    const payload = (await request.body.read(MAX_BODY_BYTES)).toString('utf8');
    const check = verifyWebhookSignature({ payload, header: request.headers['stripe-signature'] ?? null, secret: config.STRIPE_WEBHOOK_SECRET });
    if (!check.ok) {
      request.ctx.log.warn({ reason: check.reason }, 'payment webhook refused: bad signature');
      throw new AppError('BAD_REQUEST', REJECTIONS[check.reason]);
    }
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      throw new AppError('BAD_REQUEST', 'Webhook body is not valid JSON');
    }
    await recordPaymentEvent(event);
    return envelope({ received: true });
  },
};

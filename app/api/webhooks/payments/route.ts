import { getConfig } from '@/server/platform/config';
import { AppError, toAppError } from '@/server/platform/errors';
import { getLogger } from '@/server/platform/logger';
import { verifyWebhookSignature, type SignatureCheck } from '@/server/providers/payments/webhookSignature';
import { errorResponse, MAX_BODY_BYTES } from '@/server/platform/rest/handler';
import { recordPaymentEvent } from '@/server/domains/billing/paymentEvents';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const REJECTIONS: Record<Extract<SignatureCheck, { ok: false }>['reason'], string> = {
  malformed: 'Missing or malformed Stripe-Signature header',
  mismatch: 'Webhook signature does not match the payload',
  stale: 'Webhook signature timestamp is too old or too far in the future',
};

/**
 * The payment processor's webhook. The signature is checked over the body exactly as received,
 * before anything parses it; only then is the event recorded.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const config = getConfig();
    if (config.PAYMENTS_PROVIDER !== 'stripe' || !config.STRIPE_WEBHOOK_SECRET) {
      throw new AppError('NOT_FOUND', 'No endpoint at POST /api/webhooks/payments');
    }
    if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    const payload = await req.text();
    if (Buffer.byteLength(payload) > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    const check = verifyWebhookSignature({ payload, header: req.headers.get('stripe-signature'), secret: config.STRIPE_WEBHOOK_SECRET });
    if (!check.ok) {
      getLogger().warn({ reason: check.reason }, 'payment webhook refused: bad signature');
      throw new AppError('BAD_REQUEST', REJECTIONS[check.reason]);
    }
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      throw new AppError('BAD_REQUEST', 'Webhook body is not valid JSON');
    }
    await recordPaymentEvent(event);
    return Response.json({ success: true, data: { received: true } });
  } catch (err) {
    const app = toAppError(err);
    if (app.status >= 500) getLogger().error({ err: app.cause ?? err, code: app.code }, 'payment webhook failed');
    const out = errorResponse(app, {});
    return new Response(out.body, { status: out.status, headers: out.headers });
  }
}

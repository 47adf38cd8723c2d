import { restApi } from '@/server/app';
import { PAYMENT_WEBHOOK_PATH } from '@/server/domains/billing/paymentWebhook';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The address processors were first given; it answers exactly as `POST /v1/webhooks/payments`,
 * which is where the route lives (a raw route of the billing domain).
 */
export async function POST(req: Request): Promise<Response> {
  const url = new URL(req.url);
  url.pathname = `/v1${PAYMENT_WEBHOOK_PATH}`;
  return restApi.handleFetch(new Request(url, { method: 'POST', headers: req.headers, body: await req.arrayBuffer() }));
}

import { createHttpFake, type Fault, type HttpFake } from './httpFake';

/** What a receiver got: one POST, with the Standard Webhooks headers and the raw body as sent. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in order of arrival (retries included). */
  received: ReceivedWebhook[];
  /** How many requests came with each `webhook-id`. */
  countsById(): Map<string, number>;
  /** Answers the next matching requests with a status (or late): the scaffold's faults. */
  fail(fault: Fault<Buffer>): void;
  fake: HttpFake<Buffer>;
  close(): Promise<void>;
}

/**
 * A customer's webhook endpoint on loopback: answers `POST /hook` with 204 (or what a fault says)
 * and keeps every delivery's headers and exact body, so tests can verify signatures.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const fake = createHttpFake({ name: 'webhook receiver', parseBody: 'raw' });
  const received: ReceivedWebhook[] = [];
  fake.route('POST /hook', (request) => {
    received.push({
      id: String(request.headers['webhook-id'] ?? ''),
      timestamp: String(request.headers['webhook-timestamp'] ?? ''),
      signature: String(request.headers['webhook-signature'] ?? ''),
      body: request.rawBody.toString('utf8'),
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
    });
    return { status: 204 };
  });
  const { url } = await fake.listen();
  return {
    url: `${url}/hook`,
    received,
    countsById() {
      const counts = new Map<string, number>();
      for (const entry of received) counts.set(entry.id, (counts.get(entry.id) ?? 0) + 1);
      return counts;
    },
    fail: (fault) => fake.fail({ route: 'POST /hook', ...fault }),
    fake,
    close: () => fake.close(),
  };
}

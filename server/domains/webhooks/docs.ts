import { AUTO_PAUSE_AFTER_FAILED_DELIVERIES, MAX_ATTEMPTS } from './delivery';
import { WEBHOOK_ENDPOINTS_PER_PROJECT } from './schema';

const DELIVERY = `Each delivery is an HTTP POST of JSON \`{ type, timestamp, data }\` (\`data\` is the event's payload plus \`projectId\`) signed as Standard Webhooks specifies: headers \`webhook-id\` (the same on every attempt of a delivery: drop repeats by it), \`webhook-timestamp\` (Unix seconds of the attempt) and \`webhook-signature\` (\`v1,\` and the base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<body>\` keyed with the base64-decoded part of the secret after \`whsec_\`; during the 24 hours after a rotation a second signature, made with the previous secret, follows after a space). Any 2xx answer within 15 seconds is a success; anything else (3xx: redirects are not followed, 4xx, 5xx, a timeout, a connection error) is retried ${MAX_ATTEMPTS - 1} times, after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each ±10%), then the delivery has failed for good. After ${AUTO_PAUSE_AFTER_FAILED_DELIVERIES} deliveries in a row fail for good the endpoint pauses itself (event \`webhook.endpoint_paused\`, reason \`failures\`); a 410 Gone answer disables it at once (reason \`gone\`). While an endpoint is paused or disabled its deliveries are held; resuming it sends them, in the order of their events.`;

const URL_RULE =
  'The URL must be https:// and its host must resolve only to public addresses: loopback, private (RFC 1918, CGNAT, ULA), link-local, multicast, unspecified and cloud metadata addresses are refused with 422 `URL_NOT_ALLOWED`, and checked again at every delivery, which connects only to the address checked.';

export const EVENT_TYPES =
  'The event types webhook endpoints can subscribe to, each with what it means and an example of its `data` (every delivery adds `projectId`). The same for every customer: any valid credential reads it, an API key whatever its scopes.';

export const LIST_ENDPOINTS = 'Newest first. Signing secrets are never shown again after creation or rotation.';

export const GET_ENDPOINT = 'One endpoint, without its signing secret.';

export const CREATE_ENDPOINT = `Subscribes a URL to event types (\`["*"]\`: every type, including future ones; unknown types are 422). Returns the endpoint with its signing secret, \`whsec_…\`, this once. ${URL_RULE} A project holds at most ${WEBHOOK_ENDPOINTS_PER_PROJECT} endpoints (409 \`WEBHOOK_ENDPOINT_LIMIT_REACHED\`). Owners and admins only: endpoints receive the project's data. ${DELIVERY}`;

export const UPDATE_ENDPOINT = `Changes the URL, the event types or the description; deliveries already queued go to the new URL. ${URL_RULE}`;

export const DELETE_ENDPOINT = 'Deletes the endpoint and its delivery history; nothing more is sent to it, attempts under way included.';

export const ROTATE_SECRET =
  'Replaces the signing secret and returns the new one this once. For 24 hours the previous secret keeps signing too (two signatures in `webhook-signature`), so the receiver can switch without losing a delivery; rotating again within them drops the oldest.';

export const PAUSE_ENDPOINT =
  'Stops deliveries: those waiting and those arriving are held (not sent) until the endpoint is resumed. Pausing a paused or disabled endpoint changes nothing.';

export const RESUME_ENDPOINT =
  'Sends again: held deliveries are due at once, in the order of their events, continuing their retry schedules; the failure count starts over. Records `webhook.endpoint_resumed`. Resuming an active endpoint changes nothing.';

export const LIST_DELIVERIES =
  'Newest first, with every attempt (time, response status and the first 1 KB of the body, or the error, and the duration), paginated by an opaque `cursor`.';

export const REDELIVER =
  'Sends the delivery again with the same `webhook-id` (so the receiver can tell it is a repeat), at once, with a fresh retry schedule; one still pending is simply made due now. 409 while the endpoint is paused or disabled.';

export const SEND_TEST =
  'Queues a `webhook.test` event for this endpoint only and returns its delivery; watch it in the deliveries. 409 while the endpoint is paused or disabled.';

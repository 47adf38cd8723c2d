import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's default: a delivery older or newer than this is refused, so a captured one cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: 'malformed' | 'mismatch' | 'stale' };

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

/**
 * Verifies a `Stripe-Signature` header (`t=<unix seconds>,v1=<hex>[,v1=<hex>…]`) over the raw
 * body: v1 is HMAC-SHA256 of `${t}.${body}` under the endpoint's signing secret. Several v1 values
 * appear while a secret is being rolled; any one matching is enough. Other schemes are ignored.
 */
export function verifyWebhookSignature(input: {
  payload: string;
  header: string | null | undefined;
  secret: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): SignatureCheck {
  const parsed = parseHeader(input.header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const expected = createHmac('sha256', input.secret).update(`${parsed.timestamp}.${input.payload}`, 'utf8').digest();
  let matched = false;
  for (const candidate of parsed.signatures) {
    // Every candidate is compared, so the time taken does not tell which position matched.
    matched = (candidate.length === expected.length && timingSafeEqual(candidate, expected)) || matched;
  }
  if (!matched) return { ok: false, reason: 'mismatch' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return { ok: false, reason: 'stale' };
  return { ok: true, timestamp: parsed.timestamp };
}

function parseHeader(header: string | null | undefined): ParsedHeader | null {
  if (!header) return null;
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from './webhookSignature';

const secret = 'whsec_test_signing_secret';
const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', data: { object: { id: 'in_1', amount_paid: 1200 } } });
const now = 1_760_000_000;

/** Headers are made by Stripe's own SDK, so the check is held to the processor's format, not to ours. */
function stripeHeader(options: { payload?: string; secret?: string; timestamp?: number } = {}): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: options.payload ?? payload,
    secret: options.secret ?? secret,
    timestamp: options.timestamp ?? now,
  });
}

function v1(body: string, timestamp: number, key = secret): string {
  return createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex');
}

describe('verifyWebhookSignature', () => {
  it('accepts a delivery signed with the endpoint secret', () => {
    expect(verifyWebhookSignature({ payload, header: stripeHeader(), secret, nowSeconds: now })).toEqual({ ok: true, timestamp: now });
    expect(verifyWebhookSignature({ payload, header: stripeHeader(), secret, nowSeconds: now + 300 }).ok).toBe(true);
  });

  it('refuses a tampered body', () => {
    const tampered = payload.replace('1200', '1');
    expect(verifyWebhookSignature({ payload: tampered, header: stripeHeader(), secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhookSignature({ payload: `${payload} `, header: stripeHeader(), secret, nowSeconds: now }).ok).toBe(false);
  });

  it('refuses a timestamp more than five minutes away, in either direction', () => {
    expect(verifyWebhookSignature({ payload, header: stripeHeader(), secret, nowSeconds: now + 301 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhookSignature({ payload, header: stripeHeader(), secret, nowSeconds: now - 301 })).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a signature made with another secret', () => {
    const header = stripeHeader({ secret: 'whsec_someone_else' });
    expect(verifyWebhookSignature({ payload, header, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a timestamp changed after signing', () => {
    const header = stripeHeader().replace(`t=${now}`, `t=${now + 1}`);
    expect(verifyWebhookSignature({ payload, header, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses malformed headers', () => {
    const good = v1(payload, now);
    for (const header of [
      undefined,
      null,
      '',
      'garbage',
      `v1=${good}`,
      `t=${now}`,
      `t=${now},v0=${good}`,
      `t=abc,v1=${good}`,
      `t=${now},t=${now},v1=${good}`,
      `t=${now},v1=${good.slice(0, 63)}`,
      `t=${now},v1=${good.replace(/[0-9a-f]$/, 'z')}`,
      `t=${now},${good}`,
      `=${now},v1=${good}`,
    ]) {
      expect(verifyWebhookSignature({ payload, header, secret, nowSeconds: now }), String(header)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts any one of several v1 signatures, as sent while a secret is rolled', () => {
    const header = `t=${now},v1=${v1(payload, now, 'whsec_old_secret')},v1=${v1(payload, now)},v0=${'0'.repeat(64)}`;
    expect(verifyWebhookSignature({ payload, header, secret, nowSeconds: now }).ok).toBe(true);
    const reversed = `t=${now},v1=${v1(payload, now)},v1=${v1(payload, now, 'whsec_old_secret')}`;
    expect(verifyWebhookSignature({ payload, header: reversed, secret, nowSeconds: now }).ok).toBe(true);
    const noneMatch = `t=${now},v1=${v1(payload, now, 'whsec_a')},v1=${v1(payload, now, 'whsec_b')}`;
    expect(verifyWebhookSignature({ payload, header: noneMatch, secret, nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('checks a body with multi-byte characters byte for byte', () => {
    const unicode = JSON.stringify({ id: 'evt_2', description: 'Prüfung — 日本' });
    expect(verifyWebhookSignature({ payload: unicode, header: stripeHeader({ payload: unicode }), secret, nowSeconds: now }).ok).toBe(true);
  });
});

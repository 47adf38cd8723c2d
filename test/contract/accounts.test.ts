import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { getPaymentsProvider } from '../../server/providers/payments';
import { verifyCredentials } from '../../server/domains/accounts/service';
import { api, createUser, expectError, sessionCookie } from '../helpers';
import { queryRows } from '../db';
import type { Account } from '../../server/domains/accounts/schema';

const strongPassword = 'correct horse battery staple';

async function latestMailTo(email: string) {
  const [row] = await queryRows<{ subject: string; text: string }>(
    sql`select subject, text from mail_messages where "to" = ${email} order by created_at desc limit 1`,
  );
  return row;
}

describe('POST /v1/accounts', () => {
  it('creates the user with an argon2id hash and a linked payment customer (201)', async () => {
    const res = await api<{ user: Account }>('POST', '/v1/accounts', {
      body: { name: 'Ada Lovelace', email: 'Ada@Example.com', password: strongPassword },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, data: { user: { id: expect.any(String), email: 'ada@example.com', name: 'Ada Lovelace' } } });
    const [row] = await queryRows<{ password_hash: string; payment_customer_id: string | null; customer_email: string | null }>(sql`
      select u.password_hash, u.payment_customer_id, c.email as customer_email
      from users u left join ledger_customers c on c.id = u.payment_customer_id where u.id = ${res.data.user.id}`);
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(row?.payment_customer_id).toMatch(/^cus_/);
    expect(row?.customer_email).toBe('ada@example.com');
  });

  it('refuses a duplicate email, whatever its case, with 409 CONFLICT', async () => {
    await api('POST', '/v1/accounts', { body: { name: 'A', email: 'dup@example.com', password: strongPassword } });
    expectError(await api('POST', '/v1/accounts', { body: { name: 'B', email: 'DUP@example.com', password: strongPassword } }), 409, 'CONFLICT');
  });

  it('allows 5 sign-up attempts per email address per hour, whatever its case, then 429 with Retry-After', async () => {
    const attempt = (email: string) => api('POST', '/v1/accounts', { body: { name: 'Often', email, password: strongPassword } });
    expect((await attempt('often@example.com')).status).toBe(201);
    for (let i = 0; i < 4; i += 1) expectError(await attempt('Often@Example.com'), 409, 'CONFLICT');
    const limited = await attempt('often@example.com');
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('ratelimit-policy')).toContain('"sign-up";q=5;w=3600');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt('seldom@example.com')).status).toBe(201);
  });

  it.each([
    [{ email: 'x@example.com', password: strongPassword }, 'name'],
    [{ name: 'A', password: strongPassword }, 'email'],
    [{ name: 'A', email: 'not-an-email', password: strongPassword }, 'email'],
    [{ name: 'A', email: 'x@example.com', password: 'short' }, 'password'],
    [{ name: 'x'.repeat(101), email: 'x@example.com', password: strongPassword }, 'name'],
  ])('answers 422 VALIDATION_ERROR naming the field for %j', async (body, field) => {
    const res = await api('POST', '/v1/accounts', { body });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toContain(field);
  });

  it('rolls everything back when the payment customer cannot be created, without leaking the cause', async () => {
    const spy = vi.spyOn(getPaymentsProvider(), 'createCustomer').mockRejectedValueOnce(new Error('processor exploded: SELECT secret'));
    const res = await api('POST', '/v1/accounts', { body: { name: 'C', email: 'rollback@example.com', password: strongPassword } });
    spy.mockRestore();
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('exploded');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const rows = await queryRows(sql`select id from users where email = 'rollback@example.com'`);
    expect(rows).toHaveLength(0);
  });
});

describe('password reset', () => {
  it('always answers 200 with data null, and mails a single-use link only to real accounts', async () => {
    const user = await createUser('Reset Me');
    const known = await api('POST', '/v1/accounts/restore', { body: { email: user.email, locale: 'en' }, headers: { 'x-client-ip': '10.0.0.1' } });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ success: true, data: null });
    const unknown = await api('POST', '/v1/accounts/restore', { body: { email: 'nobody@example.com', locale: 'en' }, headers: { 'x-client-ip': '10.0.0.1' } });
    expect(unknown.body).toEqual({ success: true, data: null });
    expect(await latestMailTo('nobody@example.com')).toBeUndefined();

    const mail = await latestMailTo(user.email);
    const token = mail?.text.match(/\/reset-password\/([A-Za-z0-9_-]+)/)?.[1];
    expect(token).toBeTruthy();
    const stored = await queryRows<{ token_hash: string }>(sql`select token_hash from password_reset_tokens`);
    expect(stored.map((r) => r.token_hash)).not.toContain(token);

    const oldCookie = user.cookie;
    const done = await api('POST', '/v1/accounts/restore/complete', { body: { token, password: 'a brand new password' } });
    expect(done.body).toEqual({ success: true, data: null });
    expect(await verifyCredentials(user.email, 'a brand new password')).not.toBeNull();
    expect(await verifyCredentials(user.email, user.password)).toBeNull();
    expectError(await api('GET', '/v1/account', { cookie: oldCookie }), 401, 'UNAUTHORIZED');
    expectError(await api('POST', '/v1/accounts/restore/complete', { body: { token, password: 'another new password' } }), 400, 'BAD_REQUEST');
  });

  it('ends every other outstanding link of the account when one is used', async () => {
    const user = await createUser();
    const tokens: string[] = [];
    for (const ip of ['10.0.1.1', '10.0.1.2']) {
      await api('POST', '/v1/accounts/restore', { body: { email: user.email, locale: 'en' }, headers: { 'x-client-ip': ip } });
      tokens.push((await latestMailTo(user.email))?.text.match(/\/reset-password\/([A-Za-z0-9_-]+)/)?.[1] ?? '');
    }
    const [older, newer] = tokens;
    expect(older).not.toBe(newer);
    expect((await api('POST', '/v1/accounts/restore/complete', { body: { token: newer, password: 'a brand new password' } })).status).toBe(200);
    expectError(await api('POST', '/v1/accounts/restore/complete', { body: { token: older, password: 'an attacker password' } }), 400, 'BAD_REQUEST');
    expect(await verifyCredentials(user.email, 'a brand new password')).not.toBeNull();
  });

  it('refuses an expired token', async () => {
    const user = await createUser();
    await api('POST', '/v1/accounts/restore', { body: { email: user.email, locale: 'en' }, headers: { 'x-client-ip': '10.0.0.9' } });
    const token = (await latestMailTo(user.email))?.text.match(/\/reset-password\/([A-Za-z0-9_-]+)/)?.[1];
    await queryRows(sql`update password_reset_tokens set expires_at = now() - interval '1 minute'`);
    expectError(await api('POST', '/v1/accounts/restore/complete', { body: { token, password: 'a brand new password' } }), 400, 'BAD_REQUEST');
  });

  it('allows 5 attempts per client address per 10 minutes, whatever the emails, then 429 with Retry-After', async () => {
    const headers = { 'x-client-ip': '192.0.2.77' };
    for (let i = 0; i < 5; i += 1) {
      expect((await api('POST', '/v1/accounts/restore', { body: { email: `x${i}@example.com`, locale: 'en' }, headers })).status).toBe(200);
    }
    const limited = await api('POST', '/v1/accounts/restore', { body: { email: 'x5@example.com', locale: 'en' }, headers });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toContain('"password-reset";q=5;w=600');
    const otherAddress = await api('POST', '/v1/accounts/restore', {
      body: { email: 'x5@example.com', locale: 'en' },
      headers: { 'x-client-ip': '192.0.2.78' },
    });
    expect(otherAddress.status).toBe(200);
  });

  it('allows 5 reset requests per email address per hour from any client addresses, with or without an account, then 429', async () => {
    const user = await createUser();
    const mailsTo = async (to: string) => (await queryRows<{ n: number }>(sql`select count(*)::int as n from mail_messages where "to" = ${to}`))[0]?.n ?? 0;
    const mailsBefore = await mailsTo(user.email);
    for (const email of [user.email, 'nobody-at-all@example.com']) {
      for (let i = 0; i < 5; i += 1) {
        const res = await api('POST', '/v1/accounts/restore', { body: { email, locale: 'en' }, headers: { 'x-client-ip': `203.0.113.${10 + i}` } });
        expect(res.status).toBe(200);
      }
      const limited = await api('POST', '/v1/accounts/restore', {
        body: { email: email.toUpperCase(), locale: 'en' },
        headers: { 'x-client-ip': '203.0.113.99' },
      });
      expectError(limited, 429, 'RATE_LIMITED');
      expect(limited.headers.get('ratelimit-policy')).toContain('"password-reset-email";q=5;w=3600');
    }
    expect((await mailsTo(user.email)) - mailsBefore).toBe(5);
  });

  it('validates the email and locale (422)', async () => {
    expectError(await api('POST', '/v1/accounts/restore', { body: { email: 'nope', locale: 'en' } }), 422, 'VALIDATION_ERROR');
    expectError(await api('POST', '/v1/accounts/restore', { body: { email: 'a@example.com', locale: '!!' } }), 422, 'VALIDATION_ERROR');
  });
});

describe('the signed-in account', () => {
  it('reads and renames the account, and a password change ends older sessions', async () => {
    const user = await createUser('Old Name');
    expect((await api('GET', '/v1/account', { cookie: user.cookie })).data).toEqual({
      id: user.id,
      email: user.email,
      name: 'Old Name',
      emailVerifiedAt: expect.any(String),
    });
    expect((await api('PATCH', '/v1/account', { cookie: user.cookie, body: { name: 'New Name' } })).data).toMatchObject({ name: 'New Name' });
    expectError(
      await api('POST', '/v1/account/password', { cookie: user.cookie, body: { currentPassword: 'wrong password', newPassword: 'another good password' } }),
      422,
      'VALIDATION_ERROR',
    );
    const changed = await api('POST', '/v1/account/password', {
      cookie: user.cookie,
      body: { currentPassword: user.password, newPassword: 'another good password' },
    });
    expect(changed.status).toBe(200);
    expectError(await api('GET', '/v1/account', { cookie: user.cookie }), 401, 'UNAUTHORIZED');
    expect((await api('GET', '/v1/account', { cookie: await sessionCookie(user.id, 2) })).status).toBe(200);
  });
});

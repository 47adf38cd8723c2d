import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../../test/db';
import { api, createApiKey, createProject, createUser, expectError, verifyEmailFromMailbox } from '../../../test/helpers';
import { linkIn, newestMailTo, verificationToken } from '../../../test/mailbox';
import { getConfig } from '../../platform/config';
import { sha256Hex } from '../../platform/auth/tokens';
import { purgeSpentVerificationTokens } from './jobs';
import type { OwnAccount } from './schema';

const SUBJECT = 'Confirm your email address';

async function account(cookie: string): Promise<OwnAccount> {
  return (await api<OwnAccount>('GET', '/v1/account', { cookie })).data;
}

async function storedTokens(userId: string) {
  return queryRows<{ token_hash: string; email: string; used_at: string | null; expires_at: Date | string }>(
    sql`select token_hash, email, used_at, expires_at from email_verification_tokens where user_id = ${userId} order by created_at`,
  );
}

describe('email verification', () => {
  it('starts unverified; sign-up mails a single-use link stored only as a hash, and opening it verifies the address', async () => {
    const user = await createUser('Vera', { verified: false });
    expect(await account(user.cookie)).toMatchObject({ email: user.email, emailVerifiedAt: null });

    const mail = await newestMailTo(user.email);
    expect(mail?.subject).toBe(SUBJECT);
    const link = linkIn(mail, '/verify-email/');
    expect(link?.origin).toBe(getConfig().APP_URL);
    const token = await verificationToken(user.email);
    const [stored] = await storedTokens(user.id);
    expect(stored?.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(await storedTokens(user.id))).not.toContain(token);
    const lifetime = new Date(stored!.expires_at).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(23.9 * 3_600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000);

    const before = Date.now();
    const verified = await api('POST', '/v1/accounts/verify-email', { body: { token } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, data: { email: user.email } });
    const after = await account(user.cookie);
    expect(new Date(after.emailVerifiedAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);

    expectError(await api('POST', '/v1/accounts/verify-email', { body: { token } }), 400, 'BAD_REQUEST');
    expect((await account(user.cookie)).emailVerifiedAt).toBe(after.emailVerifiedAt);
  });

  it('answers LINK_EXPIRED for an expired link, BAD_REQUEST for an unknown one and 422 for a malformed one, verifying nothing', async () => {
    const user = await createUser('Late', { verified: false });
    const token = await verificationToken(user.email);
    await queryRows(sql`update email_verification_tokens set expires_at = now() - interval '1 second' where user_id = ${user.id}`);
    expectError(await api('POST', '/v1/accounts/verify-email', { body: { token } }), 400, 'LINK_EXPIRED');
    expectError(await api('POST', '/v1/accounts/verify-email', { body: { token: `${token.slice(0, -4)}AAAA` } }), 400, 'BAD_REQUEST');
    expectError(await api('POST', '/v1/accounts/verify-email', { body: { token: 'short' } }), 422, 'VALIDATION_ERROR');
    expect((await account(user.cookie)).emailVerifiedAt).toBeNull();
  });

  it('sends a new link on request (session only); using one link ends the others', async () => {
    const user = await createUser('Again', { verified: false });
    const first = await verificationToken(user.email);
    const resent = await api('POST', '/v1/account/verification-email', { cookie: user.cookie, body: {} });
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ success: true, data: null });
    const second = await verificationToken(user.email);
    expect(second).not.toBe(first);

    const { projectId } = await createProject(user);
    const key = await createApiKey(user, projectId, ['projects:read', 'projects:write']);
    expectError(await api('POST', '/v1/account/verification-email', { key: key.key, body: {} }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/v1/account/verification-email', { body: {} }), 401, 'UNAUTHORIZED');

    expect((await api('POST', '/v1/accounts/verify-email', { body: { token: second } })).status).toBe(200);
    expectError(await api('POST', '/v1/accounts/verify-email', { body: { token: first } }), 400, 'BAD_REQUEST');
    expect((await storedTokens(user.id)).every((t) => t.used_at !== null)).toBe(true);
  });

  it('refuses to send a link to a verified address (409)', async () => {
    const user = await createUser('Done');
    const mails = (await queryRows(sql`select id from mail_messages where "to" = ${user.email}`)).length;
    expectError(await api('POST', '/v1/account/verification-email', { cookie: user.cookie, body: {} }), 409, 'CONFLICT');
    expect(await queryRows(sql`select id from mail_messages where "to" = ${user.email}`)).toHaveLength(mails);
  });

  it('sends at most 5 links per account per hour, then 429 with Retry-After', async () => {
    const user = await createUser('Eager', { verified: false });
    const other = await createUser('Patient', { verified: false });
    for (let i = 0; i < 5; i += 1) {
      expect((await api('POST', '/v1/account/verification-email', { cookie: user.cookie, body: {} })).status).toBe(200);
    }
    const limited = await api('POST', '/v1/account/verification-email', { cookie: user.cookie, body: {} });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toContain('"verification-email";q=5;w=3600');
    expect(await storedTokens(user.id)).toHaveLength(6);
    expect((await api('POST', '/v1/account/verification-email', { cookie: other.cookie, body: {} })).status).toBe(200);
  });

  it('purges used and expired links, keeping live ones', async () => {
    const used = await createUser('Used', { verified: false });
    await verifyEmailFromMailbox(used.email);
    const expired = await createUser('Expired', { verified: false });
    await queryRows(sql`update email_verification_tokens set expires_at = now() - interval '1 second' where user_id = ${expired.id}`);
    const live = await createUser('Live', { verified: false });

    expect(await purgeSpentVerificationTokens()).toBeGreaterThanOrEqual(2);
    expect(await storedTokens(used.id)).toEqual([]);
    expect(await storedTokens(expired.id)).toEqual([]);
    expect(await storedTokens(live.id)).toHaveLength(1);
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../../../test/helpers';
import { getAuthOptions } from './nextAuth';
import { SIGN_IN_THROTTLED } from './schema';

type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string } | null>;

/** The panel's sign-in exactly as next-auth calls it, from a client address. */
function signIn(email: string, password: string, ip: string): Promise<{ id: string } | null> {
  const provider = getAuthOptions().providers[0] as unknown as { options: { authorize: Authorize } };
  return provider.options.authorize({ email, password }, { headers: { 'x-client-ip': ip } });
}

/** The error next-auth hands the login page, or null when the attempt was answered. */
async function throttled(attempt: Promise<unknown>): Promise<string | null> {
  return attempt.then(
    () => null,
    (err: unknown) => (err as Error).message,
  );
}

let addresses = 0;
/** A client address no other test uses. */
const address = () => `192.0.2.${(addresses += 1)}`;
const THROTTLED = new RegExp(`^${SIGN_IN_THROTTLED}:(\\d+)$`);

async function wrongPasswords(user: { email: string }, n: number, ip: string): Promise<void> {
  for (let i = 0; i < n; i += 1) expect(await signIn(user.email, `wrong password ${i}`, ip)).toBeNull();
}

describe('sign-in throttling', () => {
  it('refuses the attempt after 10 wrong passwords for an account, even with the right password, and says when to try again', async () => {
    const user = await createUser();
    const ip = address();
    await wrongPasswords(user, 10, ip);
    const refusal = await throttled(signIn(user.email, user.password, ip));
    const seconds = Number(THROTTLED.exec(refusal ?? '')?.[1]);
    // Ten per 15 minutes: one more attempt every 90 seconds.
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(90);
    // From another address too: the budget is the account's.
    expect(await throttled(signIn(user.email.toUpperCase(), user.password, address()))).toMatch(THROTTLED);
  });

  it('counts an email with no account the same way, so the answers tell nothing about which addresses exist', async () => {
    const ip = address();
    const nobody = { email: `nobody-${randomBytes(3).toString('hex')}@example.com` };
    await wrongPasswords(nobody, 10, ip);
    expect(await throttled(signIn(nobody.email, 'wrong', ip))).toMatch(THROTTLED);
  });

  it('does not count a right password as a failure', async () => {
    const user = await createUser();
    const ip = address();
    await wrongPasswords(user, 9, ip);
    expect(await signIn(user.email, user.password, ip)).toMatchObject({ id: user.id });
    await wrongPasswords(user, 1, ip);
    expect(await throttled(signIn(user.email, user.password, ip))).toMatch(THROTTLED);
  });

  it('checks no more than 10 of 40 wrong passwords sent at once', async () => {
    const user = await createUser();
    const ip = address();
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => signIn(user.email, `parallel guess ${i}`, ip)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.message)).toEqual(
      Array(30).fill(expect.stringMatching(THROTTLED)),
    );
    expect(await throttled(signIn(user.email, user.password, ip))).toMatch(THROTTLED);
  });

  it('limits failures per client address across accounts, without spending the accounts budgets on refused attempts', async () => {
    const users: TestUser[] = [];
    for (let i = 0; i < 4; i += 1) users.push(await createUser());
    const ip = address();
    for (const [i, user] of users.entries()) await wrongPasswords(user, i < 3 ? 8 : 6, ip);

    // 30 failures from this address: it is held back, whichever account and password it tries.
    const fresh = await createUser();
    expect(await throttled(signIn(fresh.email, fresh.password, ip))).toMatch(THROTTLED);
    for (let i = 0; i < 5; i += 1) expect(await throttled(signIn(users[3]!.email, 'wrong again', ip))).toMatch(THROTTLED);

    // Elsewhere both accounts are as they were: the fresh one signs in, the fourth has 4 of its 10 failures left.
    const elsewhere = address();
    expect(await signIn(fresh.email, fresh.password, elsewhere)).toMatchObject({ id: fresh.id });
    await wrongPasswords(users[3]!, 4, elsewhere);
    expect(await throttled(signIn(users[3]!.email, users[3]!.password, elsewhere))).toMatch(THROTTLED);
  });
});

import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../test/db';
import { api, createApiKey, createProject, createUser, type TestUser } from '../../../test/helpers';
import { gcraRate } from '../rateLimit';
import { resolveActor, type KeyBudgetStep } from './actor';

const SECOND = 1_000_000;
const NOW = new Date(Date.UTC(2031, 4, 6, 12, 0, 0));

/** Three requests a minute (one back every 20 s), charged under a prefix no other test uses. */
const step = (prefix: string, at = NOW): KeyBudgetStep => ({ prefix, nowUs: at.getTime() * 1000, ...gcraRate(3, 60) });

async function budgetRows(prefix: string): Promise<Array<{ key: string; tat_us: string }>> {
  return queryRows(sql`select key, tat_us::text from rate_limits where key like ${`${prefix}%`}`);
}

describe('resolveActor charging an API key budget in the key lookup', () => {
  let user: TestUser;
  let projectId: string;

  beforeAll(async () => {
    user = await createUser();
    ({ projectId } = await createProject(user));
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('resolves the key and steps its budget under the prefix and the key id, returning the new TAT', async () => {
    const { key, id } = await createApiKey(user, projectId, ['projects:read']);
    const prefix = `test:${randomUUID()}:`;
    const resolved = await resolveActor(bearer(key), NOW, step(prefix));
    expect(resolved.actor).toMatchObject({ kind: 'apiKey', keyId: id, projectId });
    const tatUs = NOW.getTime() * 1000 + 20 * SECOND;
    expect(resolved.keyBudgetTatUs).toBe(tatUs);
    expect(await budgetRows(prefix)).toEqual([{ key: `${prefix}${id}`, tat_us: String(tatUs) }]);
  });

  it('answers null once the budget is spent, and leaves it as it was', async () => {
    const { key } = await createApiKey(user, projectId, ['projects:read']);
    const prefix = `test:${randomUUID()}:`;
    const tats = [];
    for (let i = 0; i < 4; i += 1) tats.push((await resolveActor(bearer(key), NOW, step(prefix))).keyBudgetTatUs);
    const nowUs = NOW.getTime() * 1000;
    expect(tats).toEqual([nowUs + 20 * SECOND, nowUs + 40 * SECOND, nowUs + 60 * SECOND, null]);
    expect((await budgetRows(prefix))[0]?.tat_us).toBe(String(nowUs + 60 * SECOND));
    expect((await resolveActor(bearer(key), new Date(NOW.getTime() + 20_000), step(prefix, new Date(NOW.getTime() + 20_000)))).keyBudgetTatUs).toBe(
      nowUs + 80 * SECOND,
    );
  });

  it('charges nothing for a key that does not resolve: unknown, revoked or expired', async () => {
    const prefix = `test:${randomUUID()}:`;
    const revoked = await createApiKey(user, projectId, ['projects:read']);
    await api('DELETE', `/v1/projects/${projectId}/api-keys/${revoked.id}`, { cookie: user.cookie });
    const expired = await createApiKey(user, projectId, ['projects:read'], { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const later = new Date(Date.now() + 120_000);
    const outcomes = [
      await resolveActor(bearer('cpk_not-a-key-anyone-has'), NOW, step(prefix)),
      await resolveActor(bearer(revoked.key), NOW, step(prefix)),
      await resolveActor(bearer(expired.key), later, step(prefix, later)),
    ];
    expect(outcomes.map((o) => o.actor)).toEqual([
      { kind: 'invalid', reason: 'Invalid API key' },
      { kind: 'invalid', reason: 'This API key has been revoked' },
      { kind: 'invalid', reason: 'This API key has expired' },
    ]);
    expect(outcomes.map((o) => o.keyBudgetTatUs)).toEqual([undefined, undefined, undefined]);
    expect(await budgetRows(prefix)).toEqual([]);
  });

  it('charges nothing and says nothing of a budget when not asked to', async () => {
    const { key } = await createApiKey(user, projectId, ['projects:read']);
    const resolved = await resolveActor(bearer(key), NOW);
    expect(resolved.actor.kind).toBe('apiKey');
    expect(resolved).not.toHaveProperty('keyBudgetTatUs', expect.anything());
  });
});

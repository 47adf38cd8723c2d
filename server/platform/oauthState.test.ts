import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../test/db';
import { createProject, createUser } from '../../test/helpers';
import {
  consumeOAuthState,
  issueOAuthState,
  lastEndedRoundTripProject,
  OAUTH_STATE_TTL_MS,
  purgeExpiredOAuthStates,
  safeReturnPath,
  type OAuthStateGrant,
} from './oauthState';

let grant: OAuthStateGrant;

beforeAll(async () => {
  const user = await createUser();
  const { projectId } = await createProject(user);
  grant = { purpose: 'dns-provider', projectId, userId: user.id, returnTo: '/projects/p/integrations' };
});

async function refused(state: string, purpose: string | readonly string[] = 'dns-provider', now?: Date): Promise<void> {
  await expect(consumeOAuthState(state, purpose, now)).rejects.toMatchObject({
    code: 'LINK_EXPIRED',
    message: 'This authorisation link is invalid, expired or already used; start connecting again',
  });
}

describe('OAuth states', () => {
  it('gives back the grant it was issued for, once', async () => {
    const state = await issueOAuthState(grant);
    expect(state).toMatch(/^[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/);
    expect(await consumeOAuthState(state, 'dns-provider')).toMatchObject(grant);
    await refused(state);
  });

  it('stores only a hash of the random part, never the state', async () => {
    const state = await issueOAuthState(grant);
    const [random] = state.split('.');
    const rows = await queryRows<{ id: string }>(sql`select id from oauth_states`);
    expect(rows.map((r) => r.id).join(' ')).not.toContain(random);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.id))).toBe(true);
  });

  it('lasts ten minutes: valid to the last millisecond, refused at the expiry', async () => {
    const issuedAt = new Date('2026-11-24T10:00:00Z');
    const lastMoment = new Date(issuedAt.getTime() + OAUTH_STATE_TTL_MS - 1);
    expect(OAUTH_STATE_TTL_MS).toBe(600_000);
    expect(await consumeOAuthState(await issueOAuthState(grant, issuedAt), 'dns-provider', lastMoment)).toMatchObject(grant);
    await refused(await issueOAuthState(grant, issuedAt), 'dns-provider', new Date(issuedAt.getTime() + OAUTH_STATE_TTL_MS));
  });

  it('refuses a state issued for another purpose, and leaves it usable for its own', async () => {
    const state = await issueOAuthState(grant);
    await refused(state, 'git-host-1');
    expect(await consumeOAuthState(state, 'dns-provider')).toMatchObject(grant);
  });

  it('carries a payload and the issue time, and is taken for any of several purposes', async () => {
    const issuedAt = new Date(Date.now() - 5_000);
    const carrying = { ...grant, purpose: 'git-host-1-proof', payload: { installationId: '4242' } };
    const consumed = await consumeOAuthState(await issueOAuthState(carrying, issuedAt), ['git-host-1', 'git-host-1-proof']);
    expect(consumed).toEqual({ ...carrying, issuedAt });
    const plain = await consumeOAuthState(await issueOAuthState(grant), ['git-host-1', 'dns-provider']);
    expect(plain).not.toHaveProperty('payload');
    await refused(await issueOAuthState(grant), ['git-host-1', 'git-host-2']);
  });

  it('refuses forged, truncated and malformed states before reading the database', async () => {
    const state = await issueOAuthState(grant);
    const [random, signature] = state.split('.') as [string, string];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [
      `${random}.${flipped}`,
      `${random}.${signature.slice(1)}`,
      `${random}.`,
      `.${signature}`,
      random,
      '',
      `${random}.${signature}.x`,
      `${random}x.${signature}`,
    ]) {
      await refused(bad);
    }
    const [otherRandom] = (await issueOAuthState(grant)).split('.') as [string, string];
    await refused(`${otherRandom}.${signature}`);
    expect(await consumeOAuthState(state, 'dns-provider')).toMatchObject(grant);
  });

  it('purges states past their expiry only', async () => {
    const now = new Date();
    await issueOAuthState(grant, new Date(now.getTime() - OAUTH_STATE_TTL_MS - 1));
    const live = await issueOAuthState(grant, now);
    expect(await purgeExpiredOAuthStates(now)).toBeGreaterThanOrEqual(1);
    expect(await purgeExpiredOAuthStates(now)).toBe(0);
    expect(await consumeOAuthState(live, 'dns-provider', now)).toMatchObject(grant);
  });
});

describe('the project of the last round trip that ended on a return path', () => {
  const landing = '/en/landing';
  const purposes = ['git-host-1', 'git-host-1-proof'];

  it('is the project of the most recently consumed state of the user, purpose and return path, for ten minutes after its use', async () => {
    const user = await createUser();
    const { projectId: first } = await createProject(user, 'First');
    const { projectId: second } = await createProject(user, 'Second');
    const start = new Date('2026-11-24T12:00:00Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    const ended = async (projectId: string, purpose: string, usedAt: Date, returnTo = landing) =>
      consumeOAuthState(await issueOAuthState({ purpose, projectId, userId: user.id, returnTo }, at(0)), purpose, usedAt);

    await issueOAuthState({ purpose: 'git-host-1', projectId: first, userId: user.id, returnTo: landing }, at(0));
    expect(await lastEndedRoundTripProject(user.id, purposes, landing, at(1_000))).toBeNull();

    await ended(first, 'git-host-1', at(1_000));
    await ended(second, 'git-host-1-proof', at(2_000));
    expect(await lastEndedRoundTripProject(user.id, purposes, landing, at(3_000))).toBe(second);
    expect(await lastEndedRoundTripProject(user.id, ['git-host-1'], landing, at(3_000))).toBe(first);

    await ended(first, 'dns-provider', at(4_000));
    await ended(first, 'git-host-1-proof', at(5_000), '/projects/elsewhere');
    expect(await lastEndedRoundTripProject(user.id, purposes, landing, at(6_000))).toBe(second);

    expect(await lastEndedRoundTripProject(user.id, purposes, landing, at(2_000 + OAUTH_STATE_TTL_MS - 1))).toBe(second);
    expect(await lastEndedRoundTripProject(user.id, purposes, landing, at(2_000 + OAUTH_STATE_TTL_MS))).toBeNull();
  });

  it('is never another user’s', async () => {
    const stranger = await createUser();
    await consumeOAuthState(await issueOAuthState({ ...grant, returnTo: landing }), 'dns-provider');
    expect(await lastEndedRoundTripProject(grant.userId, ['dns-provider'], landing)).toBe(grant.projectId);
    expect(await lastEndedRoundTripProject(stranger.id, ['dns-provider'], landing)).toBeNull();
  });
});

describe('return paths', () => {
  const fallback = '/projects/p/integrations';

  it('keeps relative paths of this app with their query and fragment', () => {
    expect(safeReturnPath('/projects/p/domains', fallback)).toBe('/projects/p/domains');
    expect(safeReturnPath('/projects/p/domains?tab=dns#records', fallback)).toBe('/projects/p/domains?tab=dns#records');
    expect(safeReturnPath('/a/../b', fallback)).toBe('/b');
  });

  it('falls back for anything that could leave the app', () => {
    for (const candidate of [
      undefined,
      '',
      'projects/p',
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/path\nLocation: https://evil.example',
      '/tab\there',
      `/${'a'.repeat(512)}`,
    ]) {
      expect(safeReturnPath(candidate, fallback), JSON.stringify(candidate)).toBe(fallback);
    }
    expect(safeReturnPath(`/${'a'.repeat(511)}`, fallback)).toBe(`/${'a'.repeat(511)}`);
  });
});

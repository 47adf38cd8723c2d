import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors';
import { ImageHubSimulator, SIMULATED_IMAGE_HUB_USER } from './simulator';
import type { ImageHubCredential } from './types';

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const hub = new ImageHubSimulator();
const demo: ImageHubCredential = { username: 'demo', accessToken: 'dckr_pat_demo_simulator' };

describe('image hub simulator: credentials', () => {
  it('names the demo account it seeds', () => {
    expect(SIMULATED_IMAGE_HUB_USER).toEqual(demo);
    expect(hub.kind).toBe('simulator');
    expect(hub.description).toMatch(/simulated/i);
  });

  it('verifies the demo credential and answers the username as the hub spells it', async () => {
    expect(await hub.verify(demo)).toEqual({ username: 'demo' });
    expect(await hub.verify({ username: ' Demo ', accessToken: demo.accessToken })).toEqual({ username: 'demo' });
  });

  it.each([
    ['a wrong token', { username: 'demo', accessToken: 'dckr_pat_wrong' }],
    ['another user’s token', { username: 'demo', accessToken: 'dckr_pat_globex_simulator' }],
    ['an unknown username', { username: 'nobody', accessToken: 'dckr_pat_demo_simulator' }],
    ['an empty token', { username: 'demo', accessToken: '' }],
  ])('refuses %s on every call, without repeating the token', async (_label, credential) => {
    for (const call of [() => hub.verify(credential), () => hub.listRepositories(credential), () => hub.listTags(credential, 'demo', 'hello-node')]) {
      const err = await refusal(call());
      expect(err.code).toBe('IMAGE_HUB_CREDENTIAL_INVALID');
      if (credential.accessToken) expect(err.message).not.toContain(credential.accessToken);
    }
  });
});

describe('image hub simulator: repositories and tags', () => {
  it('lists the user’s and their organisation’s repositories, newest first, the never-pushed one last', async () => {
    const repositories = await hub.listRepositories(demo);
    expect(repositories.map((repo) => `${repo.namespace}/${repo.name}`)).toEqual([
      'acmelabs/storefront',
      'demo/hello-node',
      'demo/private-api',
      'acmelabs/worker',
      'demo/scratch',
    ]);
    expect(repositories.find((repo) => repo.name === 'private-api')).toMatchObject({ private: true, namespace: 'demo' });
    expect(repositories.find((repo) => repo.name === 'scratch')).toMatchObject({ lastUpdated: null, pullCount: 0 });
    expect(repositories[0]).not.toHaveProperty('tags');
    const updates = repositories.map((repo) => repo.lastUpdated).filter((value): value is string => value !== null);
    expect(updates).toEqual([...updates].sort().reverse());
  });

  it('keeps another account’s repositories out of the list', async () => {
    const globex = await hub.listRepositories({ username: 'globexadmin', accessToken: 'dckr_pat_globex_simulator' });
    expect(globex.map((repo) => `${repo.namespace}/${repo.name}`)).toEqual(['globex/website', 'globex/billing']);
  });

  it('lists tags newest first with sizes and digests', async () => {
    const tags = await hub.listTags(demo, 'demo', 'hello-node');
    expect(tags.map((tag) => tag.name)).toEqual(['latest', '1.0.0', '0.9.0']);
    for (const tag of tags) {
      expect(tag.size).toBeGreaterThan(0);
      expect(Number.isInteger(tag.size)).toBe(true);
      expect(tag.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    expect(await hub.listTags(demo, 'acmelabs', 'worker')).toHaveLength(1);
    expect(await hub.listTags(demo, 'demo', 'private-api')).toHaveLength(2);
    expect(await hub.listTags(demo, 'demo', 'scratch')).toEqual([]);
  });

  it('reads a public repository of any namespace but answers a private one of another as not found', async () => {
    expect((await hub.listTags(demo, 'globex', 'website')).map((tag) => tag.name)).toEqual(['latest']);
    expect((await refusal(hub.listTags(demo, 'globex', 'billing'))).code).toBe('NOT_FOUND');
    expect((await refusal(hub.listTags(demo, 'nobody', 'hello-node'))).code).toBe('NOT_FOUND');
    expect((await refusal(hub.listTags(demo, 'demo', 'nothing'))).code).toBe('NOT_FOUND');
  });

  it('answers copies, so a caller cannot change the seeded world', async () => {
    const tags = await hub.listTags(demo, 'demo', 'hello-node');
    tags[0]!.name = 'changed';
    expect((await hub.listTags(demo, 'demo', 'hello-node'))[0]!.name).toBe('latest');
    const repositories = await hub.listRepositories(demo);
    repositories[0]!.name = 'changed';
    expect((await hub.listRepositories(demo))[0]!.name).toBe('storefront');
  });
});

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getInfraProvider } from '../../server/providers/infra';
import { clearCatalogCache } from '../../server/domains/catalog/service';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { configureInfra } from './serverFixtures';

const FAMILIES = ['catalog', 'infra'];
const LISTS = ['servers/sizes', 'servers/regions', 'servers/1-clicks', 'apps/sizes', 'apps/regions'];
const PATHS = FAMILIES.flatMap((family) => LISTS.map((list) => `/v1/${family}/${list}`));
const PUBLIC_PATH = '/v1/infra/servers/sizes';

let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

beforeEach(() => {
  configureInfra({ INFRA_SIM_FAIL: '' });
  clearCatalogCache();
  vi.restoreAllMocks();
});

describe('catalogue', () => {
  it.each(PATHS.filter((p) => p !== PUBLIC_PATH))('%s answers 401 without credentials and 200 with Cache-Control when signed in', async (path) => {
    expectError(await api('GET', path), 401, 'UNAUTHORIZED');
    expectError(await api('GET', path, { key: 'cpk_not-a-real-key' }), 401, 'UNAUTHORIZED');
    const res = await api<unknown[]>('GET', path, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.data.length).toBeGreaterThan(0);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('serves the infra server sizes to anyone, with Cache-Control', async () => {
    const res = await api<unknown[]>('GET', PUBLIC_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.data).toEqual((await api('GET', '/v1/catalog/servers/sizes', { cookie: user.cookie })).data);
  });

  it('answers the same to every caller, and takes any API key whatever its scopes', async () => {
    const other = await createUser();
    const { projectId } = await createProject(other);
    const projectsOnlyKey = await createApiKey(other, projectId, ['projects:read']);
    const billingWriteKey = await createApiKey(other, projectId, ['billing:write']);
    for (const path of PATHS.filter((p) => p !== PUBLIC_PATH)) {
      const mine = await api('GET', path, { cookie: user.cookie });
      for (const key of [projectsOnlyKey.key, billingWriteKey.key]) {
        const res = await api('GET', path, { key });
        expect(res.status, path).toBe(200);
        expect(res.body, path).toEqual(mine.body);
      }
    }
  });

  it('describes sizes with prices in minor units, the regions where each is sold, and regions with their sizes', async () => {
    const sizes = (await api<Array<Record<string, unknown>>>('GET', '/v1/catalog/servers/sizes', { cookie: user.cookie })).data;
    expect(sizes[0]).toEqual({
      slug: 's-1vcpu-512mb-10gb',
      description: 'Basic',
      vcpus: 1,
      memoryMb: 512,
      diskGb: 10,
      transferTb: 0.5,
      priceMonthly: 400,
      priceHourly: 0.595,
      currency: 'usd',
      regions: ['nyc1', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1'],
      available: true,
    });
    const prices = sizes.map((s) => s.priceMonthly as number);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));

    const regions = (await api<Array<{ slug: string; country: string; sizes: string[] }>>('GET', '/v1/infra/servers/regions', { cookie: user.cookie })).data;
    expect(regions.find((r) => r.slug === 'syd1')).toMatchObject({ country: 'AU' });
    expect(regions.find((r) => r.slug === 'syd1')!.sizes).not.toContain('s-1vcpu-512mb-10gb');
    expect(regions.find((r) => r.slug === 'fra1')!.sizes).toContain('s-1vcpu-512mb-10gb');

    const oneClicks = (await api<Array<{ slug: string; minDiskGb: number }>>('GET', '/v1/catalog/servers/1-clicks', { cookie: user.cookie })).data;
    expect(oneClicks.map((i) => i.slug)).toEqual(['lamp', 'docker', 'wordpress', 'postgresql']);
    const appSizes = (await api<Array<Record<string, unknown>>>('GET', '/v1/catalog/apps/sizes', { cookie: user.cookie })).data;
    expect(Object.keys(appSizes[0]!).sort()).toEqual(['cpus', 'currency', 'memoryMb', 'name', 'priceHourly', 'priceMonthly', 'slug']);
  });

  it('asks the provider once per list while the cache is fresh', async () => {
    const listSizes = vi.spyOn(getInfraProvider(), 'listSizes');
    await Promise.all([api('GET', PUBLIC_PATH), api('GET', PUBLIC_PATH), api('GET', '/v1/catalog/servers/regions', { cookie: user.cookie })]);
    await api('GET', '/v1/catalog/servers/sizes', { cookie: user.cookie });
    expect(listSizes).toHaveBeenCalledTimes(1);
  });

  it('answers 502 without Cache-Control while the provider fails, and recovers at once', async () => {
    configureInfra({ INFRA_SIM_FAIL: 'catalog' });
    const failed = await api('GET', PUBLIC_PATH);
    expectError(failed, 502, 'UPSTREAM_ERROR');
    expect(failed.headers.get('cache-control')).toBeNull();
    configureInfra({ INFRA_SIM_FAIL: '' });
    expect((await api('GET', PUBLIC_PATH)).status).toBe(200);
  });
});

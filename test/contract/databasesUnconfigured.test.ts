import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../server/platform/config';
import { resetTenantClusterProviderForTests, stopTenantClusterProvider } from '../../server/providers/databases';
import { ledgerIntents } from '../billingHelpers';
import { api, expectError } from '../helpers';
import { paidProject } from './serverFixtures';

/** The embedded default: no cluster configured. Nothing pretends to work, and nothing is charged. */
const configured = process.env.DATABASES_ADMIN_URL;

beforeAll(async () => {
  await stopTenantClusterProvider();
  process.env.DATABASES_ADMIN_URL = '';
  resetConfigForTests();
  resetTenantClusterProviderForTests();
});

afterAll(() => {
  process.env.DATABASES_ADMIN_URL = configured ?? '';
  resetConfigForTests();
  resetTenantClusterProviderForTests();
});

describe('shared PostgreSQL without a cluster', () => {
  it('says so, naming the setting, and refuses creation with 503 before charging', async () => {
    const { owner, projectId } = await paidProject();
    const base = `/v1/projects/${projectId}/databases/shared`;
    const availability = await api<{ available: boolean; reason: string; pooler: boolean }>('GET', `${base}/availability`, { cookie: owner.cookie });
    expect(availability.data).toMatchObject({ available: false, pooler: false });
    expect(availability.data.reason).toContain('DATABASES_ADMIN_URL');

    const refused = await api('POST', base, { cookie: owner.cookie, body: { dbName: 'orders' } });
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(JSON.stringify(refused.body)).toContain('DATABASES_ADMIN_URL');
    expect(await ledgerIntents(owner.id)).toEqual([]);

    expect((await api('GET', `${base}/prices`, { cookie: owner.cookie })).status).toBe(200);
    expect((await api('GET', base, { cookie: owner.cookie })).data).toEqual([]);
    expectError(await api('GET', `${base}/pdb_unknown`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

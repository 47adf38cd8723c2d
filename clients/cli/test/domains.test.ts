import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { cloud, envFor } from './cli.ts';

describe('cloud domains', () => {
  it('searches names, adds an external domain, shows the record to publish, verifies it and removes it', async () => {
    const world = await newWorld('domains');
    const env = envFor(world);
    const label = `cli-${randomBytes(4).toString('hex')}`;

    const search = await cloud(['domains', 'search', label], { env });
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toMatch(/^NAME\s+AVAILABLE\s+YEARLY\s+PREMIUM\n/);
    expect(search.stdout).toMatch(new RegExp(`^${label}\\.com\\s+(yes|no)\\s+\\$\\d+\\.\\d\\d\\s+(yes|no)$`, 'm'));
    const candidates = (await cloud(['domains', 'search', label, '--json'], { env })).json<Array<{ name: string; priceYearly: number }>>();
    expect(candidates.map((c) => c.name)).toContain(`${label}.com`);
    expect(candidates[0]!.priceYearly).toBeGreaterThan(0);

    const name = `${label}.com`;
    const added = await cloud(['domains', 'add', name], { env });
    expect(added.code, added.stderr).toBe(0);
    const stored = await world.client.get('/projects/{projectId}/domains/{domain}', { params: { path: { projectId: world.projectId, domain: name } } });
    expect(stored).toMatchObject({ name, type: 'EXTERNAL', status: 'PENDING' });
    expect(added.stdout).toContain(`Added ${name} (${stored.id}), PENDING.`);
    expect(added.stdout).toContain(`name:  ${stored.verificationRecord.name}`);
    expect(added.stdout).toContain(`value: ${stored.verificationRecord.value}`);

    const addedJson = await cloud(['domains', 'add', `shop.${label}.net`, '--json'], { env });
    expect(addedJson.code, addedJson.stderr).toBe(0);
    expect(addedJson.json()).toMatchObject({ name: `shop.${label}.net`, status: 'PENDING', verificationRecord: { type: 'TXT' }, autoDns: { created: false } });

    const list = await cloud(['domains', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+ADDED\n/);
    expect(list.stdout).toMatch(new RegExp(`^${stored.id}\\s+${name.replace('.', '\\.')}\\s+EXTERNAL\\s+PENDING`, 'm'));
    expect((await cloud(['domains', 'list', '--json'], { env })).json<unknown[]>()).toHaveLength(2);

    const got = await cloud(['domains', 'get', stored.id, '--json'], { env });
    expect(got.json()).toEqual(stored);
    expect((await cloud(['domains', 'get', name], { env })).stdout).toContain(
      `Verification: TXT ${stored.verificationRecord.name} "${stored.verificationRecord.value}"`,
    );

    // Nothing publishes the record, so the lookup finds none and the command says what to create.
    const verify = await cloud(['domains', 'verify', name], { env });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(`${name} is still PENDING`);
    expect(verify.stdout).toContain(`value: ${stored.verificationRecord.value}`);
    const checked = (await cloud(['domains', 'verify', name, '--json'], { env })).json<{
      domain: { status: string };
      check: { verified: boolean; expected: unknown };
    }>();
    expect(checked).toMatchObject({ domain: { status: 'PENDING' }, check: { verified: false, expected: stored.verificationRecord } });

    const waited = await cloud(['domains', 'verify', name, '--wait', '--timeout', '1'], { env });
    expect(waited.code).toBe(9);
    expect(waited.stderr).toContain('Error: WAIT_TIMEOUT: ');
    expect(waited.stderr).toContain(`value: ${stored.verificationRecord.value}`);

    const taken = await cloud(['domains', 'add', name], { env });
    expect(taken.code).toBe(5);
    expect(taken.stderr).toMatch(/^Error: CONFLICT: /);
    const readOnly = await cloud(['domains', 'add', `${label}.org`], { env: { ...env, CLOUD_API_KEY: await world.keyWith(['domains:read']) } });
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).toMatch(/^Error: FORBIDDEN: /);

    const refused = await cloud(['domains', 'remove', name], { env });
    expect(refused.code).toBe(2);
    const removed = await cloud(['domains', 'remove', name, '--yes', '--json'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.json()).toEqual({ id: stored.id, deleted: true });
    const gone = await cloud(['domains', 'get', name], { env });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
  });
});

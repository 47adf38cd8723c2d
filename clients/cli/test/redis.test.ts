import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { cloud, envFor } from './cli.ts';

interface Database {
  id: string;
  name: string;
  status: string;
  username?: string;
  password?: string;
  url?: string;
}

describe('cloud redis', () => {
  it('creates a database with --wait, connects with the URL get shows, reads its usage and deletes it', async () => {
    const world = await newWorld('redis');
    const env = envFor(world);

    const plans = await cloud(['redis', 'plans'], { env });
    expect(plans.code, plans.stderr).toBe(0);
    expect(plans.stdout).toMatch(/^SLUG\s+NAME\s+MEMORY\s+CPU\s+REPLICATION\s+PERSISTENCE\s+MONTHLY\s+REGIONS\n/);
    const catalogue = (await cloud(['redis', 'plans', '--json'], { env })).json<
      Array<{ slug: string; memoryMb: number; regions: string[]; supportsReplication: boolean }>
    >();
    const plan = catalogue.reduce((smallest, p) => (p.memoryMb < smallest.memoryMb ? p : smallest));
    expect(plans.stdout).toMatch(new RegExp(`^${plan.slug}\\s`, 'm'));

    const regions = await cloud(['redis', 'regions', '--json'], { env });
    const region = regions.json<Array<{ slug: string; available: boolean; plans: string[] }>>().find((r) => r.available && r.plans.includes(plan.slug))!;
    expect(plan.regions).toContain(region.slug);
    expect((await cloud(['redis', 'regions'], { env })).stdout).toMatch(/^SLUG\s+NAME\s+COUNTRY\s+AVAILABLE\s+PLANS\n/);

    const preview = await cloud(['redis', 'preview', '--plan', plan.slug, '--json'], { env });
    expect(preview.code, preview.stderr).toBe(0);
    const charge = preview.json<{ dueToday: number; monthly: number }>();
    expect(charge.monthly).toBeGreaterThan(0);
    const replicable = catalogue.find((p) => p.supportsReplication)!;
    const single = (await cloud(['redis', 'preview', '--plan', replicable.slug, '--json'], { env })).json<{ monthly: number }>();
    const doubled = (await cloud(['redis', 'preview', '--plan', replicable.slug, '--replication', '--json'], { env })).json<{ monthly: number }>();
    expect(doubled.monthly).toBe(2 * single.monthly);
    expect((await cloud(['redis', 'preview', '--plan', plan.slug], { env })).stdout).toMatch(/^Due today:\s+\$\d+\.\d\d$/m);

    const created = await cloud(['redis', 'create', 'cache', '--plan', plan.slug, '--region', region.slug, '--wait', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const database = created.json<Database>();
    expect(database).toMatchObject({ name: 'cache', status: 'READY' });
    expect(database).not.toHaveProperty('password');
    expect(database).not.toHaveProperty('url');
    expect(created.stderr).toContain('Database cache is READY');

    // The single read answers the password every time, so get prints it only when asked to.
    const shown = await cloud(['redis', 'get', database.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    const stored = await world.client.get('/projects/{projectId}/redis/{redisId}', { params: { path: { projectId: world.projectId, redisId: database.id } } });
    expect(shown.stdout).toMatch(/^Status:\s+READY$/m);
    expect(shown.stdout).not.toContain(stored.password);
    expect(shown.stderr).toContain('Add --show-password');
    const hidden = (await cloud(['redis', 'get', database.id, '--json'], { env })).json<Database>();
    expect(hidden).toMatchObject({ id: database.id, username: 'default' });
    expect(hidden).not.toHaveProperty('password');

    const withPassword = (await cloud(['redis', 'get', database.id, '--show-password', '--json'], { env })).json<Database>();
    expect(withPassword).toEqual(stored);
    expect((await cloud(['redis', 'get', database.id, '--show-password'], { env })).stdout).toMatch(
      new RegExp(`^URL:\\s+${stored.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    );
    const connection = new Redis(withPassword.url!, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await connection.connect();
      expect(await connection.ping()).toBe('PONG');
      await connection.set('greeting', 'hello');
      expect(await connection.get('greeting')).toBe('hello');
    } finally {
      connection.disconnect();
    }

    const list = await cloud(['redis', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+PLAN\s+REGION\s+MEMORY\s+ENDPOINT\n/);
    expect(list.stdout).toMatch(new RegExp(`^${database.id}\\s+cache\\s+READY\\s+${plan.slug}\\s+${region.slug}\\s`, 'm'));
    expect(list.stdout).not.toContain(stored.password);

    const usage = await cloud(['redis', 'usage', database.id, '--json'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.json()).toMatchObject({ memoryLimitBytes: plan.memoryMb * 1024 * 1024, history: expect.any(Array) });
    expect((await cloud(['redis', 'usage', database.id], { env })).stdout).toMatch(/^Memory:\s+[\d.]+ [KMG]?B of [\d.]+ MB \([\d.]+%\)$/m);

    const taken = await cloud(['redis', 'create', 'cache', '--plan', plan.slug, '--region', region.slug], { env });
    expect(taken.code).toBe(5);
    expect(taken.stderr).toMatch(/^Error: CONFLICT: /);
    const readOnly = await cloud(['redis', 'delete', database.id, '--yes'], { env: { ...env, CLOUD_API_KEY: await world.keyWith(['redis:read']) } });
    expect(readOnly.code).toBe(3);
    expect(readOnly.stderr).toMatch(/^Error: FORBIDDEN: /);

    const refused = await cloud(['redis', 'delete', database.id], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Add --yes');
    const deleted = await cloud(['redis', 'delete', database.id, '--yes'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('Deleted Redis database cache');
    const gone = await cloud(['redis', 'get', database.id], { env });
    expect(gone.code).toBe(4);
    expect(await world.client.get('/projects/{projectId}/redis', { params: { path: { projectId: world.projectId } } })).toEqual([]);
  });
});

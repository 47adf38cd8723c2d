import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { cloud, envFor } from './cli.ts';

describe('cloud servers', () => {
  it('buys a server with --wait, powers it off and on, prints the ssh command and deletes it', async () => {
    const world = await newWorld('servers');
    const env = envFor(world);
    const sizes = await cloud(['servers', 'sizes', '--json'], { env });
    expect(sizes.code, sizes.stderr).toBe(0);
    // A server is a LAMP machine, which needs 25 GB of disk.
    const size = sizes.json<Array<{ slug: string; regions: string[]; available: boolean; diskGb: number }>>().find((s) => s.available && s.diskGb >= 25)!;

    const created = await cloud(['servers', 'create', 'web-1', '--size', size.slug, '--region', size.regions[0]!, '--wait', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const server = created.json<{ id: string; status: string; ipAddress: string; name: string }>();
    expect(server).toMatchObject({ name: 'web-1', status: 'RUNNING' });
    // Progress names each state on its way, and the one it waited for once, when it is reached.
    expect(created.stderr).toMatch(/Server web-1 is RUNNING\n/);
    expect(created.stderr).not.toContain('is RUNNING…');

    const ssh = await cloud(['servers', 'ssh', server.id], { env });
    expect(ssh.stdout.trim()).toMatch(new RegExp(`^ssh \\w+@${server.ipAddress.replace(/\./g, '\\.')}$`));

    const off = await cloud(['servers', 'power-off', server.id, '--wait', '--json'], { env });
    expect(off.code, off.stderr).toBe(0);
    expect(off.json()).toMatchObject({ status: 'OFF' });

    const list = await cloud(['servers', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(list.stdout).toContain('web-1');

    const refused = await cloud(['servers', 'delete', server.id], { env });
    expect(refused.code).toBe(2);
    const deleted = await cloud(['servers', 'delete', server.id, '--yes'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    const gone = await cloud(['servers', 'get', server.id], { env });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
  });
});

import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { cloud, envFor, freshConfigDir } from './cli.ts';

interface Tenant {
  tenantId: string;
  dbName: string;
  status: string;
  tier: string;
  dbPassword?: string;
  connectionUri: string;
  poolConnectionUri?: string;
}

/** `select 1` over a connection string, as an application would connect. */
async function selectOne(uri: string): Promise<number> {
  const sql = postgres(uri, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    const [row] = await sql<{ one: number }[]>`select 1 as one`;
    return row!.one;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe('cloud databases', () => {
  it('asks for a session, signs in, then buys a database, connects, changes its tier, rotates its password and deletes it', async () => {
    const world = await newWorld('databases');
    const keyEnv = envFor(world);

    // SPEC: "Management endpoints require session authentication": with only a key, the CLI says how to sign in.
    const withKey = await cloud(['databases', 'availability'], { env: keyEnv });
    expect(withKey.code).toBe(2);
    expect(withKey.stderr).toContain('cloud auth login --email');

    const env = { ...keyEnv, CLOUD_CONFIG_DIR: freshConfigDir() };
    const login = await cloud(['auth', 'login', '--email', world.email], { env, stdin: `${world.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    const availability = await cloud(['databases', 'availability', '--json'], { env });
    expect(availability.code, availability.stderr).toBe(0);
    const cluster = availability.json<{ available: boolean; reason: string | null; retentionDays: number }>();
    expect((await cloud(['databases', 'availability'], { env })).stdout).toMatch(new RegExp(`^Available:\\s+${cluster.available ? 'yes' : 'no'}$`, 'm'));

    const prices = await cloud(['databases', 'prices'], { env });
    expect(prices.code, prices.stderr).toBe(0);
    expect(prices.stdout).toMatch(/^TIER\s+CONNECTIONS\s+POOL\s+STORAGE\s+MONTHLY\n/);
    expect(prices.stdout).toMatch(/^MICRO\s+2\s+3\s+2 GB\s+\$5\.00$/m);
    const preview = (await cloud(['databases', 'preview', '--tier', 'MICRO', '--json'], { env })).json<{ monthly: number; dueToday: number }>();
    expect(preview.monthly).toBe(500);

    const name = `cli_${Date.now().toString(36)}`;
    if (!cluster.available) {
      // No cluster on this platform: the documented refusal, 503 naming the setting, and nothing bought.
      expect(cluster.reason).toBeTruthy();
      const refused = await cloud(['databases', 'create', name, '--tier', 'MICRO'], { env });
      expect(refused.code).toBe(8);
      expect(refused.stderr).toMatch(/^Error: SERVICE_UNAVAILABLE: /);
      expect((await cloud(['databases', 'list', '--json'], { env })).json()).toEqual([]);
      return;
    }

    const created = await cloud(['databases', 'create', name, '--tier', 'MICRO', '--wait'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('Save this password now: it is not shown again.');
    const [tenant] = await world.session.get('/projects/{projectId}/databases/shared', { params: { path: { projectId: world.projectId } } });
    expect(tenant).toMatchObject({ dbName: name, status: 'ACTIVE', tier: 'MICRO' });
    const password = /^Password:\s+(\S+)$/m.exec(created.stdout)![1]!;
    const uri = /^Connection URI:\s+(\S+)$/m.exec(created.stdout)![1]!;
    expect(uri).toBe(tenant!.connectionUri.replace(`${tenant!.dbUser}@`, `${tenant!.dbUser}:${password}@`));
    expect(await selectOne(uri)).toBe(1);

    const got = await cloud(['databases', 'get', tenant!.tenantId, '--json'], { env });
    expect(got.json<Tenant>()).toEqual(tenant);
    expect(got.stdout).not.toContain(password);
    expect((await cloud(['databases', 'get', tenant!.tenantId], { env })).stdout).toMatch(/^Connections:\s+2 direct, pool of 3$/m);
    const list = await cloud(['databases', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+TIER\s+STORAGE\s+ENDPOINT\s+CREATED\n/);
    expect(list.stdout).toMatch(new RegExp(`^${tenant!.tenantId}\\s+${name}\\s+ACTIVE\\s+MICRO\\s`, 'm'));

    const taken = await cloud(['databases', 'create', name, '--tier', 'MICRO'], { env });
    expect(taken.code).toBe(5);
    expect(taken.stderr).toMatch(/^Error: CONFLICT: /);

    const upgrade = await cloud(['databases', 'change-tier', tenant!.tenantId, 'starter', '--preview', '--json'], { env });
    expect(upgrade.json()).toMatchObject({ direction: 'upgrade', monthly: 900, currentMonthly: 500 });
    const changed = await cloud(['databases', 'change-tier', tenant!.tenantId, 'STARTER', '--json'], { env });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.json()).toMatchObject({ tenantId: tenant!.tenantId, tier: 'STARTER', limits: { maxConnections: 3, poolSize: 5 } });
    const again = await cloud(['databases', 'change-tier', tenant!.tenantId, 'STARTER'], { env });
    expect(again.code).toBe(5);

    const unconfirmed = await cloud(['databases', 'rotate-password', tenant!.tenantId], { env });
    expect(unconfirmed.code).toBe(2);
    const rotated = await cloud(['databases', 'rotate-password', tenant!.tenantId, '--yes', '--json'], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = rotated.json<Tenant>();
    expect(fresh.dbPassword).toBeTruthy();
    expect(fresh.dbPassword).not.toBe(password);
    expect(await selectOne(fresh.connectionUri)).toBe(1);
    if (fresh.poolConnectionUri) expect(await selectOne(fresh.poolConnectionUri)).toBe(1);
    await expect(selectOne(uri)).rejects.toThrow(/password authentication failed/);

    const kept = await cloud(['databases', 'delete', tenant!.tenantId], { env });
    expect(kept.code).toBe(2);
    const deleted = await cloud(['databases', 'delete', tenant!.tenantId, '--yes', '--json'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual({ id: tenant!.tenantId, deleted: true });
    const gone = await cloud(['databases', 'get', tenant!.tenantId], { env });
    expect(gone.code).toBe(4);
    await expect(selectOne(fresh.connectionUri)).rejects.toThrow();
  });
});

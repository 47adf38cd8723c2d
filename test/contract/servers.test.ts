import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../db/schema/ids';
import { JOBS } from '../../server/app';
import { DELETE_ORPHANED_MACHINES, ORPHANED_AFTER_MS, RECONCILE_SERVERS } from '../../server/domains/servers/jobs';
import { getInfraProvider } from '../../server/providers/infra';
import { simulatedAddress } from '../../server/providers/infra/simulator';
import { deleteOrphanedMachines, reconcileProvisioningServers } from '../../server/domains/servers/service';
import type { Project } from '../../server/domains/projects/schema';
import type { DeletedSshKey } from '../../server/domains/sshKeys/schema';
import { reconcileAbandonedPurchases } from '../../server/billing/purchases';
import { CARDS, ledgerIntents } from '../billingHelpers';
import { queryRows } from '../db';
import { startFakeDroplets, type FakeDroplets } from '../fakes/dropletsServer';
import { api, createApiKey, createProject, createUser, expectError } from '../helpers';
import {
  configureInfra,
  createServer,
  createServerCall,
  listServers,
  paidProject,
  registerKey,
  simulatedMachines,
  sleep,
  type ServerData,
} from './serverFixtures';

const SERVER_FIELDS = [
  'createdAt',
  'hostname',
  'id',
  'instanceType',
  'ipAddress',
  'name',
  'organizationId',
  'pgDatabase',
  'pgUsername',
  'pgVersion',
  'phpVersion',
  'region',
  'sshUser',
  'status',
  'suspendedAt',
  'type',
  'updatedAt',
];

beforeEach(() => {
  configureInfra({ INFRA_SIM_PROVISION_SECONDS: '0', INFRA_SIM_ACTION_SECONDS: '0', INFRA_SIM_FAIL: '' });
  vi.restoreAllMocks();
});

/** The fake's catalogue has no LAMP image; servers need one. */
const LAMP_DROPLET_IMAGE = {
  listedAs: 'application' as const,
  image: {
    id: 170_000_001,
    name: 'LAMP on Ubuntu 24.04',
    distribution: 'Ubuntu',
    slug: 'lamp',
    public: true,
    regions: ['fra1'],
    min_disk_size: 25,
    type: 'snapshot',
    description: 'LAMP',
  },
};

const serverUrl = (projectId: string, serverId: string) => `/v1/projects/${projectId}/servers/${serverId}`;

async function billingItemsOf(projectId: string) {
  return queryRows<{ resource_id: string; monthly: number; ended_at: string | null; category: string }>(
    sql`select resource_id, monthly, ended_at, category from billing_items where project_id = ${projectId} and resource_type = 'server'`,
  );
}

async function serverRows(projectId: string) {
  return queryRows<{ id: string; name: string; status: string; delete_requested_at: string | null; terminated_at: string | null }>(
    sql`select id, name, status, delete_requested_at, terminated_at from servers where project_id = ${projectId} order by created_at`,
  );
}

async function action(user: { cookie: string }, projectId: string, serverId: string, name: string) {
  return api<ServerData>('POST', `${serverUrl(projectId, serverId)}/actions`, { cookie: user.cookie, body: { action: name } });
}

async function getServer(user: { cookie: string }, projectId: string, serverId: string) {
  return (await api<ServerData>('GET', serverUrl(projectId, serverId), { cookie: user.cookie })).data;
}

describe('creating a server', () => {
  it('charges exactly the preview, answers { deployed: true } and shows the server with the SPEC fields', async () => {
    const { owner, projectId } = await paidProject();
    const key = await registerKey(owner, projectId, 'laptop');
    const preview = await api<{ dueToday: number; monthly: number; subtotal: number; currency: string; nextBillingDate: string }>(
      'GET',
      `/v1/projects/${projectId}/servers/preview?provider=infra&slug=s-1vcpu-1gb`,
      { cookie: owner.cookie },
    );
    expect(preview.data).toMatchObject({ monthly: 600, currency: 'usd' });
    const before = await ledgerIntents(owner.id);

    const created = await createServerCall(owner, projectId, { name: 'web-1', sshKeyIds: [key.id] });
    expect(created.status).toBe(200);
    expect(created.data).toEqual({ deployed: true });

    const intents = await ledgerIntents(owner.id);
    expect(intents).toHaveLength(before.length + 1);
    expect(intents.at(-1)).toMatchObject({ amount: preview.data.dueToday, status: 'succeeded' });

    const [server] = await listServers(owner, projectId);
    expect(Object.keys(server!).sort()).toEqual(SERVER_FIELDS);
    expect(server).toMatchObject({
      organizationId: projectId,
      name: 'web-1',
      type: 'LAMP',
      region: 'fra1',
      instanceType: 's-1vcpu-1gb',
      hostname: 'web-1',
      sshUser: 'root',
      phpVersion: '8.3',
      pgVersion: '16',
      pgDatabase: 'app',
      pgUsername: 'app',
    });
    const detail = await getServer(owner, projectId, server!.id);
    expect(detail.sshKeys).toEqual([{ id: key.id, name: 'laptop', fingerprint: key.fingerprint }]);

    expect(await billingItemsOf(projectId)).toEqual([{ resource_id: server!.id, monthly: 600, ended_at: null, category: 'servers' }]);
    const project = (await api<Project>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data;
    expect(project._count.servers).toBe(1);
    const [machine] = await simulatedMachines();
    expect(machine).toMatchObject({ reference: server!.id, name: 'web-1', deleted_at: null });
  });

  it('works with an API key holding servers:read and servers:write, and not with servers:read alone', async () => {
    const { owner, projectId } = await paidProject();
    const readOnly = await createApiKey(owner, projectId, ['servers:read']);
    const body = { name: 'api-made', slug: 's-1vcpu-1gb', provider: 'infra', region: 'ams3', sshKeyIds: [] };
    expectError(await api('POST', `/v1/projects/${projectId}/servers`, { key: readOnly.key, body }), 403, 'FORBIDDEN');
    const readWrite = await createApiKey(owner, projectId, ['servers:read', 'servers:write']);
    expect((await api('POST', `/v1/projects/${projectId}/servers`, { key: readWrite.key, body })).data).toEqual({ deployed: true });
    expect((await api<ServerData[]>('GET', `/v1/projects/${projectId}/servers`, { key: readOnly.key })).data.map((s) => s.name)).toEqual(['api-made']);
  });

  it('answers 402 ORG_PAYMENT_METHOD_REQUIRED to the biller and BILLER_PAYMENT_METHOD_REQUIRED to others, creating nothing', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const member = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${member.id}, 'member')`);
    const machinesBefore = (await simulatedMachines()).length;
    expectError(await createServerCall(owner, projectId), 402, 'ORG_PAYMENT_METHOD_REQUIRED');
    expectError(await createServerCall(member, projectId), 402, 'BILLER_PAYMENT_METHOD_REQUIRED');
    expect(await serverRows(projectId)).toEqual([]);
    expect(await simulatedMachines()).toHaveLength(machinesBefore);
  });

  it('answers 402 CARD_DECLINED when the charge fails, before any machine is made: no machine, no server, no charge', async () => {
    const { owner, projectId } = await paidProject(CARDS.declinesOnCharge);
    const machinesBefore = await simulatedMachines();
    expectError(await createServerCall(owner, projectId, { name: 'declined' }), 402, 'CARD_DECLINED');
    expect(await simulatedMachines()).toEqual(machinesBefore);
    expect(await serverRows(projectId)).toEqual([]);
    expect(await billingItemsOf(projectId)).toEqual([]);
    expect((await ledgerIntents(owner.id)).filter((i) => i.status === 'succeeded')).toEqual([]);
    expect(await queryRows(sql`select status from purchases where project_id = ${projectId}`)).toEqual([{ status: 'failed' }]);
  });

  it('makes one server and one charge from 20 identical concurrent requests; the others get 409', async () => {
    const { owner, projectId } = await paidProject();
    const before = (await ledgerIntents(owner.id)).length;
    const machinesBefore = (await simulatedMachines()).length;
    const results = await Promise.all(Array.from({ length: 20 }, () => createServerCall(owner, projectId, { name: 'same' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) expectError(refused, 409, 'CONFLICT');
    expect(await serverRows(projectId)).toHaveLength(1);
    expect((await ledgerIntents(owner.id)).length - before).toBe(1);
    expect(await simulatedMachines()).toHaveLength(machinesBefore + 1);
  });

  it('refuses a taken name with 409 before charging, and frees the name when the server is deleted', async () => {
    const { owner, projectId } = await paidProject();
    const server = await createServer(owner, projectId, { name: 'taken' });
    const intents = (await ledgerIntents(owner.id)).length;
    const clash = await createServerCall(owner, projectId, { name: 'taken', region: 'ams3' });
    expectError(clash, 409, 'CONFLICT');
    expect(clash.body && !clash.body.success && clash.body.error.message).toContain('"taken"');
    expect(await ledgerIntents(owner.id)).toHaveLength(intents);

    expect((await api('DELETE', serverUrl(projectId, server.id), { cookie: owner.cookie })).data).toEqual({});
    expect((await createServerCall(owner, projectId, { name: 'taken' })).status).toBe(200);
  });

  it.each([
    [{ slug: 'x-unknown' }, /slug: unknown server size "x-unknown"/],
    [{ region: 'mars1' }, /region: unknown region "mars1"/],
    [{ slug: 's-1vcpu-512mb-10gb', region: 'syd1' }, /size s-1vcpu-512mb-10gb is not sold in syd1; it is sold in nyc1/],
    [{ slug: 'c-4', region: 'sgp1' }, /c-4 is not sold in sgp1/],
    [{ slug: 's-1vcpu-512mb-10gb', region: 'fra1' }, /10 GB of disk; a LAMP server needs at least 25 GB/],
    [{ sshKeyIds: ['ssh_doesnotexist'] }, /sshKeyIds: no SSH key "ssh_doesnotexist"/],
    [{ provider: 'other-cloud' }, /provider/],
    [{ name: 'Web_1' }, /name: Name must be a hostname/],
    [{ name: '-web' }, /name/],
    [{ name: 'a'.repeat(64) }, /name: Name must be at most 63/],
    [{ slug: '-bad' }, /slug/],
  ])('refuses %j with 422 naming the problem, creating and charging nothing', async (override, message) => {
    const { owner, projectId } = await paidProject();
    const intents = (await ledgerIntents(owner.id)).length;
    const res = await createServerCall(owner, projectId, override);
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toMatch(message);
    expect(await serverRows(projectId)).toEqual([]);
    expect(await ledgerIntents(owner.id)).toHaveLength(intents);
  });

  it("refuses another project's SSH key as unknown", async () => {
    const { owner, projectId } = await paidProject();
    const other = await createProject(owner);
    const foreign = await registerKey(owner, other.projectId);
    const res = await createServerCall(owner, projectId, { sshKeyIds: [foreign.id] });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toContain(foreign.id);
  });

  it('answers 502 when the provider fails after the charge, with no server and the charge refunded in full', async () => {
    const { owner, projectId } = await paidProject();
    const intents = (await ledgerIntents(owner.id)).length;
    configureInfra({ INFRA_SIM_FAIL: 'create' });
    expectError(await createServerCall(owner, projectId), 502, 'UPSTREAM_ERROR');
    expect(await serverRows(projectId)).toEqual([]);
    const charges = (await ledgerIntents(owner.id)).slice(intents);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amount_refunded).toBe(charges[0]!.amount);
    expect(await queryRows(sql`select status from purchases where project_id = ${projectId}`)).toEqual([{ status: 'refunded' }]);
    expect(await queryRows(sql`select id from billing_items where project_id = ${projectId}`)).toEqual([]);
  });

  it('deletes the machine and refunds the charge when the server cannot be recorded after the machine was made', async () => {
    const { owner, projectId } = await paidProject();
    const intents = (await ledgerIntents(owner.id)).length;
    const provider = getInfraProvider();
    const create = provider.createMachine.bind(provider);
    // A provider so slow that billing gives the purchase up meanwhile: the purchase can no longer commit.
    vi.spyOn(provider, 'createMachine').mockImplementationOnce(async (input) => {
      const machine = await create(input);
      await reconcileAbandonedPurchases({ olderThanMs: 0 });
      return machine;
    });
    expectError(await createServerCall(owner, projectId, { name: 'too-late' }), 409, 'CONFLICT');
    expect(await serverRows(projectId)).toEqual([]);
    expect((await simulatedMachines()).find((m) => m.name === 'too-late')).toMatchObject({ deleted_at: expect.anything() });
    const charges = (await ledgerIntents(owner.id)).slice(intents);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amount_refunded).toBe(charges[0]!.amount);
    expect(await queryRows(sql`select status from purchases where project_id = ${projectId}`)).toEqual([{ status: 'refunded' }]);
  });
});

describe('server preview', () => {
  it('returns the shared preview for a size, 404 for an unknown size and 422 for a bad query', async () => {
    const { owner, projectId } = await paidProject();
    const url = (query: string) => `/v1/projects/${projectId}/servers/preview?${query}`;
    const preview = await api<Record<string, unknown>>('GET', url('provider=infra&slug=c-4'), { cookie: owner.cookie });
    expect(Object.keys(preview.data).sort()).toEqual(['creditApplied', 'currency', 'dueToday', 'monthly', 'nextBillingDate', 'subtotal', 'tax']);
    expect(preview.data.monthly).toBe(8400);
    expectError(await api('GET', url('provider=infra&slug=no-such-size'), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    for (const bad of [
      'provider=infra&slug=-dash',
      `provider=infra&slug=${'a'.repeat(65)}`,
      'provider=infra&slug=',
      'provider=infra',
      'provider=aws&slug=c-4',
      'slug=c-4',
    ]) {
      expectError(await api('GET', url(bad), { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
    }
  });
});

describe('reconciliation', () => {
  it('turns PROVISIONING into RUNNING with the public address once the machine has started, with one provider call per list', async () => {
    configureInfra({ INFRA_SIM_PROVISION_SECONDS: '1' });
    const { owner, projectId } = await paidProject();
    await createServerCall(owner, projectId, { name: 'one' });
    await createServerCall(owner, projectId, { name: 'two' });
    const getMachines = vi.spyOn(getInfraProvider(), 'getMachines');

    const early = await listServers(owner, projectId);
    expect(early.map((s) => [s.name, s.status, s.ipAddress])).toEqual([
      ['two', 'PROVISIONING', null],
      ['one', 'PROVISIONING', null],
    ]);
    expect(getMachines).toHaveBeenCalledTimes(1);

    await sleep(1100);
    const settled = await listServers(owner, projectId);
    expect(getMachines).toHaveBeenCalledTimes(2);
    const machines = await simulatedMachines();
    for (const server of settled) {
      const machine = machines.find((m) => m.reference === server.id)!;
      expect(server).toMatchObject({ status: 'RUNNING', ipAddress: simulatedAddress(machine.id) });
    }
    expect(await serverRows(projectId)).toEqual(expect.arrayContaining([expect.objectContaining({ status: 'RUNNING' })]));

    await listServers(owner, projectId);
    expect(getMachines).toHaveBeenCalledTimes(2);
  });

  it('is also done by a job every minute, for servers nobody reads', async () => {
    expect(JOBS.find((j) => j.name === RECONCILE_SERVERS)?.cron).toBe('* * * * *');
    configureInfra({ INFRA_SIM_PROVISION_SECONDS: '1' });
    const { owner, projectId } = await paidProject();
    await createServerCall(owner, projectId, { name: 'unwatched' });
    await sleep(1100);
    expect(await reconcileProvisioningServers()).toBeGreaterThanOrEqual(1);
    expect((await serverRows(projectId))[0]).toMatchObject({ status: 'RUNNING' });
  });

  it('keeps the stored state readable when the provider is down', async () => {
    configureInfra({ INFRA_SIM_PROVISION_SECONDS: '1' });
    const { owner, projectId } = await paidProject();
    await createServerCall(owner, projectId);
    configureInfra({ INFRA_SIM_FAIL: 'get' });
    expect((await listServers(owner, projectId)).map((s) => s.status)).toEqual(['PROVISIONING']);
  });
});

describe('power actions', () => {
  it('move a server through every state, answering PROVISIONING until the provider has applied them', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    const steps: Array<[string, string]> = [
      ['power_off', 'OFF'],
      ['power_on', 'RUNNING'],
      ['shutdown', 'OFF'],
      ['power_cycle', 'RUNNING'],
      ['reboot', 'RUNNING'],
      ['power_cycle', 'RUNNING'],
    ];
    for (const [name, lands] of steps) {
      const sent = await action(owner, projectId, id, name);
      expect(sent.status, name).toBe(200);
      expect(sent.data).toMatchObject({ id, status: 'PROVISIONING' });
      expect((await listServers(owner, projectId))[0]!.status, name).toBe(lands);
    }
    // A single read settles the server too, not only the list.
    await action(owner, projectId, id, 'power_off');
    expect((await getServer(owner, projectId, id)).status).toBe('OFF');
    await action(owner, projectId, id, 'power_cycle');
    expect((await getServer(owner, projectId, id)).status).toBe('RUNNING');
  });

  it('stay PROVISIONING for as long as the provider takes', async () => {
    configureInfra({ INFRA_SIM_ACTION_SECONDS: '1' });
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    await action(owner, projectId, id, 'power_off');
    expect((await listServers(owner, projectId))[0]!.status).toBe('PROVISIONING');
    await sleep(1100);
    expect((await listServers(owner, projectId))[0]!.status).toBe('OFF');
  });

  it("wait for the action's result: a machine the provider still shows as before does not settle the server", async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    await action(owner, projectId, id, 'power_off');
    const provider = getInfraProvider();
    const [machine] = await provider.getMachines(projectId, [(await simulatedMachines()).find((m) => m.reference === id)!.id]);
    vi.spyOn(provider, 'getMachines').mockResolvedValueOnce([{ ...machine!, status: 'active', locked: false }]);
    expect((await listServers(owner, projectId))[0]!.status).toBe('PROVISIONING');
    expect((await listServers(owner, projectId))[0]!.status).toBe('OFF');
  });

  it.each([
    ['RUNNING', 'power_on', /already running/],
    ['OFF', 'power_off', /not running/],
    ['OFF', 'shutdown', /not running/],
    ['OFF', 'reboot', /not running/],
  ])('answer 409 for a %s server sent %s, and change nothing', async (state, name, message) => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    if (state === 'OFF') {
      await action(owner, projectId, id, 'power_off');
      await listServers(owner, projectId);
    }
    const before = await getServer(owner, projectId, id);
    expect(before.status).toBe(state);
    const events = await queryRows(sql`select id from events where project_id = ${projectId}`);
    const refused = await action(owner, projectId, id, name);
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body && !refused.body.success && refused.body.error.message).toMatch(message);
    expect(await getServer(owner, projectId, id)).toEqual(before);
    expect(await queryRows(sql`select id from events where project_id = ${projectId}`)).toEqual(events);
  });

  it('answer 409 to every action while the server is PROVISIONING', async () => {
    configureInfra({ INFRA_SIM_PROVISION_SECONDS: '30' });
    const { owner, projectId } = await paidProject();
    await createServerCall(owner, projectId);
    const [server] = await listServers(owner, projectId);
    for (const name of ['power_on', 'power_off', 'shutdown', 'reboot', 'power_cycle']) {
      const refused = await action(owner, projectId, server!.id, name);
      expectError(refused, 409, 'CONFLICT');
      expect(refused.body && !refused.body.success && refused.body.error.message).toMatch(/PROVISIONING/);
    }
  });

  it('answer 502 and change nothing when the provider fails; 422 for an unknown action', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    expectError(await action(owner, projectId, id, 'hibernate'), 422, 'VALIDATION_ERROR');
    configureInfra({ INFRA_SIM_FAIL: 'action' });
    expectError(await action(owner, projectId, id, 'reboot'), 502, 'UPSTREAM_ERROR');
    expect((await getServer(owner, projectId, id)).status).toBe('RUNNING');
  });
});

describe('rename', () => {
  it('renames at the provider and here; 409 for a taken name', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId, { name: 'old' });
    await createServer(owner, projectId, { name: 'other' });
    const renamed = await api<ServerData>('PATCH', serverUrl(projectId, id), { cookie: owner.cookie, body: { name: 'new' } });
    expect(renamed.data).toMatchObject({ id, name: 'new' });
    expect((await simulatedMachines()).find((m) => m.reference === id)?.name).toBe('new');
    expectError(await api('PATCH', serverUrl(projectId, id), { cookie: owner.cookie, body: { name: 'other' } }), 409, 'CONFLICT');
    expectError(await api('PATCH', serverUrl(projectId, id), { cookie: owner.cookie, body: { name: 'Bad Name' } }), 422, 'VALIDATION_ERROR');
  });

  it('keeps the old name on both sides when the provider fails (502)', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId, { name: 'keep' });
    configureInfra({ INFRA_SIM_FAIL: 'rename' });
    expectError(await api('PATCH', serverUrl(projectId, id), { cookie: owner.cookie, body: { name: 'lost' } }), 502, 'UPSTREAM_ERROR');
    expect((await getServer(owner, projectId, id)).name).toBe('keep');
    expect((await simulatedMachines()).find((m) => m.reference === id)?.name).toBe('keep');
  });
});

describe('delete', () => {
  it('keeps the server visible on a provider failure, then finishes on retry and stops billing', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId, { name: 'doomed' });
    configureInfra({ INFRA_SIM_FAIL: 'delete' });
    expectError(await api('DELETE', serverUrl(projectId, id), { cookie: owner.cookie }), 502, 'UPSTREAM_ERROR');
    expect((await listServers(owner, projectId)).map((s) => [s.name, s.status])).toEqual([['doomed', 'RUNNING']]);
    expect((await serverRows(projectId))[0]).toMatchObject({ terminated_at: null, delete_requested_at: expect.anything() });
    expect((await billingItemsOf(projectId))[0]!.ended_at).toBeNull();
    expectError(await action(owner, projectId, id, 'reboot'), 409, 'CONFLICT');

    configureInfra({ INFRA_SIM_FAIL: '' });
    const done = await api('DELETE', serverUrl(projectId, id), { cookie: owner.cookie });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ success: true, data: {} });
    expect(await listServers(owner, projectId)).toEqual([]);
    expect((await billingItemsOf(projectId))[0]!.ended_at).not.toBeNull();
    expect((await simulatedMachines()).find((m) => m.reference === id)?.deleted_at).not.toBeNull();
    expectError(await api('GET', serverUrl(projectId, id), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', serverUrl(projectId, id), { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });

  it('holds project deletion back while a server remains', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    const refused = await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body && !refused.body.success && refused.body.error.message).toContain('1 server');
    await api('DELETE', serverUrl(projectId, id), { cookie: owner.cookie });
    expect((await api('DELETE', `/v1/projects/${projectId}`, { cookie: owner.cookie })).status).toBe(200);
  });
});

describe('reading servers', () => {
  it('answers 404 for unknown servers and for servers of another project', async () => {
    const { owner, projectId } = await paidProject();
    const { id } = await createServer(owner, projectId);
    const other = await createProject(owner);
    expectError(await api('GET', serverUrl(projectId, 'srv_nothing'), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('GET', serverUrl(other.projectId, id), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('PATCH', serverUrl(other.projectId, id), { cookie: owner.cookie, body: { name: 'x' } }), 404, 'NOT_FOUND');
  });

  it('lists newest first and keeps showing the keys a server was created with after they are deleted', async () => {
    const { owner, projectId } = await paidProject();
    const key = await registerKey(owner, projectId, 'ci');
    const first = await createServer(owner, projectId, { name: 'first', sshKeyIds: [key.id] });
    const second = await createServer(owner, projectId, { name: 'second', sshKeyIds: [key.id] });
    await createServer(owner, projectId, { name: 'third' });
    expect((await listServers(owner, projectId)).map((s) => s.name)).toEqual(['third', 'second', 'first']);

    await api('DELETE', serverUrl(projectId, first.id), { cookie: owner.cookie });
    const removed = await api<DeletedSshKey>('DELETE', `/v1/projects/${projectId}/ssh-keys/${key.id}`, { cookie: owner.cookie });
    expect(removed.data).toEqual({ stillAuthorisedOn: 1 });
    expect((await getServer(owner, projectId, second.id)).sshKeys).toEqual([{ id: key.id, name: 'ci', fingerprint: key.fingerprint }]);
  });
});

describe('reading servers at a droplet provider', () => {
  let fake: FakeDroplets;

  beforeEach(async () => {
    fake = await startFakeDroplets({ settings: { activeAfterReads: 2 }, catalogue: { images: [LAMP_DROPLET_IMAGE] } });
    configureInfra({ INFRA_PROVIDER: 'droplets', INFRA_API_URL: fake.url, INFRA_API_TOKEN: fake.token });
    return async () => {
      configureInfra({ INFRA_PROVIDER: 'simulator' });
      await fake.close();
    };
  });

  const dropletsOf = (projectId: string) => fake.droplets().filter((d) => d.tags.includes(`project:${projectId}`));
  const listingsSince = (start: number) => fake.requests.slice(start).filter((r) => r.method === 'GET' && r.path.startsWith('/v2/droplets'));

  it("asks the provider for the project's own machines only, by its tag, never for the whole account", async () => {
    const a = await paidProject();
    const b = await paidProject();
    await createServerCall(a.owner, a.projectId, { name: 'a-one' });
    await createServerCall(a.owner, a.projectId, { name: 'a-two' });
    await createServerCall(b.owner, b.projectId, { name: 'b-one' });
    expect(dropletsOf(a.projectId)).toHaveLength(2);
    expect(dropletsOf(b.projectId)).toHaveLength(1);

    const start = fake.requests.length;
    expect((await listServers(a.owner, a.projectId)).map((s) => [s.name, s.status])).toEqual([
      ['a-two', 'PROVISIONING'],
      ['a-one', 'PROVISIONING'],
    ]);
    expect((await listServers(a.owner, a.projectId)).map((s) => s.status)).toEqual(['RUNNING', 'RUNNING']);
    expect(listingsSince(start).map((r) => [r.path, r.query.tag_name])).toEqual([
      ['/v2/droplets', `project:${a.projectId}`],
      ['/v2/droplets', `project:${a.projectId}`],
    ]);
    // Project A's reads never touched B's machine: it is still as B left it.
    expect(dropletsOf(b.projectId).map((d) => [d.status, d.reads])).toEqual([['new', 0]]);

    const fromB = fake.requests.length;
    expect((await listServers(b.owner, b.projectId)).map((s) => s.name)).toEqual(['b-one']);
    expect(listingsSince(fromB).map((r) => r.query.tag_name)).toEqual([`project:${b.projectId}`]);
  });

  it('settles servers nobody reads with one tagged listing per project', async () => {
    const a = await paidProject();
    const b = await paidProject();
    await createServerCall(a.owner, a.projectId, { name: 'a-one' });
    await createServerCall(b.owner, b.projectId, { name: 'b-one' });
    const start = fake.requests.length;
    await reconcileProvisioningServers();
    expect(await reconcileProvisioningServers()).toBeGreaterThanOrEqual(2);
    expect((await listServers(a.owner, a.projectId)).map((s) => s.status)).toEqual(['RUNNING']);
    expect((await listServers(b.owner, b.projectId)).map((s) => s.status)).toEqual(['RUNNING']);
    const listings = listingsSince(start).filter((r) => r.path === '/v2/droplets');
    expect(listings.filter((r) => r.query.tag_name === undefined)).toEqual([]);
    expect(listings.map((r) => r.query.tag_name)).toEqual(expect.arrayContaining([`project:${a.projectId}`, `project:${b.projectId}`]));
    expect(new Set(listings.map((r) => r.query.tag_name)).size).toBe(listings.length / 2);
  });
});

describe.each(['simulator', 'droplets'] as const)('orphaned machines, with the %s provider', (kind) => {
  /** The live machine made for a reference (a server's id), as the provider itself holds it. */
  let liveMachine: (reference: string) => Promise<string | undefined>;

  beforeEach(async () => {
    if (kind === 'simulator') {
      liveMachine = async (reference) => (await simulatedMachines()).find((m) => m.reference === reference && m.deleted_at === null)?.id;
      return;
    }
    const fake = await startFakeDroplets({ settings: { activeAfterReads: 1 }, catalogue: { images: [LAMP_DROPLET_IMAGE] } });
    configureInfra({ INFRA_PROVIDER: 'droplets', INFRA_API_URL: fake.url, INFRA_API_TOKEN: fake.token });
    liveMachine = async (reference) =>
      fake
        .droplets()
        .find((d) => d.tags.includes(reference))
        ?.id.toString();
    return async () => {
      configureInfra({ INFRA_PROVIDER: 'simulator' });
      await fake.close();
    };
  });

  it('deletes a machine whose creation stopped before its server was recorded, once the grace period is over, and nothing else', async () => {
    expect(JOBS.find((j) => j.name === DELETE_ORPHANED_MACHINES)?.cron).toBeDefined();
    const { owner, projectId } = await paidProject();
    const recorded = await createServer(owner, projectId, { name: 'recorded' });

    const provider = getInfraProvider();
    const create = provider.createMachine.bind(provider);
    let crashedReference!: string;
    let machineMade!: () => void;
    const made = new Promise<void>((resolve) => (machineMade = resolve));
    // The process stops once the machine exists: the creation never comes back to record its server.
    vi.spyOn(provider, 'createMachine').mockImplementationOnce(async (input) => {
      crashedReference = input.reference;
      await create(input);
      machineMade();
      return new Promise<never>(() => {});
    });
    void createServerCall(owner, projectId, { name: 'crashed' });
    await made;

    // The provider's timestamps may be whole seconds: the creation in flight starts a second later.
    await sleep(1100);
    const inFlightReference = newId('srv');
    const inFlight = await create({
      name: 'in-flight',
      region: 'fra1',
      size: 's-1vcpu-1gb',
      image: 'lamp',
      sshPublicKeys: [],
      reference: inFlightReference,
      project: projectId,
    });
    const justInsideGrace = new Date(Date.parse(inFlight.createdAt) + ORPHANED_AFTER_MS);

    for (const reference of [recorded.id, crashedReference, inFlightReference]) expect(await liveMachine(reference)).toBeDefined();
    expect(await deleteOrphanedMachines({ olderThanMs: ORPHANED_AFTER_MS, now: justInsideGrace })).toBe(1);
    expect(await liveMachine(crashedReference)).toBeUndefined();
    expect(await liveMachine(recorded.id)).toBeDefined();
    expect(await liveMachine(inFlightReference)).toBeDefined();
    expect((await listServers(owner, projectId)).map((s) => s.name)).toEqual(['recorded']);

    // Billing settles the money side of the same crash: the charge is refunded.
    await reconcileAbandonedPurchases({ olderThanMs: 0 });
    expect(await queryRows(sql`select resource_key, status from purchases where project_id = ${projectId} order by resource_key`)).toEqual([
      { resource_key: 'crashed', status: 'refunded' },
      { resource_key: 'recorded', status: 'completed' },
    ]);
  });
});

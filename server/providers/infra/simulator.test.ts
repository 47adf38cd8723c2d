import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../../test/db';
import { getConfig, resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { HOURS_PER_MONTH, InfraSimulator, simulatedAddress } from './simulator';
import type { CreateMachineInput } from './types';

function configure(env: Record<string, string>): void {
  Object.assign(process.env, env);
  resetConfigForTests();
}

const T0 = new Date('2026-06-10T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let counter = 0;
function machineInput(overrides: Partial<CreateMachineInput> = {}): CreateMachineInput {
  counter += 1;
  return {
    name: `web-${counter}`,
    region: 'fra1',
    size: 's-1vcpu-1gb',
    image: 'lamp',
    sshPublicKeys: [],
    reference: `srv_test${counter}`,
    project: PROJECT,
    ...overrides,
  };
}

const PROJECT = 'prj_simulated';

async function machine(sim: InfraSimulator, id: string) {
  const [found] = await sim.getMachines(PROJECT, [id]);
  return found ?? null;
}

async function expectCode(promise: Promise<unknown>, code: string, message?: RegExp) {
  await expect(promise).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === code && (!message || message.test(err.message)));
}

beforeEach(() => {
  configure({ INFRA_SIM_PROVISION_SECONDS: '20', INFRA_SIM_ACTION_SECONDS: '5', INFRA_SIM_FAIL: '' });
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('infrastructure simulator: machines', () => {
  it('boots for INFRA_SIM_PROVISION_SECONDS: new, locked and without an address, then active with a stable documentation address', async () => {
    const sim = new InfraSimulator();
    const created = await sim.createMachine(machineInput());
    expect(created).toMatchObject({ status: 'new', locked: true, publicIpv4: null, region: 'fra1', size: 's-1vcpu-1gb', image: 'lamp' });

    vi.setSystemTime(at(19));
    expect(await machine(sim, created.id)).toMatchObject({ status: 'new', locked: true, publicIpv4: null });

    vi.setSystemTime(at(20));
    const booted = await machine(sim, created.id);
    expect(booted).toMatchObject({ status: 'active', locked: false, publicIpv4: simulatedAddress(created.id) });
    expect(booted!.publicIpv4).toMatch(/^(203\.0\.113|198\.51\.100)\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/);
  });

  it('keeps its state in PostgreSQL: another instance (another process) sees the same machine', async () => {
    const created = await new InfraSimulator().createMachine(machineInput());
    vi.setSystemTime(at(30));
    expect(await machine(new InfraSimulator(), created.id)).toMatchObject({ id: created.id, status: 'active' });
  });

  it('returns the first machine for a retried creation with the same reference', async () => {
    const sim = new InfraSimulator();
    const input = machineInput({ reference: 'srv_retried' });
    const first = await sim.createMachine(input);
    const again = await sim.createMachine({ ...input, name: 'other' });
    expect(again.id).toBe(first.id);
    expect((await sim.listMachines(input.reference)).map((m) => [m.id, m.name])).toEqual([[first.id, input.name]]);
  });

  it('lists the live machines whose reference starts with a prefix, with their reference', async () => {
    const sim = new InfraSimulator();
    const tag = `t${++counter}`;
    const kept = await sim.createMachine(machineInput({ reference: `lst_${tag}_a` }));
    const deleted = await sim.createMachine(machineInput({ reference: `lst_${tag}_b` }));
    await sim.deleteMachine(deleted.id);
    // `_` is matched as itself, not as any character.
    await sim.createMachine(machineInput({ reference: `lstx${tag}_c` }));

    const listed = await sim.listMachines(`lst_${tag}`);
    expect(listed).toEqual([{ ...kept, reference: `lst_${tag}_a` }]);
    expect(await sim.listMachines('nothing_')).toEqual([]);
  });

  it('refuses what its catalogue does not sell', async () => {
    const sim = new InfraSimulator();
    await expectCode(sim.createMachine(machineInput({ region: 'mars1' })), 'UPSTREAM_ERROR', /region mars1/);
    await expectCode(sim.createMachine(machineInput({ size: 's-1vcpu-512mb-10gb', region: 'syd1' })), 'UPSTREAM_ERROR', /not sold in syd1/);
    await expectCode(sim.createMachine(machineInput({ size: 's-1vcpu-512mb-10gb', region: 'fra1' })), 'UPSTREAM_ERROR', /needs 25 GB/);
    await expectCode(sim.createMachine(machineInput({ image: 'windows' })), 'UPSTREAM_ERROR', /image windows/);
  });

  it('applies power actions over INFRA_SIM_ACTION_SECONDS, one at a time, refusing those that do not fit', async () => {
    const sim = new InfraSimulator();
    const { id } = await sim.createMachine(machineInput());
    await expectCode(sim.performAction(id, 'reboot'), 'CONFLICT', /pending action/);

    vi.setSystemTime(at(20));
    await expectCode(sim.performAction(id, 'power_on'), 'CONFLICT', /already powered on/);
    await sim.performAction(id, 'power_off');
    expect(await machine(sim, id)).toMatchObject({ status: 'active', locked: true });
    await expectCode(sim.performAction(id, 'power_cycle'), 'CONFLICT', /pending action/);

    vi.setSystemTime(at(25));
    expect(await machine(sim, id)).toMatchObject({ status: 'off', locked: false, publicIpv4: simulatedAddress(id) });
    await expectCode(sim.performAction(id, 'shutdown'), 'CONFLICT', /powered off/);
    await sim.performAction(id, 'power_on');
    vi.setSystemTime(at(30));
    expect(await machine(sim, id)).toMatchObject({ status: 'active', locked: false });
  });

  it('renames, deletes idempotently, and reports several machines in one call', async () => {
    const sim = new InfraSimulator();
    const a = await sim.createMachine(machineInput());
    const b = await sim.createMachine(machineInput());
    await sim.renameMachine(a.id, 'renamed');
    expect((await machine(sim, a.id))!.name).toBe('renamed');

    await sim.deleteMachine(b.id);
    await sim.deleteMachine(b.id);
    await sim.deleteMachine('sim_unknown');
    expect(await machine(sim, b.id)).toBeNull();
    expect((await sim.getMachines(PROJECT, [a.id, b.id, 'sim_unknown'])).map((m) => m.id)).toEqual([a.id]);
    expect(await sim.getMachines(PROJECT, [])).toEqual([]);
    await expectCode(sim.renameMachine(b.id, 'x'), 'NOT_FOUND');
    await expectCode(sim.performAction(b.id, 'reboot'), 'NOT_FOUND');
  });

  it("reads a project's machines only, in the order asked, and finds machines recorded before they carried a project", async () => {
    const sim = new InfraSimulator();
    const ours = [await sim.createMachine(machineInput()), await sim.createMachine(machineInput())];
    const theirs = await sim.createMachine(machineInput({ project: 'prj_other' }));
    const legacy = await sim.createMachine(machineInput());
    await queryRows(sql`update infra_sim_machines set project = null where id = ${legacy.id}`);

    const asked = [ours[1]!.id, theirs.id, legacy.id, ours[0]!.id];
    expect((await sim.getMachines(PROJECT, asked)).map((m) => m.id)).toEqual([ours[1]!.id, legacy.id, ours[0]!.id]);
    expect((await sim.getMachines('prj_other', asked)).map((m) => m.id)).toEqual([theirs.id, legacy.id]);
  });

  it('fails the operations named in INFRA_SIM_FAIL with UPSTREAM_ERROR, and only those', async () => {
    const sim = new InfraSimulator();
    const { id } = await sim.createMachine(machineInput());
    vi.setSystemTime(at(20));
    configure({ INFRA_SIM_FAIL: 'create,get,rename,delete,action,catalog' });
    await expectCode(sim.createMachine(machineInput()), 'UPSTREAM_ERROR');
    await expectCode(sim.getMachines(PROJECT, [id]), 'UPSTREAM_ERROR');
    await expectCode(sim.listMachines('srv_'), 'UPSTREAM_ERROR');
    await expectCode(sim.renameMachine(id, 'x'), 'UPSTREAM_ERROR');
    await expectCode(sim.deleteMachine(id), 'UPSTREAM_ERROR');
    await expectCode(sim.performAction(id, 'reboot'), 'UPSTREAM_ERROR');
    await expectCode(sim.listSizes(), 'UPSTREAM_ERROR');

    configure({ INFRA_SIM_FAIL: 'rename' });
    expect(await machine(sim, id)).toMatchObject({ name: expect.stringMatching(/^web-/), status: 'active' });
    await expectCode(sim.renameMachine(id, 'x'), 'UPSTREAM_ERROR');
  });

  it('refuses an unknown INFRA_SIM_FAIL operation at start', () => {
    configure({ INFRA_SIM_FAIL: 'create,explode' });
    expect(() => getConfig()).toThrow(/INFRA_SIM_FAIL/);
    configure({ INFRA_SIM_FAIL: '' });
  });
});

describe('infrastructure simulator: catalogue', () => {
  it('sells sizes in some regions only, prices hourly as monthly / 672 hours, and knows the one-click images', async () => {
    const sim = new InfraSimulator();
    const [sizes, regions, images, appSizes, appRegions] = await Promise.all([
      sim.listSizes(),
      sim.listRegions(),
      sim.listImages(),
      sim.listAppSizes(),
      sim.listAppRegions(),
    ]);
    const regionSlugs = regions.map((r) => r.slug);
    expect(regionSlugs).toEqual(expect.arrayContaining(['nyc1', 'nyc3', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1', 'blr1', 'syd1', 'tor1']));
    expect(regions.every((r) => /^[A-Z]{2}$/.test(r.country))).toBe(true);
    expect(sizes.find((s) => s.slug === 's-1vcpu-1gb')).toMatchObject({ priceMonthly: 600, vcpus: 1, memoryMb: 1024 });
    expect(sizes.find((s) => s.slug === 'c-4')?.priceMonthly).toBe(8400);
    for (const s of [...sizes, ...appSizes]) expect(s.priceHourly).toBeCloseTo(s.priceMonthly / HOURS_PER_MONTH, 3);
    expect(sizes.every((s) => s.regions.length > 0 && s.regions.every((r) => regionSlugs.includes(r)))).toBe(true);
    expect(sizes.some((s) => s.regions.length < regionSlugs.length)).toBe(true);
    expect(images.filter((i) => i.type === 'application').map((i) => i.slug)).toEqual(['lamp', 'docker', 'wordpress', 'postgresql']);
    expect(images.filter((i) => i.type === 'distribution').map((i) => i.slug)).toEqual(['ubuntu-24-04-x64', 'debian-12-x64', 'rockylinux-9-x64']);
    expect(appSizes.length).toBeGreaterThan(0);
    expect(appRegions.length).toBeGreaterThan(0);
  });
});

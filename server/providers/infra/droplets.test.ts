import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, startFakeDroplets, type FakeDroplets, type FakeDropletsOptions } from '../../../test/fakes/dropletsServer';
import { AppError } from '../../platform/errors';
import { DropletsInfraProvider } from './droplets';
import type { CreateMachineInput } from './types';

const started: FakeDroplets[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function setup(options: FakeDropletsOptions = {}, timeoutMs?: number) {
  const fake = await startFakeDroplets(options);
  started.push(fake);
  const infra = new DropletsInfraProvider({ apiUrl: fake.url, token: fake.token, timeoutMs });
  return { fake, infra };
}

/** An OpenSSH ed25519 public key: the type name and the key, each length-prefixed, in base64. */
function publicKey(comment = 'dev@laptop'): string {
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(randomBytes(32))]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

let counter = 0;
function machineInput(overrides: Partial<CreateMachineInput> = {}): CreateMachineInput {
  counter += 1;
  return {
    name: `web-${counter}`,
    region: 'fra1',
    size: 's-1vcpu-1gb',
    image: 'ubuntu-24-04-x64',
    sshPublicKeys: [],
    reference: `srv_${counter}_${randomBytes(4).toString('hex')}`,
    project: PROJECT,
    ...overrides,
  };
}

const PROJECT = 'prj_ours';

/** A droplet as this adapter made them before machines carried their project: its reference tag only. */
async function createUntaggedDroplet(fake: FakeDroplets): Promise<{ id: string }> {
  const res = await fetch(`${fake.url}/v2/droplets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'legacy', region: 'fra1', size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64', tags: ['srv_legacy'] }),
  });
  const { droplet } = (await res.json()) as { droplet: { id: number } };
  return { id: String(droplet.id) };
}

async function caught(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

async function machine(infra: DropletsInfraProvider, id: string) {
  const [found] = await infra.getMachines(PROJECT, [id]);
  return found ?? null;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached');
}

describe('DropletsInfraProvider: catalogue', () => {
  it('lists regions with their country, following every page with the token as bearer', async () => {
    const { fake, infra } = await setup({ maxPerPage: 2 });
    const regions = await infra.listRegions();
    expect(regions).toEqual([
      { slug: 'nyc3', name: 'New York 3', country: 'US', available: true },
      { slug: 'ams3', name: 'Amsterdam 3', country: 'NL', available: true },
      { slug: 'fra1', name: 'Frankfurt 1', country: 'DE', available: true },
      { slug: 'sgp1', name: 'Singapore 1', country: 'SG', available: true },
      { slug: 'lab1', name: 'Lab 1', country: '', available: false },
    ]);
    const calls = fake.requests.filter((r) => r.path === '/v2/regions');
    expect(calls.map((r) => r.query)).toEqual([
      { page: '1', per_page: '200' },
      { page: '2', per_page: '200' },
      { page: '3', per_page: '200' },
    ]);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(calls[0]!.headers.accept).toBe('application/json');
  });

  it('accepts the API URL with its version, as DO documents it', async () => {
    const { fake } = await setup();
    const infra = new DropletsInfraProvider({ apiUrl: `${fake.url}/v2/`, token: fake.token });
    expect(await infra.listRegions()).toHaveLength(5);
    expect(fake.requests.at(-1)?.path).toBe('/v2/regions');
  });

  it('converts size prices to cents, keeping the fraction of a cent per hour', async () => {
    const { infra } = await setup();
    const sizes = await infra.listSizes();
    expect(sizes[0]).toEqual({
      slug: 's-1vcpu-1gb',
      description: 'Basic',
      vcpus: 1,
      memoryMb: 1024,
      diskGb: 25,
      transferTb: 1,
      priceMonthly: 600,
      priceHourly: 0.893,
      regions: ['nyc3', 'ams3', 'fra1', 'sgp1'],
      available: true,
    });
    expect(sizes.map((s) => [s.slug, s.priceMonthly, s.priceHourly])).toEqual([
      ['s-1vcpu-1gb', 600, 0.893],
      ['s-2vcpu-4gb', 2400, 3.571],
      ['c-4', 8400, 12.5],
    ]);
  });

  it('lists distribution and application images by filter, across pages, skipping images without a slug', async () => {
    const image = (listedAs: 'distribution' | 'application', id: number, slug: string | null, type: string) => ({
      listedAs,
      image: { id, name: `Image ${id}`, distribution: 'Fedora', slug, public: true, regions: ['fra1'], min_disk_size: id === 3 ? null : 10, type },
    });
    const { fake, infra } = await setup({
      maxPerPage: 2,
      catalogue: {
        images: [
          image('distribution', 1, 'fedora-40-x64', 'base'),
          image('distribution', 2, 'fedora-41-x64', 'base'),
          image('distribution', 3, 'fedora-42-x64', 'base'),
          image('application', 4, 'docker-20-04', 'snapshot'),
          image('application', 5, null, 'snapshot'),
        ],
      },
    });

    const images = await infra.listImages();
    expect(images).toEqual([
      { slug: 'fedora-40-x64', name: 'Image 1', type: 'distribution', distribution: 'Fedora', description: '', minDiskGb: 10, regions: ['fra1'] },
      { slug: 'fedora-41-x64', name: 'Image 2', type: 'distribution', distribution: 'Fedora', description: '', minDiskGb: 10, regions: ['fra1'] },
      { slug: 'fedora-42-x64', name: 'Image 3', type: 'distribution', distribution: 'Fedora', description: '', minDiskGb: 0, regions: ['fra1'] },
      { slug: 'docker-20-04', name: 'Image 4', type: 'application', distribution: 'Fedora', description: '', minDiskGb: 10, regions: ['fra1'] },
    ]);
    const walks = fake.requests.filter((r) => r.path === '/v2/images').map((r) => `${r.query.type}:${r.query.page}`);
    expect(walks.sort()).toEqual(['application:1', 'distribution:1', 'distribution:2']);
  });

  it('maps the default catalogue images with their descriptions', async () => {
    const { infra } = await setup();
    expect(await infra.listImages()).toContainEqual({
      slug: 'ubuntu-24-04-x64',
      name: '24.04 (LTS) x64',
      type: 'distribution',
      distribution: 'Ubuntu',
      description: 'Ubuntu 24.04 (LTS) x64',
      minDiskGb: 7,
      regions: ['nyc3', 'ams3', 'fra1', 'sgp1'],
    });
  });

  it('converts app sizes sent as strings, and app regions with their availability', async () => {
    const { infra } = await setup();
    expect(await infra.listAppSizes()).toEqual([
      { slug: 'basic-xxs', name: 'Basic XXS', cpus: 1, memoryMb: 512, priceMonthly: 500, priceHourly: 0.744048 },
      { slug: 'professional-xs', name: 'Professional XS', cpus: 1, memoryMb: 1024, priceMonthly: 1200, priceHourly: 1.785714 },
    ]);
    expect(await infra.listAppRegions()).toEqual([
      { slug: 'ams', name: 'Amsterdam', country: 'NL', available: true },
      { slug: 'nyc', name: 'New York', country: 'US', available: true },
      { slug: 'blr', name: 'Bangalore', country: 'IN', available: false },
    ]);
  });
});

describe('DropletsInfraProvider: machines', () => {
  it('registers SSH keys, creates the droplet with their fingerprints and the reference tag', async () => {
    const { fake, infra } = await setup();
    const key = publicKey('ana@laptop');
    const input = machineInput({ sshPublicKeys: [key, ` ${key} `] });
    const machine = await infra.createMachine(input);

    expect(machine).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: input.name,
      region: 'fra1',
      size: 's-1vcpu-1gb',
      image: 'ubuntu-24-04-x64',
      status: 'new',
      publicIpv4: null,
      locked: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    const keyCalls = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v2/account/keys');
    expect(keyCalls.map((r) => r.body)).toEqual([{ name: 'ana@laptop', public_key: key }]);
    const fingerprint = fingerprintOf(key);
    const create = fake.requests.find((r) => r.method === 'POST' && r.path === '/v2/droplets');
    expect(create?.headers['content-type']).toBe('application/json');
    expect(create?.body).toEqual({
      name: input.name,
      region: 'fra1',
      size: 's-1vcpu-1gb',
      image: 'ubuntu-24-04-x64',
      ssh_keys: [fingerprint],
      tags: [input.reference, `project:${PROJECT}`],
    });
    expect(fake.droplet(machine.id)).toMatchObject({ sshKeys: [fingerprint], tags: [input.reference, `project:${PROJECT}`] });
  });

  it('reuses a key the account already holds, looked up by its fingerprint', async () => {
    const { fake, infra } = await setup();
    const known = publicKey('ana@laptop');
    const fresh = publicKey();
    await infra.createMachine(machineInput({ sshPublicKeys: [known] }));
    const before = fake.requests.length;

    const machine = await infra.createMachine(machineInput({ sshPublicKeys: [known, fresh] }));

    const calls = fake.requests.slice(before);
    const lookups = calls.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/account/keys/'));
    expect(lookups.map((r) => r.path)).toEqual([`/v2/account/keys/${fingerprintOf(known)}`]);
    expect(fake.accountKeys().map((k) => k.fingerprint)).toEqual([fingerprintOf(known), fingerprintOf(fresh)]);
    expect(fake.droplet(machine.id)?.sshKeys).toEqual([fingerprintOf(known), fingerprintOf(fresh)]);
  });

  it('reports a key DO refuses as a validation error, without creating a droplet', async () => {
    const { fake, infra } = await setup();
    const err = await caught(infra.createMachine(machineInput({ sshPublicKeys: ['ssh-foo AAAA bad'] })));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe('sshPublicKeys: Key invalid, type not supported');
    expect(fake.droplets()).toEqual([]);
  });

  it('surfaces DO refusing a creation as an upstream error carrying its message', async () => {
    const { infra } = await setup();
    const err = await caught(infra.createMachine(machineInput({ region: 'sgp1', size: 'c-4' })));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider refused the request while creating the machine: Size is not available in this region.');
  });

  it('lists the machines whose reference tag starts with a prefix, across pages, with their reference', async () => {
    const { fake, infra } = await setup({ maxPerPage: 2 });
    const ours = [machineInput(), machineInput(), machineInput()];
    const created = [];
    for (const input of ours) created.push(await infra.createMachine(input));
    await infra.createMachine(machineInput({ reference: 'app_other_domain' }));
    const before = fake.requests.length;

    const listed = await infra.listMachines('srv_');

    expect(listed.map((m) => [m.id, m.reference])).toEqual(created.map((m, i) => [m.id, ours[i]!.reference]));
    expect(listed[0]).toMatchObject({ name: ours[0]!.name, region: 'fra1', status: 'new', locked: true });
    expect(fake.requests.slice(before).map((r) => [r.path, r.query])).toEqual(['1', '2'].map((page) => ['/v2/droplets', { page, per_page: '200' }]));
    expect(await infra.listMachines('db_')).toEqual([]);
  });

  it('shows provisioning progress: new and addressless, then active with a public address', async () => {
    const { infra } = await setup({ settings: { activeAfterReads: 3 } });
    const { id } = await infra.createMachine(machineInput());

    expect(await machine(infra, id)).toMatchObject({ status: 'new', locked: true, publicIpv4: null });
    expect(await machine(infra, id)).toMatchObject({ status: 'new', locked: true, publicIpv4: null });
    const active = await machine(infra, id);
    expect(active).toMatchObject({ status: 'active', locked: false, publicIpv4: '203.0.113.1' });
  });

  it('lets a machine become active with time as well as with reads', async () => {
    const { infra } = await setup({ settings: { activeAfterReads: 1_000, activeAfterMs: 30 } });
    const { id } = await infra.createMachine(machineInput());
    const active = await until(
      () => machine(infra, id),
      (m) => m?.status === 'active',
    );
    expect(active?.publicIpv4).toMatch(/^203\.0\.113\.\d+$/);
  });

  it("reads many machines with one walk over the project's tag, however many ids are asked for, never listing the account", async () => {
    const { fake, infra } = await setup({ maxPerPage: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await infra.createMachine(machineInput())).id);
    for (let i = 0; i < 5; i += 1) await infra.createMachine(machineInput({ project: 'prj_theirs' }));
    const before = fake.requests.length;

    const wanted = [ids[6]!, ids[0]!, ids[2]!, ids[3]!];
    const machines = await infra.getMachines(PROJECT, wanted);

    expect(machines.map((m) => m.id)).toEqual(wanted);
    const calls = fake.requests.slice(before);
    expect(calls.map((r) => [r.method, r.path, r.query])).toEqual(
      ['1', '2', '3', '4'].map((page) => ['GET', '/v2/droplets', { tag_name: `project:${PROJECT}`, page, per_page: '200' }]),
    );

    const again = fake.requests.length;
    await infra.getMachines(PROJECT, [ids[1]!]);
    expect(fake.requests.length - again).toBe(4);
    await infra.getMachines(PROJECT, []);
    expect(fake.requests.length - again).toBe(4);
  });

  it("never returns another project's machine, and reads machines made before they carried a project by id", async () => {
    const { fake, infra } = await setup({ maxPerPage: 2 });
    const ours = await infra.createMachine(machineInput());
    const theirs = await infra.createMachine(machineInput({ project: 'prj_theirs' }));
    const legacy = await createUntaggedDroplet(fake);
    const before = fake.requests.length;

    const machines = await infra.getMachines(PROJECT, [theirs.id, legacy.id, ours.id, '99999999']);

    expect(machines.map((m) => m.id)).toEqual([legacy.id, ours.id]);
    expect(fake.requests.slice(before).map((r) => [r.path, r.query.tag_name ?? null])).toEqual([
      ['/v2/droplets', `project:${PROJECT}`],
      [`/v2/droplets/${theirs.id}`, null],
      [`/v2/droplets/${legacy.id}`, null],
      ['/v2/droplets/99999999', null],
    ]);
    expect((await infra.getMachines('prj_theirs', [theirs.id, ours.id])).map((m) => m.id)).toEqual([theirs.id]);
  });

  it('renames through a rename action, locking the machine until it is applied', async () => {
    const { fake, infra } = await setup({ settings: { activeAfterReads: 1, actionDelayMs: 200 } });
    const { id } = await infra.createMachine(machineInput());
    await machine(infra, id);

    await infra.renameMachine(id, 'api-1');
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v2/droplets/${id}/actions`, body: { type: 'rename', name: 'api-1' } });
    expect(await machine(infra, id)).toMatchObject({ locked: true });
    const renamed = await until(
      () => machine(infra, id),
      (m) => m?.locked === false,
    );
    expect(renamed?.name).toBe('api-1');
  });

  it('sends each power action by type and applies it after a delay', async () => {
    const { fake, infra } = await setup({ settings: { activeAfterReads: 1, actionDelayMs: 5 } });
    const { id } = await infra.createMachine(machineInput());
    await machine(infra, id);
    const settle = () =>
      until(
        () => machine(infra, id),
        (m) => m?.locked === false,
      );

    const steps = [
      ['power_off', 'off'],
      ['power_on', 'active'],
      ['reboot', 'active'],
      ['shutdown', 'off'],
      ['power_cycle', 'active'],
    ] as const;
    for (const [action, status] of steps) {
      await infra.performAction(id, action);
      expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v2/droplets/${id}/actions`, body: { type: action } });
      expect((await settle())?.status).toBe(status);
    }
  });

  it('turns DO refusing an action for the machine state into a conflict with its message', async () => {
    const { fake, infra } = await setup({ settings: { activeAfterReads: 1, actionDelayMs: 5 } });
    const { id } = await infra.createMachine(machineInput());

    const whileCreating = await caught(infra.performAction(id, 'reboot'));
    expect(whileCreating.code).toBe('CONFLICT');
    expect(whileCreating.message).toBe('Droplet already has a pending event.');

    await machine(infra, id);
    fake.settings.actionDelayMs = 0;
    await infra.performAction(id, 'power_off');
    const again = await caught(infra.performAction(id, 'power_off'));
    expect(again.code).toBe('CONFLICT');
    expect(again.message).toBe('Droplet is already powered off.');
  });

  it('reports an action or rename on an unknown machine as not found', async () => {
    const { infra } = await setup();
    expect((await caught(infra.performAction('424242', 'power_on'))).code).toBe('NOT_FOUND');
    expect((await caught(infra.renameMachine('424242', 'x'))).code).toBe('NOT_FOUND');
  });

  it('deletes a machine, and deleting one that is already gone succeeds', async () => {
    const { fake, infra } = await setup();
    const { id } = await infra.createMachine(machineInput());

    await infra.deleteMachine(id);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v2/droplets/${id}` });
    expect(fake.droplet(id)).toBeUndefined();
    expect(await machine(infra, id)).toBeNull();
    await expect(infra.deleteMachine(id)).resolves.toBeUndefined();
  });
});

describe('DropletsInfraProvider: upstream failures', () => {
  it('turns a 5xx into an upstream error naming the operation, with DO’s error as the cause', async () => {
    const { fake, infra } = await setup();
    fake.fail('GET /v2/sizes', { status: 500 });
    const err = await caught(infra.listSizes());
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.status).toBe(502);
    expect(err.message).toBe('The infrastructure provider failed while listing sizes');
    expect(String((err.cause as Error).message)).toContain('500 server_error');
  });

  it('fails a listing whose later page fails', async () => {
    const { fake, infra } = await setup({ maxPerPage: 2 });
    for (let i = 0; i < 3; i += 1) await infra.createMachine(machineInput());
    fake.fail('GET /v2/droplets', { status: 503, after: 1 });
    const before = fake.requests.length;
    expect((await caught(infra.getMachines(PROJECT, ['1']))).code).toBe('UPSTREAM_ERROR');
    expect(fake.requests.slice(before).map((r) => r.query.page)).toEqual(['1', '2']);
  });

  it('fails a read of a machine by id when DO fails it', async () => {
    const { fake, infra } = await setup();
    const legacy = await createUntaggedDroplet(fake);
    fake.fail('GET /v2/droplets/:id', { status: 500 });
    const err = await caught(infra.getMachines(PROJECT, [legacy.id]));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider failed while reading a machine');
  });

  it('gives up after the timeout', async () => {
    const { fake, infra } = await setup({}, 50);
    fake.fail('GET /v2/droplets', { delayMs: 1_000 });
    const startedAt = Date.now();
    const err = await caught(infra.getMachines(PROJECT, ['1']));
    expect(Date.now() - startedAt).toBeLessThan(900);
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider did not answer within 50 ms while listing machines');
    expect(err.cause).toBeDefined();
  });

  it('reports an unreachable provider', async () => {
    const { fake, infra } = await setup();
    await fake.close();
    const err = await caught(infra.listRegions());
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider could not be reached while listing regions');
  });

  it('treats a rejected token as our failure, never echoing the token', async () => {
    const { fake } = await setup();
    const token = `dop_v1_${randomBytes(16).toString('hex')}`;
    const infra = new DropletsInfraProvider({ apiUrl: fake.url, token });
    const err = await caught(infra.createMachine(machineInput({ sshPublicKeys: [publicKey()] })));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider refused our credentials while registering an SSH key');
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
    for (let current: unknown = err; current; current = (current as { cause?: unknown }).cause) {
      expect(String((current as Error).message)).not.toContain(token);
    }
    expect(JSON.stringify(infra)).not.toContain(token);
    expect(fake.droplets()).toEqual([]);
  });

  it('names the provider’s rate limit on a 429', async () => {
    const { fake, infra } = await setup();
    fake.fail('GET /v2/apps/regions', { status: 429 });
    const err = await caught(infra.listAppRegions());
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('rate limit');
  });

  it('turns a 403 on an action into an upstream error, not a conflict', async () => {
    const { fake, infra } = await setup();
    fake.fail('POST /v2/droplets/:id/actions', { status: 403 });
    expect((await caught(infra.performAction('1', 'reboot'))).code).toBe('UPSTREAM_ERROR');
  });

  it('rejects a response whose shape changed instead of crashing', async () => {
    const { fake, infra } = await setup();
    fake.fail('GET /v2/droplets', { status: 200, body: { droplets: [{ id: 'abc', status: 'provisioning' }], meta: { total: 1 } } });
    const err = await caught(infra.listMachines('srv_'));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('The infrastructure provider sent an unexpected response while listing machines');

    fake.fail('GET /v2/apps/tiers/instance_sizes', { status: 200, body: { instance_sizes: [{ slug: 'x', name: 'X', cpus: 'many' }] } });
    expect((await caught(infra.listAppSizes())).code).toBe('UPSTREAM_ERROR');

    fake.fail('GET /v2/regions', {
      status: 200,
      body: {
        regions: [{ slug: 'nyc3', name: 'New York 3', available: true }],
        links: { pages: { next: 'https://elsewhere.example/v2/regions?cursor=abc' } },
        meta: { total: 9 },
      },
    });
    expect((await caught(infra.listRegions())).code).toBe('UPSTREAM_ERROR');
  });
});

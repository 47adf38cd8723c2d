import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { getDb } from '../../../db';
import { infraSimMachines } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { getConfig, type INFRA_SIM_OPERATIONS } from '../../platform/config';
import { AppError, conflict, notFound } from '../../platform/errors';
import type {
  CreateMachineInput,
  InfraAppSize,
  InfraImage,
  InfraMachine,
  InfraProvider,
  InfraRegion,
  InfraSize,
  PowerAction,
  ReferencedMachine,
} from './types';

type SimulatedOperation = (typeof INFRA_SIM_OPERATIONS)[number];
type MachineRow = typeof infraSimMachines.$inferSelect;

/** Hours in a billing month for hourly prices: the provider bills 4 weeks at most per month. */
export const HOURS_PER_MONTH = 672;

const REGIONS: InfraRegion[] = [
  { slug: 'nyc1', name: 'New York 1', country: 'US', available: true },
  { slug: 'nyc3', name: 'New York 3', country: 'US', available: true },
  { slug: 'sfo3', name: 'San Francisco 3', country: 'US', available: true },
  { slug: 'tor1', name: 'Toronto 1', country: 'CA', available: true },
  { slug: 'lon1', name: 'London 1', country: 'GB', available: true },
  { slug: 'ams3', name: 'Amsterdam 3', country: 'NL', available: true },
  { slug: 'fra1', name: 'Frankfurt 1', country: 'DE', available: true },
  { slug: 'blr1', name: 'Bangalore 1', country: 'IN', available: true },
  { slug: 'sgp1', name: 'Singapore 1', country: 'SG', available: true },
  { slug: 'syd1', name: 'Sydney 1', country: 'AU', available: true },
];
const EVERY_REGION = REGIONS.map((r) => r.slug);

function defineSize(
  slug: string,
  description: string,
  vcpus: number,
  memoryMb: number,
  diskGb: number,
  transferTb: number,
  priceMonthly: number,
  regions: string[] = EVERY_REGION,
): InfraSize {
  return { slug, description, vcpus, memoryMb, diskGb, transferTb, priceMonthly, priceHourly: hourly(priceMonthly), regions, available: true };
}

const SIZES: InfraSize[] = [
  defineSize('s-1vcpu-512mb-10gb', 'Basic', 1, 512, 10, 0.5, 400, ['nyc1', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1']),
  defineSize('s-1vcpu-1gb', 'Basic', 1, 1024, 25, 1, 600),
  defineSize('s-1vcpu-2gb', 'Basic', 1, 2048, 50, 2, 1200),
  defineSize('s-2vcpu-2gb', 'Basic', 2, 2048, 60, 3, 1800),
  defineSize('s-2vcpu-4gb', 'Basic', 2, 4096, 80, 4, 2400),
  defineSize('s-4vcpu-8gb', 'Basic', 4, 8192, 160, 5, 4800),
  defineSize('s-8vcpu-16gb', 'Basic', 8, 16_384, 320, 6, 9600),
  defineSize('g-2vcpu-8gb', 'General Purpose', 2, 8192, 25, 4, 6300, ['nyc1', 'nyc3', 'sfo3', 'tor1', 'ams3', 'fra1', 'sgp1']),
  defineSize('c-4', 'CPU-Optimized', 4, 8192, 50, 5, 8400, ['nyc1', 'nyc3', 'sfo3', 'tor1', 'lon1', 'ams3', 'fra1']),
];

const IMAGES: InfraImage[] = [
  {
    slug: 'ubuntu-24-04-x64',
    name: 'Ubuntu 24.04 (LTS) x64',
    type: 'distribution',
    distribution: 'Ubuntu',
    description: 'Ubuntu 24.04 LTS',
    minDiskGb: 7,
    regions: EVERY_REGION,
  },
  {
    slug: 'debian-12-x64',
    name: 'Debian 12 x64',
    type: 'distribution',
    distribution: 'Debian',
    description: 'Debian 12 (bookworm)',
    minDiskGb: 7,
    regions: EVERY_REGION,
  },
  {
    slug: 'rockylinux-9-x64',
    name: 'Rocky Linux 9 x64',
    type: 'distribution',
    distribution: 'Rocky Linux',
    description: 'Rocky Linux 9',
    minDiskGb: 10,
    regions: EVERY_REGION,
  },
  {
    slug: 'lamp',
    name: 'LAMP on Ubuntu 24.04',
    type: 'application',
    distribution: 'Ubuntu',
    description: 'Apache 2.4, PHP 8.3 and PostgreSQL 16 on Ubuntu 24.04, with a database and role created at first boot',
    minDiskGb: 25,
    regions: EVERY_REGION,
  },
  {
    slug: 'docker',
    name: 'Docker on Ubuntu 24.04',
    type: 'application',
    distribution: 'Ubuntu',
    description: 'Docker Engine and the Compose plugin on Ubuntu 24.04',
    minDiskGb: 25,
    regions: EVERY_REGION,
  },
  {
    slug: 'wordpress',
    name: 'WordPress on Ubuntu 24.04',
    type: 'application',
    distribution: 'Ubuntu',
    description: 'WordPress with Apache, PHP 8.3 and MySQL 8 on Ubuntu 24.04',
    minDiskGb: 25,
    regions: EVERY_REGION,
  },
  {
    slug: 'postgresql',
    name: 'PostgreSQL 16 on Ubuntu 24.04',
    type: 'application',
    distribution: 'Ubuntu',
    description: 'PostgreSQL 16 listening on a private interface',
    minDiskGb: 25,
    regions: EVERY_REGION,
  },
];

function defineAppSize(slug: string, name: string, cpus: number, memoryMb: number, priceMonthly: number): InfraAppSize {
  return { slug, name, cpus, memoryMb, priceMonthly, priceHourly: hourly(priceMonthly) };
}

const APP_SIZES: InfraAppSize[] = [
  defineAppSize('apps-s-1vcpu-0.5gb', 'Shared 1 vCPU, 512 MB', 1, 512, 500),
  defineAppSize('apps-s-1vcpu-1gb', 'Shared 1 vCPU, 1 GB', 1, 1024, 1200),
  defineAppSize('apps-s-1vcpu-2gb', 'Shared 1 vCPU, 2 GB', 1, 2048, 2500),
  defineAppSize('apps-s-2vcpu-4gb', 'Shared 2 vCPUs, 4 GB', 2, 4096, 5000),
  defineAppSize('apps-d-1vcpu-4gb', 'Dedicated 1 vCPU, 4 GB', 1, 4096, 7800),
  defineAppSize('apps-d-2vcpu-8gb', 'Dedicated 2 vCPUs, 8 GB', 2, 8192, 15_600),
];

const APP_REGIONS: InfraRegion[] = [
  { slug: 'nyc', name: 'New York', country: 'US', available: true },
  { slug: 'sfo', name: 'San Francisco', country: 'US', available: true },
  { slug: 'tor', name: 'Toronto', country: 'CA', available: true },
  { slug: 'lon', name: 'London', country: 'GB', available: true },
  { slug: 'ams', name: 'Amsterdam', country: 'NL', available: true },
  { slug: 'fra', name: 'Frankfurt', country: 'DE', available: true },
  { slug: 'blr', name: 'Bangalore', country: 'IN', available: true },
  { slug: 'sgp', name: 'Singapore', country: 'SG', available: true },
  { slug: 'syd', name: 'Sydney', country: 'AU', available: true },
];

/**
 * The embedded infrastructure provider: a small model of a droplet API whose machines live in
 * PostgreSQL. Nothing runs on a timer: a machine's status is worked out from its timestamps each
 * time it is read (first boot takes INFRA_SIM_PROVISION_SECONDS, an action
 * INFRA_SIM_ACTION_SECONDS), so every process sees the same machine, restarts included.
 * INFRA_SIM_FAIL makes chosen operations fail the way an unreachable provider would.
 */
export class InfraSimulator implements InfraProvider {
  readonly kind = 'simulator' as const;

  async listRegions(): Promise<InfraRegion[]> {
    failIfInjected('catalog');
    return structuredClone(REGIONS);
  }

  async listSizes(): Promise<InfraSize[]> {
    failIfInjected('catalog');
    return structuredClone(SIZES);
  }

  async listImages(): Promise<InfraImage[]> {
    failIfInjected('catalog');
    return structuredClone(IMAGES);
  }

  async listAppSizes(): Promise<InfraAppSize[]> {
    failIfInjected('catalog');
    return structuredClone(APP_SIZES);
  }

  async listAppRegions(): Promise<InfraRegion[]> {
    failIfInjected('catalog');
    return structuredClone(APP_REGIONS);
  }

  async createMachine(input: CreateMachineInput): Promise<InfraMachine> {
    failIfInjected('create');
    refuseUnsellable(input);
    const db = await getDb();
    const now = new Date();
    // References are unique here, so a second creation for one reference gets the machine the
    // first one made rather than a constraint violation.
    await db
      .insert(infraSimMachines)
      .values({
        id: newId('sim'),
        reference: input.reference,
        project: input.project,
        name: input.name,
        region: input.region,
        size: input.size,
        image: input.image,
        sshPublicKeys: input.sshPublicKeys,
        createdAt: now,
        readyAt: new Date(now.getTime() + getConfig().INFRA_SIM_PROVISION_SECONDS * 1000),
        power: 'on',
      })
      .onConflictDoNothing({ target: infraSimMachines.reference });
    const [row] = await db.select().from(infraSimMachines).where(eq(infraSimMachines.reference, input.reference));
    if (!row || row.deletedAt) throw new AppError('UPSTREAM_ERROR', `The machine for ${input.reference} was deleted while it was being created`);
    return toMachine(row, new Date());
  }

  async listMachines(referencePrefix: string): Promise<ReferencedMachine[]> {
    failIfInjected('get');
    const db = await getDb();
    const rows = await db
      .select()
      .from(infraSimMachines)
      // Not LIKE: `_`, which every id prefix ends with, is a LIKE wildcard.
      .where(and(sql`starts_with(${infraSimMachines.reference}, ${referencePrefix})`, isNull(infraSimMachines.deletedAt)));
    const now = new Date();
    return rows.map((row) => ({ ...toMachine(row, now), reference: row.reference }));
  }

  async getMachines(project: string, ids: string[]): Promise<InfraMachine[]> {
    failIfInjected('get');
    if (ids.length === 0) return [];
    const db = await getDb();
    const rows = await db
      .select()
      .from(infraSimMachines)
      // A machine recorded before machines carried their project belongs to whoever asks by its id.
      .where(
        and(inArray(infraSimMachines.id, ids), or(eq(infraSimMachines.project, project), isNull(infraSimMachines.project)), isNull(infraSimMachines.deletedAt)),
      );
    const now = new Date();
    const byId = new Map(rows.map((row) => [row.id, toMachine(row, now)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async renameMachine(id: string, name: string): Promise<void> {
    failIfInjected('rename');
    const db = await getDb();
    const renamed = await db
      .update(infraSimMachines)
      .set({ name })
      .where(and(eq(infraSimMachines.id, id), isNull(infraSimMachines.deletedAt)))
      .returning({ id: infraSimMachines.id });
    if (renamed.length === 0) throw notFound('Machine');
  }

  async deleteMachine(id: string): Promise<void> {
    failIfInjected('delete');
    const db = await getDb();
    await db
      .update(infraSimMachines)
      .set({ deletedAt: new Date() })
      .where(and(eq(infraSimMachines.id, id), isNull(infraSimMachines.deletedAt)));
  }

  async performAction(id: string, action: PowerAction): Promise<void> {
    failIfInjected('action');
    const db = await getDb();
    const [row] = await db
      .select()
      .from(infraSimMachines)
      .where(and(eq(infraSimMachines.id, id), isNull(infraSimMachines.deletedAt)));
    if (!row) throw notFound('Machine');
    const now = new Date();
    const machine = toMachine(row, now);
    if (machine.locked) throw conflict('The machine already has a pending action');
    const current = machine.status === 'active' ? 'on' : 'off';
    if (action === 'power_on' && current === 'on') throw conflict('The machine is already powered on');
    if ((action === 'power_off' || action === 'shutdown' || action === 'reboot') && current === 'off') {
      throw conflict('The machine is powered off');
    }
    const applied = await db
      .update(infraSimMachines)
      .set({
        powerBeforeAction: current,
        power: action === 'power_off' || action === 'shutdown' ? 'off' : 'on',
        lastAction: action,
        actionCompletesAt: new Date(now.getTime() + getConfig().INFRA_SIM_ACTION_SECONDS * 1000),
      })
      // Two actions racing for one machine: only the first to get here is applied.
      .where(
        and(
          eq(infraSimMachines.id, id),
          row.actionCompletesAt ? eq(infraSimMachines.actionCompletesAt, row.actionCompletesAt) : isNull(infraSimMachines.actionCompletesAt),
        ),
      )
      .returning({ id: infraSimMachines.id });
    if (applied.length === 0) throw conflict('The machine already has a pending action');
  }
}

/**
 * A documentation-range address (RFC 5737) derived from the machine id, so a machine keeps its
 * address across reads and processes without storing it.
 */
export function simulatedAddress(machineId: string): string {
  const digest = createHash('sha256').update(machineId).digest();
  const network = (digest[0]! & 1) === 0 ? '203.0.113' : '198.51.100';
  return `${network}.${1 + (digest[1]! % 254)}`;
}

function toMachine(row: MachineRow, now: Date): InfraMachine {
  const booted = now >= row.readyAt;
  const acting = booted && row.actionCompletesAt !== null && now < row.actionCompletesAt;
  const power = acting ? (row.powerBeforeAction ?? row.power) : row.power;
  return {
    id: row.id,
    name: row.name,
    region: row.region,
    size: row.size,
    image: row.image,
    status: !booted ? 'new' : power === 'on' ? 'active' : 'off',
    publicIpv4: booted ? simulatedAddress(row.id) : null,
    locked: !booted || acting,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The provider refuses what its own catalogue does not sell, as the real API answers 422. */
function refuseUnsellable(input: CreateMachineInput): void {
  const problem = unsellableBecause(input);
  if (problem) throw new AppError('UPSTREAM_ERROR', `The infrastructure provider refused the machine: ${problem}`);
}

function unsellableBecause(input: CreateMachineInput): string | null {
  if (!REGIONS.some((r) => r.slug === input.region && r.available)) return `region ${input.region} is not available`;
  const sizeOffer = SIZES.find((s) => s.slug === input.size);
  if (!sizeOffer || !sizeOffer.regions.includes(input.region)) return `size ${input.size} is not sold in ${input.region}`;
  const image = IMAGES.find((i) => i.slug === input.image);
  if (!image || !image.regions.includes(input.region)) return `image ${input.image} is not available in ${input.region}`;
  if (image.minDiskGb > sizeOffer.diskGb) return `image ${input.image} needs ${image.minDiskGb} GB of disk`;
  return null;
}

function failIfInjected(operation: SimulatedOperation): void {
  if (getConfig().INFRA_SIM_FAIL.includes(operation)) {
    throw new AppError('UPSTREAM_ERROR', `The infrastructure provider failed (${operation}); try again shortly`);
  }
}

function hourly(priceMonthly: number): number {
  return Math.round((priceMonthly / HOURS_PER_MONTH) * 1000) / 1000;
}

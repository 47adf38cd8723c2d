import type { PowerAction } from '../../../db/schema/servers';

export { POWER_ACTIONS, type PowerAction } from '../../../db/schema/servers';

/**
 * The infrastructure provider: where servers actually run. The embedded default is a simulator
 * with the provider's real behaviour (provisioning takes time, addresses appear once a machine has
 * started, actions are asynchronous, failures can be injected); production speaks a
 * DigitalOcean-style droplet API. Every method throws AppError('UPSTREAM_ERROR') when the provider
 * fails or cannot be reached, and AppError('NOT_FOUND') for an unknown machine where noted.
 */

export interface InfraRegion {
  slug: string;
  name: string;
  /** ISO 3166-1 alpha-2 country of the data centre. */
  country: string;
  available: boolean;
}

export interface InfraSize {
  slug: string;
  description: string;
  vcpus: number;
  memoryMb: number;
  diskGb: number;
  transferTb: number;
  /** Minor units (cents) per month. */
  priceMonthly: number;
  /** Minor units per hour; may carry decimals (0.893 = $0.00893). */
  priceHourly: number;
  /** Region slugs where the size is sold. */
  regions: string[];
  available: boolean;
}

export interface InfraImage {
  slug: string;
  name: string;
  /** `distribution` for a bare operating system, `application` for a one-click image. */
  type: 'distribution' | 'application';
  distribution: string;
  description: string;
  minDiskGb: number;
  regions: string[];
}

/** App-platform instance sizes (the `apps` catalogue); priced like server sizes. */
export interface InfraAppSize {
  slug: string;
  name: string;
  cpus: number;
  memoryMb: number;
  priceMonthly: number;
  priceHourly: number;
}

export type MachineStatus = 'new' | 'active' | 'off' | 'archive';

export interface InfraMachine {
  /** The provider's id of the machine. */
  id: string;
  name: string;
  region: string;
  size: string;
  image: string;
  status: MachineStatus;
  /** Null until the machine has started. */
  publicIpv4: string | null;
  /** True while an action (creation included) is still being applied. */
  locked: boolean;
  createdAt: string;
}

export interface CreateMachineInput {
  name: string;
  region: string;
  size: string;
  image: string;
  /** OpenSSH public keys written to the machine at first boot. */
  sshPublicKeys: string[];
  /**
   * Ours, stored as a provider tag: it says what the machine was made for, so a machine whose
   * creation was never recorded on our side can still be found (`listMachines`) and deleted.
   */
  reference: string;
  /**
   * Ours as well, stored as a provider tag: the project the machine serves. A project's machines
   * are read by it (`getMachines`), so one project's reads never list everyone's machines and
   * cannot spend the provider's rate limit on them.
   */
  project: string;
}

export interface ReferencedMachine extends InfraMachine {
  reference: string;
}

export interface InfraProvider {
  readonly kind: 'simulator' | 'droplets';
  listRegions(): Promise<InfraRegion[]>;
  listSizes(): Promise<InfraSize[]>;
  listImages(): Promise<InfraImage[]>;
  listAppSizes(): Promise<InfraAppSize[]>;
  listAppRegions(): Promise<InfraRegion[]>;
  createMachine(input: CreateMachineInput): Promise<InfraMachine>;
  /**
   * Every live machine whose reference starts with the prefix, with its reference. A crash can
   * leave a machine whose reference we never wrote down, so it is found by listing, not by lookup.
   */
  listMachines(referencePrefix: string): Promise<ReferencedMachine[]>;
  /**
   * Several machines of one project (list reconciliation), in the order of `ids`, asking the
   * provider about that project's machines only. Unknown ids, and machines of another project,
   * are left out; a machine made before machines carried their project is still found by its id.
   */
  getMachines(project: string, ids: string[]): Promise<InfraMachine[]>;
  renameMachine(id: string, name: string): Promise<void>;
  /** Deleting a machine that no longer exists succeeds (deletion is retried after partial failures). */
  deleteMachine(id: string): Promise<void>;
  /** Starts an action; the machine is `locked` until it has been applied. */
  performAction(id: string, action: PowerAction): Promise<void>;
}

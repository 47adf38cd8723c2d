import { createHash, randomInt, randomUUID } from 'node:crypto';
import { createHttpFake, FakeHttpError, type Fault, type FakeResponse, type RecordedRequest } from './httpFake';

/**
 * A loopback stand-in for DigitalOcean's API v2, speaking its wire format: JSON bodies, lists
 * paginated with `links.pages` and `meta.total`, errors as `{ id, message, request_id }`. It keeps
 * the state the infrastructure adapter touches (droplets that provision and act over time, account
 * SSH keys unique by fingerprint) so the adapter is tested against DO's behaviour, not canned replies.
 */

type Json = Record<string, unknown>;

export type FakeRoute =
  | 'GET /v2/regions'
  | 'GET /v2/sizes'
  | 'GET /v2/images'
  | 'GET /v2/apps/tiers/instance_sizes'
  | 'GET /v2/apps/regions'
  | 'POST /v2/account/keys'
  | 'GET /v2/account/keys/:key'
  | 'GET /v2/droplets'
  | 'POST /v2/droplets'
  | 'GET /v2/droplets/:id'
  | 'DELETE /v2/droplets/:id'
  | 'POST /v2/droplets/:id/actions';

export interface FakeSettings {
  /** A new droplet reads as active from its Nth read on, single or listed. */
  activeAfterReads: number;
  /** …or once this long has passed since its creation, whichever comes first. */
  activeAfterMs: number;
  /** How long an action keeps its droplet locked before it takes effect. */
  actionDelayMs: number;
}

export interface FakeImage {
  /** The `type` filter that lists the image; DO's own `type` field says something else. */
  listedAs: 'distribution' | 'application';
  image: Json;
}

/** The catalogue in DO's wire format. */
export interface FakeCatalogue {
  regions: Json[];
  sizes: Json[];
  images: FakeImage[];
  appSizes: Json[];
  appRegions: Json[];
}

export type DropletStatus = 'new' | 'active' | 'off' | 'archive';

export interface PendingAction {
  id: number;
  type: string;
  name?: string;
  completesAt: number;
}

export interface FakeDroplet {
  id: number;
  name: string;
  region: string;
  size: string;
  image: string;
  status: DropletStatus;
  tags: string[];
  /** Fingerprints of the account keys installed at creation. */
  sshKeys: string[];
  publicIpv4: string | null;
  privateIpv4: string | null;
  createdAt: string;
  createdMs: number;
  reads: number;
  pending: PendingAction | null;
}

export interface FakeAccountKey {
  id: number;
  name: string;
  fingerprint: string;
  publicKey: string;
}

export interface FakeDroplets {
  url: string;
  token: string;
  requests: RecordedRequest<unknown>[];
  /** Live: a change applies from the next request on. */
  settings: FakeSettings;
  fail(route: FakeRoute, fault: Omit<Fault<unknown>, 'route'>): void;
  /** The droplet as it stands now (time-based progress applied; not counted as a read). */
  droplet(id: number | string): FakeDroplet | undefined;
  droplets(): FakeDroplet[];
  accountKeys(): FakeAccountKey[];
  close(): Promise<void>;
}

export interface FakeDropletsOptions {
  token?: string;
  /** DO caps pages at 200; a smaller cap lets a test walk several pages with a few items. */
  maxPerPage?: number;
  settings?: Partial<FakeSettings>;
  catalogue?: Partial<FakeCatalogue>;
}

const apiError = (status: number, id: string, message: string) => new FakeHttpError(status, { id, message, request_id: randomUUID() });
const unprocessable = (message: string) => apiError(422, 'unprocessable_entity', message);
const notFound = () => apiError(404, 'not_found', 'The resource you were accessing could not be found.');

const DEFAULT_ERRORS: Record<number, { id: string; message: string }> = {
  400: { id: 'bad_request', message: 'Unable to parse request body.' },
  401: { id: 'unauthorized', message: 'Unable to authenticate you' },
  403: { id: 'forbidden', message: 'You do not have access for the attempted action.' },
  404: { id: 'not_found', message: 'The resource you were accessing could not be found.' },
  422: { id: 'unprocessable_entity', message: 'The request could not be processed.' },
  429: { id: 'too_many_requests', message: 'API Rate limit exceeded.' },
  500: { id: 'server_error', message: 'Server was unable to give you a response.' },
  503: { id: 'service_unavailable', message: 'The service is temporarily unavailable.' },
};

const SUPPORTED_KEY_TYPES = new Set(['ssh-rsa', 'ssh-dss', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']);
const HOSTNAME = /^[a-zA-Z0-9.-]+$/;
const TAG_NAME = /^[a-zA-Z0-9_:-]{1,255}$/;
const POWER_ACTIONS = new Set(['power_on', 'power_off', 'shutdown', 'reboot', 'power_cycle']);

export async function startFakeDroplets(options: FakeDropletsOptions = {}): Promise<FakeDroplets> {
  const token = options.token ?? `dop_v1_${randomUUID().replace(/-/g, '')}`;
  const maxPerPage = options.maxPerPage ?? 200;
  const settings: FakeSettings = {
    activeAfterReads: 2,
    activeAfterMs: Number.POSITIVE_INFINITY,
    actionDelayMs: 20,
    ...options.settings,
  };
  const catalogue: FakeCatalogue = { ...defaultCatalogue(), ...options.catalogue };
  const droplets = new Map<number, FakeDroplet>();
  const keys = new Map<string, FakeAccountKey>();
  // Each fake is an account of its own: ids differ between fakes, so machines recorded against an
  // earlier fake in the same database are never mistaken for this one's.
  let nextDropletId = 3_000_000 + randomInt(100_000) * 10_000;
  let nextKeyId = 512_189;
  let nextActionId = 36_804_636;
  let addressesGiven = 0;
  const http = createHttpFake({
    name: 'DigitalOcean',
    parseBody: 'json',
    auth: { bearer: token },
    errorBody: ({ status, message }) => ({ ...(DEFAULT_ERRORS[status] ?? { id: 'error', message }), request_id: randomUUID() }),
  });

  const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  function advance(droplet: FakeDroplet, read: boolean): FakeDroplet {
    if (read) droplet.reads += 1;
    const now = Date.now();
    if (droplet.status === 'new' && (droplet.reads >= settings.activeAfterReads || now - droplet.createdMs >= settings.activeAfterMs)) {
      droplet.status = 'active';
      addressesGiven += 1;
      const host = ((addressesGiven - 1) % 254) + 1;
      droplet.publicIpv4 = `203.0.113.${host}`;
      droplet.privateIpv4 = `10.110.0.${host}`;
    }
    const pending = droplet.pending;
    if (pending && now >= pending.completesAt) {
      if (pending.type === 'rename' && pending.name !== undefined) droplet.name = pending.name;
      if (pending.type === 'power_off' || pending.type === 'shutdown') droplet.status = 'off';
      if (pending.type === 'power_on' || pending.type === 'reboot' || pending.type === 'power_cycle') droplet.status = 'active';
      droplet.pending = null;
    }
    return droplet;
  }

  function regionJson(slug: string): Json {
    return catalogue.regions.find((region) => region.slug === slug) ?? { slug };
  }

  function sizeJson(slug: string): Json {
    return catalogue.sizes.find((size) => size.slug === slug) ?? { slug };
  }

  function imageJson(slug: string): Json | undefined {
    return catalogue.images.find((entry) => entry.image.slug === slug)?.image;
  }

  function dropletJson(droplet: FakeDroplet): Json {
    const size = sizeJson(droplet.size);
    const v4: Json[] = [];
    if (droplet.privateIpv4) v4.push({ ip_address: droplet.privateIpv4, netmask: '255.255.240.0', gateway: '10.110.0.1', type: 'private' });
    if (droplet.publicIpv4) v4.push({ ip_address: droplet.publicIpv4, netmask: '255.255.255.0', gateway: '203.0.113.254', type: 'public' });
    return {
      id: droplet.id,
      name: droplet.name,
      memory: size.memory,
      vcpus: size.vcpus,
      disk: size.disk,
      locked: droplet.pending !== null,
      status: droplet.status,
      kernel: null,
      created_at: droplet.createdAt,
      features: ['droplet_agent', 'private_networking'],
      backup_ids: [],
      next_backup_window: null,
      snapshot_ids: [],
      image: imageJson(droplet.image) ?? { slug: droplet.image },
      volume_ids: [],
      size,
      size_slug: droplet.size,
      networks: { v4, v6: [] },
      region: regionJson(droplet.region),
      tags: droplet.tags,
      vpc_uuid: '760e09ef-dc84-11e8-981e-3cfdfeaae000',
    };
  }

  function keyJson(key: FakeAccountKey): Json {
    return { id: key.id, fingerprint: key.fingerprint, public_key: key.publicKey, name: key.name };
  }

  function actionJson(action: PendingAction, droplet: FakeDroplet): Json {
    return {
      id: action.id,
      status: 'in-progress',
      type: action.type,
      started_at: timestamp(),
      completed_at: null,
      resource_id: droplet.id,
      resource_type: 'droplet',
      region_slug: droplet.region,
    };
  }

  /** One page of a list, with DO's links (absolute, on this server) and the total. */
  function paged<T>(url: URL, key: string, all: T[], toJson: (item: T) => Json): Json {
    const perPage = Math.min(positiveInt(url.searchParams.get('per_page'), 20), maxPerPage);
    const page = positiveInt(url.searchParams.get('page'), 1);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const link = (target: number) => {
      const to = new URL(url);
      to.searchParams.set('page', String(target));
      to.searchParams.set('per_page', String(perPage));
      return to.toString();
    };
    const pages: Json = {};
    if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) });
    if (page < last) Object.assign(pages, { next: link(page + 1), last: link(last) });
    return {
      [key]: all.slice((page - 1) * perPage, page * perPage).map(toJson),
      links: Object.keys(pages).length > 0 ? { pages } : {},
      meta: { total: all.length },
    };
  }

  function requireDroplet(param: string): FakeDroplet {
    const droplet = /^\d+$/.test(param) ? droplets.get(Number(param)) : undefined;
    if (!droplet) throw notFound();
    return advance(droplet, false);
  }

  function createDroplet(body: Json, origin: string): FakeResponse {
    const name = body.name;
    if (typeof name !== 'string' || name === '') throw unprocessable('Name is required.');
    if (!HOSTNAME.test(name)) throw unprocessable('Only valid hostname characters are allowed. (a-z, A-Z, 0-9, . and -)');
    const region = catalogue.regions.find((candidate) => candidate.slug === body.region && candidate.available === true);
    if (!region) throw unprocessable('You specified an invalid region for Droplet creation.');
    const size = catalogue.sizes.find((candidate) => candidate.slug === body.size && candidate.available === true);
    if (!size) throw unprocessable('You specified an invalid size for Droplet creation.');
    if (!(size.regions as string[]).includes(region.slug as string)) throw unprocessable('Size is not available in this region.');
    if (typeof body.image !== 'string' || !imageJson(body.image)) throw unprocessable('You specified an invalid image for Droplet creation.');
    const requestedKeys = body.ssh_keys === undefined ? [] : body.ssh_keys;
    if (!Array.isArray(requestedKeys)) throw unprocessable('ssh_keys must be an array.');
    const sshKeys = requestedKeys.map((wanted: unknown) => {
      const key = [...keys.values()].find((candidate) => candidate.fingerprint === wanted || candidate.id === wanted);
      if (!key) throw unprocessable('You specified an invalid SSH key for Droplet creation.');
      return key.fingerprint;
    });
    const tags = body.tags === undefined ? [] : body.tags;
    if (!Array.isArray(tags) || !tags.every((tag: unknown) => typeof tag === 'string' && TAG_NAME.test(tag))) {
      throw unprocessable('Tag names may only contain letters, numbers, colons, dashes, and underscores, up to 255 characters.');
    }
    const droplet: FakeDroplet = {
      id: nextDropletId++,
      name,
      region: region.slug as string,
      size: size.slug as string,
      image: body.image,
      status: 'new',
      tags: tags as string[],
      sshKeys,
      publicIpv4: null,
      privateIpv4: null,
      createdAt: timestamp(),
      createdMs: Date.now(),
      reads: 0,
      pending: null,
    };
    droplets.set(droplet.id, droplet);
    const actionId = nextActionId++;
    return {
      status: 202,
      body: {
        droplet: dropletJson(droplet),
        links: { actions: [{ id: actionId, rel: 'create', href: `${origin}/v2/actions/${actionId}` }] },
      },
    };
  }

  function startAction(droplet: FakeDroplet, body: Json): FakeResponse {
    const type = body.type;
    if (typeof type !== 'string' || (type !== 'rename' && !POWER_ACTIONS.has(type))) {
      throw unprocessable(`${String(type)} is not a valid action type.`);
    }
    if (droplet.pending || droplet.status === 'new') throw unprocessable('Droplet already has a pending event.');
    if (type === 'rename') {
      if (typeof body.name !== 'string' || !HOSTNAME.test(body.name)) {
        throw unprocessable('Only valid hostname characters are allowed. (a-z, A-Z, 0-9, . and -)');
      }
    } else if (droplet.status === 'off' && (type === 'power_off' || type === 'shutdown')) {
      throw unprocessable('Droplet is already powered off.');
    } else if (droplet.status === 'off' && type === 'reboot') {
      throw unprocessable('Droplet is currently off.');
    } else if (droplet.status === 'active' && type === 'power_on') {
      throw unprocessable('Droplet is already powered on.');
    }
    const action: PendingAction = {
      id: nextActionId++,
      type,
      ...(type === 'rename' && { name: body.name as string }),
      completesAt: Date.now() + settings.actionDelayMs,
    };
    droplet.pending = action;
    return { status: 201, body: { action: actionJson(action, droplet) } };
  }

  function addKey(body: Json): FakeResponse {
    if (typeof body.name !== 'string' || body.name === '') throw unprocessable('Name is required.');
    if (typeof body.public_key !== 'string') throw unprocessable('Public key is required.');
    const fingerprint = fingerprintOf(body.public_key);
    if (!fingerprint) throw unprocessable('Key invalid, type not supported');
    if (keys.has(fingerprint)) throw unprocessable('SSH Key is already in use on your account');
    const key: FakeAccountKey = { id: nextKeyId++, name: body.name, fingerprint, publicKey: body.public_key.trim() };
    keys.set(fingerprint, key);
    return { status: 201, body: { ssh_key: keyJson(key) } };
  }

  http.route('GET /v2/regions', ({ url }) => ({ body: paged(url, 'regions', catalogue.regions, (region) => region) }));
  http.route('GET /v2/sizes', ({ url }) => ({ body: paged(url, 'sizes', catalogue.sizes, (size) => size) }));
  http.route('GET /v2/images', ({ url }) => {
    const type = url.searchParams.get('type');
    const listed = catalogue.images.filter((entry) => type === null || entry.listedAs === type);
    return { body: paged(url, 'images', listed, (entry) => entry.image) };
  });
  http.route('GET /v2/apps/tiers/instance_sizes', () => ({ body: { instance_sizes: catalogue.appSizes } }));
  http.route('GET /v2/apps/regions', () => ({ body: { regions: catalogue.appRegions } }));
  http.route('POST /v2/account/keys', ({ body }) => addKey(fields(body)));
  http.route('GET /v2/account/keys/:key', ({ params }) => {
    const key = [...keys.values()].find((candidate) => candidate.fingerprint === params.key || String(candidate.id) === params.key);
    if (!key) throw notFound();
    return { body: { ssh_key: keyJson(key) } };
  });
  http.route('GET /v2/droplets', ({ url }) => {
    const tag = url.searchParams.get('tag_name');
    const listed = [...droplets.values()].filter((droplet) => tag === null || droplet.tags.includes(tag)).sort((a, b) => a.id - b.id);
    return { body: paged(url, 'droplets', listed, (droplet) => dropletJson(advance(droplet, true))) };
  });
  http.route('POST /v2/droplets', ({ body, url }) => createDroplet(fields(body), url.origin));
  http.route('GET /v2/droplets/:id', ({ params }) => ({ body: { droplet: dropletJson(advance(requireDroplet(params.id), true)) } }));
  http.route('DELETE /v2/droplets/:id', ({ params }) => {
    droplets.delete(requireDroplet(params.id).id);
    return { status: 204 };
  });
  http.route('POST /v2/droplets/:id/actions', ({ params, body }) => startAction(requireDroplet(params.id), fields(body)));

  const { url } = await http.listen();
  return {
    url,
    token,
    requests: http.requests,
    settings,
    fail: (route, fault) => http.fail({ ...fault, route }),
    droplet(id) {
      const droplet = droplets.get(Number(id));
      return droplet && advance(droplet, false);
    },
    droplets: () => [...droplets.values()].map((droplet) => advance(droplet, false)),
    accountKeys: () => [...keys.values()],
    close: () => http.close(),
  };
}

/** DO reads the fields of an object body; anything else carries none. */
function fields(body: unknown): Json {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Json) : {};
}

function positiveInt(value: string | null, fallback: number): number {
  const parsed = Number(value);
  return value !== null && Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

/**
 * DO's fingerprint of an OpenSSH public key (MD5 of the decoded blob), or null for a key it would
 * refuse: an unknown type, or a blob that does not start with its own type name.
 */
export function fingerprintOf(publicKey: string): string | null {
  const [type, data] = publicKey.trim().split(/\s+/);
  if (!type || !data || !SUPPORTED_KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return null;
  const blob = Buffer.from(data, 'base64');
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + length).toString('latin1') !== type) return null;
  return createHash('md5')
    .update(blob)
    .digest('hex')
    .replace(/(..)(?!$)/g, '$1:');
}

/** A small catalogue with DO's real slugs and prices, one region DO has not named a country for. */
function defaultCatalogue(): FakeCatalogue {
  const everywhere = ['nyc3', 'ams3', 'fra1', 'sgp1'];
  return {
    regions: [
      { name: 'New York 3', slug: 'nyc3', features: ['backups', 'ipv6', 'metadata', 'install_agent'], available: true, sizes: ['s-1vcpu-1gb', 's-2vcpu-4gb'] },
      { name: 'Amsterdam 3', slug: 'ams3', features: ['backups', 'ipv6', 'metadata'], available: true, sizes: ['s-1vcpu-1gb', 's-2vcpu-4gb'] },
      { name: 'Frankfurt 1', slug: 'fra1', features: ['backups', 'ipv6', 'metadata'], available: true, sizes: ['s-1vcpu-1gb', 's-2vcpu-4gb', 'c-4'] },
      { name: 'Singapore 1', slug: 'sgp1', features: ['backups', 'ipv6', 'metadata'], available: true, sizes: ['s-1vcpu-1gb'] },
      { name: 'Lab 1', slug: 'lab1', features: [], available: false, sizes: [] },
    ],
    sizes: [
      {
        slug: 's-1vcpu-1gb',
        memory: 1024,
        vcpus: 1,
        disk: 25,
        transfer: 1,
        price_monthly: 6,
        price_hourly: 0.00893,
        regions: everywhere,
        available: true,
        description: 'Basic',
      },
      {
        slug: 's-2vcpu-4gb',
        memory: 4096,
        vcpus: 2,
        disk: 80,
        transfer: 4,
        price_monthly: 24,
        price_hourly: 0.03571,
        regions: ['nyc3', 'ams3', 'fra1'],
        available: true,
        description: 'Basic',
      },
      {
        slug: 'c-4',
        memory: 8192,
        vcpus: 4,
        disk: 50,
        transfer: 5,
        price_monthly: 84,
        price_hourly: 0.125,
        regions: ['fra1'],
        available: true,
        description: 'CPU-Optimized',
      },
    ],
    images: [
      {
        listedAs: 'distribution',
        image: {
          id: 160_232_537,
          name: '24.04 (LTS) x64',
          distribution: 'Ubuntu',
          slug: 'ubuntu-24-04-x64',
          public: true,
          regions: everywhere,
          created_at: '2024-07-30T19:56:11Z',
          min_disk_size: 7,
          type: 'base',
          size_gigabytes: 2.58,
          description: 'Ubuntu 24.04 (LTS) x64',
          tags: [],
          status: 'available',
        },
      },
      {
        listedAs: 'distribution',
        image: {
          id: 158_032_215,
          name: '12 x64',
          distribution: 'Debian',
          slug: 'debian-12-x64',
          public: true,
          regions: everywhere,
          created_at: '2024-06-11T14:08:43Z',
          min_disk_size: 15,
          type: 'base',
          size_gigabytes: 0.9,
          description: 'Debian 12 x64',
          tags: [],
          status: 'available',
        },
      },
      {
        listedAs: 'application',
        image: {
          id: 155_462_390,
          name: 'Docker on Ubuntu 22.04',
          distribution: 'Ubuntu',
          slug: 'docker-20-04',
          public: true,
          regions: everywhere,
          created_at: '2024-05-02T10:01:12Z',
          min_disk_size: 25,
          type: 'snapshot',
          size_gigabytes: 4.1,
          description: 'Docker Engine and Compose',
          tags: [],
          status: 'available',
        },
      },
    ],
    appSizes: [
      {
        name: 'Basic XXS',
        slug: 'basic-xxs',
        cpu_type: 'SHARED',
        cpus: '1',
        memory_bytes: '536870912',
        usd_per_month: '5.00',
        usd_per_second: '0.000002066799',
        tier_slug: 'basic',
      },
      {
        name: 'Professional XS',
        slug: 'professional-xs',
        cpu_type: 'SHARED',
        cpus: '1',
        memory_bytes: '1073741824',
        usd_per_month: '12.00',
        usd_per_second: '0.000004960317',
        tier_slug: 'professional',
      },
    ],
    appRegions: [
      { slug: 'ams', label: 'Amsterdam', flag: 'netherlands', continent: 'Europe', data_centers: ['ams3'], default: false, disabled: false },
      { slug: 'nyc', label: 'New York', flag: 'usa', continent: 'North America', data_centers: ['nyc1', 'nyc3'], default: true, disabled: false },
      {
        slug: 'blr',
        label: 'Bangalore',
        flag: 'india',
        continent: 'Asia',
        data_centers: ['blr1'],
        default: false,
        disabled: true,
        reason: 'Temporarily unavailable',
      },
    ],
  };
}

import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError, conflict, notFound } from '../../platform/errors';
import type {
  CreateMachineInput,
  InfraAppSize,
  InfraImage,
  InfraMachine,
  InfraProvider,
  InfraRegion,
  InfraSize,
  MachineStatus,
  PowerAction,
  ReferencedMachine,
} from './types';

export interface DropletsInfraOptions {
  /** `https://api.digitalocean.com` in production (with or without `/v2`); a loopback fake in tests. */
  apiUrl: string;
  token: string;
  /** Per request: a paginated listing is several requests, each with the full allowance. */
  timeoutMs?: number;
}

/** DO's largest page: the fewer pages a listing takes, the less of the hourly rate limit it spends. */
const PER_PAGE = 200;

/** The tag naming a machine's project; DO tags take letters, digits, colons, dashes and underscores. */
const PROJECT_TAG_PREFIX = 'project:';
const projectTag = (project: string) => `${PROJECT_TAG_PREFIX}${project}`;

/** DO names data centres after a nearby airport or city code; the digit only tells sites apart. */
const COUNTRY_BY_CITY = new Map([
  ['nyc', 'US'],
  ['sfo', 'US'],
  ['atl', 'US'],
  ['ric', 'US'],
  ['tor', 'CA'],
  ['ams', 'NL'],
  ['lon', 'GB'],
  ['fra', 'DE'],
  ['sgp', 'SG'],
  ['blr', 'IN'],
  ['syd', 'AU'],
]);

// The apps API is generated from protobuf, whose JSON mapping sends 64-bit integers and decimals
// as strings; accepting numbers too keeps a later, stricter upstream working.
const numeric = z.union([
  z.number(),
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .transform(Number),
]);

const errorSchema = z.object({
  id: z.string().optional(),
  message: z.string().optional(),
  request_id: z.string().optional(),
});

const pageSchema = z.looseObject({
  links: z.object({ pages: z.object({ next: z.string().optional() }).optional() }).optional(),
  meta: z.object({ total: z.number().int().nonnegative() }),
});

const regionSchema = z.object({ slug: z.string(), name: z.string(), available: z.boolean() });

const sizeSchema = z.object({
  slug: z.string(),
  description: z.string().nullish(),
  memory: z.number(),
  vcpus: z.number(),
  disk: z.number(),
  transfer: z.number(),
  price_monthly: z.number(),
  price_hourly: z.number(),
  regions: z.array(z.string()),
  available: z.boolean(),
});

const imageSchema = z.object({
  slug: z.string().nullable(),
  name: z.string(),
  distribution: z.string(),
  description: z.string().nullish(),
  min_disk_size: z.number().nullish(),
  regions: z.array(z.string()),
});

const appSizesSchema = z.object({
  instance_sizes: z.array(
    z.object({
      slug: z.string(),
      name: z.string(),
      cpus: numeric,
      memory_bytes: numeric,
      usd_per_month: numeric,
      usd_per_second: numeric,
    }),
  ),
});

const appRegionsSchema = z.object({
  regions: z.array(z.object({ slug: z.string(), label: z.string(), disabled: z.boolean().optional() })),
});

const dropletSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(['new', 'active', 'off', 'archive'] satisfies MachineStatus[]),
  locked: z.boolean(),
  created_at: z.string(),
  size_slug: z.string(),
  region: z.object({ slug: z.string() }),
  image: z.object({ id: z.number(), slug: z.string().nullable() }),
  networks: z.object({ v4: z.array(z.object({ ip_address: z.string(), type: z.string() })) }),
  tags: z.array(z.string()),
});
type Droplet = z.output<typeof dropletSchema>;

const dropletReplySchema = z.object({ droplet: dropletSchema });
const sshKeyReplySchema = z.object({ ssh_key: z.object({ fingerprint: z.string() }) });
const actionReplySchema = z.object({ action: z.object({ id: z.number() }) });

interface CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  /** Error statuses the caller turns into its own outcome instead of an upstream failure. */
  tolerate?: readonly number[];
}

interface Reply {
  status: number;
  json: unknown;
}

/**
 * The production infrastructure adapter, on DigitalOcean's droplet API (v2). Responses are
 * validated, so an upstream that changes shape fails one request with UPSTREAM_ERROR instead of
 * handing malformed machines to the reconciler.
 */
export class DropletsInfraProvider implements InfraProvider {
  readonly kind = 'droplets' as const;
  readonly #base: string;
  // A true private field: a logged or serialised provider must never carry the token.
  readonly #token: string;
  readonly #timeoutMs: number;

  constructor(options: DropletsInfraOptions) {
    // DO documents its endpoint as `…/v2`, and operators paste it either way; paths carry the version.
    this.#base = options.apiUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  async listRegions(): Promise<InfraRegion[]> {
    const regions = await this.listAll('/v2/regions', 'regions', regionSchema, 'listing regions');
    return regions.map((region) => ({
      slug: region.slug,
      name: region.name,
      country: countryOf(region.slug),
      available: region.available,
    }));
  }

  async listSizes(): Promise<InfraSize[]> {
    const sizes = await this.listAll('/v2/sizes', 'sizes', sizeSchema, 'listing sizes');
    return sizes.map((size) => ({
      slug: size.slug,
      description: size.description ?? '',
      vcpus: size.vcpus,
      memoryMb: size.memory,
      diskGb: size.disk,
      transferTb: size.transfer,
      priceMonthly: monthlyCents(size.price_monthly),
      priceHourly: hourlyCents(size.price_hourly),
      regions: size.regions,
      available: size.available,
    }));
  }

  async listImages(): Promise<InfraImage[]> {
    // The image's own `type` field says base/snapshot/custom; which catalogue an image belongs to
    // is only known from the filter it was listed under.
    const types = ['distribution', 'application'] as const;
    const lists = await Promise.all(
      types.map(async (type) => {
        const images = await this.listAll('/v2/images', 'images', imageSchema, `listing ${type} images`, { type });
        // Machines are created by slug, so an image without one cannot be offered.
        return images.flatMap((image): InfraImage[] =>
          image.slug === null
            ? []
            : [
                {
                  slug: image.slug,
                  name: image.name,
                  type,
                  distribution: image.distribution,
                  description: image.description ?? '',
                  minDiskGb: image.min_disk_size ?? 0,
                  regions: image.regions,
                },
              ],
        );
      }),
    );
    return lists.flat();
  }

  async listAppSizes(): Promise<InfraAppSize[]> {
    const operation = 'listing app sizes';
    const { json } = await this.call('GET', '/v2/apps/tiers/instance_sizes', operation);
    return parse(appSizesSchema, json, operation).instance_sizes.map((size) => ({
      slug: size.slug,
      name: size.name,
      cpus: size.cpus,
      memoryMb: Math.round(size.memory_bytes / (1024 * 1024)),
      priceMonthly: monthlyCents(size.usd_per_month),
      priceHourly: hourlyCents(size.usd_per_second * 3600),
    }));
  }

  async listAppRegions(): Promise<InfraRegion[]> {
    const operation = 'listing app regions';
    const { json } = await this.call('GET', '/v2/apps/regions', operation);
    return parse(appRegionsSchema, json, operation).regions.map((region) => ({
      slug: region.slug,
      name: region.label,
      country: countryOf(region.slug),
      available: region.disabled !== true,
    }));
  }

  async createMachine(input: CreateMachineInput): Promise<InfraMachine> {
    const unique = [...new Set(input.sshPublicKeys.map((key) => key.trim()))];
    const fingerprints = await Promise.all(unique.map((key) => this.registerKey(key)));
    const operation = 'creating the machine';
    const { json } = await this.call('POST', '/v2/droplets', operation, {
      body: {
        name: input.name,
        region: input.region,
        size: input.size,
        image: input.image,
        ssh_keys: fingerprints,
        tags: [input.reference, projectTag(input.project)],
      },
    });
    return toMachine(parse(dropletReplySchema, json, operation).droplet);
  }

  async listMachines(referencePrefix: string): Promise<ReferencedMachine[]> {
    // DO filters droplets by an exact tag only, so the prefix is matched here.
    const droplets = await this.listAll('/v2/droplets', 'droplets', dropletSchema, 'listing machines');
    return droplets.flatMap((droplet) => {
      const reference = droplet.tags.find((tag) => tag.startsWith(referencePrefix));
      return reference === undefined ? [] : [{ ...toMachine(droplet), reference }];
    });
  }

  async getMachines(project: string, ids: string[]): Promise<InfraMachine[]> {
    if (ids.length === 0) return [];
    const tag = projectTag(project);
    // DO has no multi-get: a walk over the project's tag costs a request per 200 of its machines,
    // where a read per id would cost one for each, and a walk over the account one per 200 of
    // every project's machines.
    const tagged = await this.listAll('/v2/droplets', 'droplets', dropletSchema, 'listing machines', { tag_name: tag });
    const found = new Map(tagged.map((droplet) => [String(droplet.id), droplet]));
    // Machines made before they carried their project's tag are read one by one, and only kept
    // if no other project's tag says they are someone else's.
    for (const id of ids.filter((wanted) => !found.has(wanted))) {
      const droplet = await this.getDroplet(id);
      if (droplet && !droplet.tags.some((other) => other.startsWith(PROJECT_TAG_PREFIX) && other !== tag)) found.set(id, droplet);
    }
    return ids.flatMap((id) => {
      const droplet = found.get(id);
      return droplet ? [toMachine(droplet)] : [];
    });
  }

  async renameMachine(id: string, name: string): Promise<void> {
    await this.dropletAction(id, { type: 'rename', name }, 'renaming the machine');
  }

  async deleteMachine(id: string): Promise<void> {
    await this.call('DELETE', `/v2/droplets/${encodeURIComponent(id)}`, 'deleting the machine', { tolerate: [404] });
  }

  async performAction(id: string, action: PowerAction): Promise<void> {
    await this.dropletAction(id, { type: action }, `performing ${action} on the machine`);
  }

  /** One droplet, or null when DO does not know it. */
  private async getDroplet(id: string): Promise<Droplet | null> {
    const operation = 'reading a machine';
    const reply = await this.call('GET', `/v2/droplets/${encodeURIComponent(id)}`, operation, { tolerate: [404] });
    return reply.status === 404 ? null : parse(dropletReplySchema, reply.json, operation).droplet;
  }

  private async dropletAction(id: string, body: { type: string; name?: string }, operation: string): Promise<void> {
    const reply = await this.call('POST', `/v2/droplets/${encodeURIComponent(id)}/actions`, operation, {
      body,
      tolerate: [404, 422],
    });
    if (reply.status === 404) throw notFound('Machine');
    // DO answers 422 when the machine's state rules the action out ("Droplet is already powered
    // off", a pending event): the caller asked for something the machine cannot do right now.
    if (reply.status === 422) throw conflict(upstreamMessage(reply.json) ?? `The machine refused ${operation}`);
    parse(actionReplySchema, reply.json, operation);
  }

  /** DO takes keys by id or fingerprint only, so each key is uploaded to the account first. */
  private async registerKey(publicKey: string): Promise<string> {
    const operation = 'registering an SSH key';
    const created = await this.call('POST', '/v2/account/keys', operation, {
      body: { name: keyName(publicKey), public_key: publicKey },
      tolerate: [422],
    });
    if (created.status !== 422) return parse(sshKeyReplySchema, created.json, operation).ssh_key.fingerprint;
    // An account holds a key once and refuses it again ("SSH Key is already in use on your
    // account"). Looking the key up, rather than matching that wording, tells a key that is
    // already there from one DO rejected as invalid.
    const existing = await this.call('GET', `/v2/account/keys/${md5Fingerprint(publicKey)}`, operation, { tolerate: [404] });
    if (existing.status === 404) {
      throw new AppError('VALIDATION_ERROR', `sshPublicKeys: ${upstreamMessage(created.json) ?? 'the key was rejected by the infrastructure provider'}`);
    }
    return parse(sshKeyReplySchema, existing.json, operation).ssh_key.fingerprint;
  }

  /** Follows `links.pages.next` until the listing is complete. */
  private async listAll<S extends z.ZodType>(
    path: string,
    key: string,
    item: S,
    operation: string,
    query: Record<string, string> = {},
  ): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    let page = 1;
    for (;;) {
      const { json } = await this.call('GET', path, operation, {
        query: { ...query, page: String(page), per_page: String(PER_PAGE) },
      });
      const envelope = parse(pageSchema, json, operation);
      const batch = parse(z.array(item), envelope[key], operation);
      items.push(...batch);
      const next = envelope.links?.pages?.next;
      // Stopping at `meta.total` or on an empty page bounds the walk even if the upstream kept
      // offering a next page.
      if (next === undefined || batch.length === 0 || items.length >= envelope.meta.total) return items;
      page = this.nextPage(next, page, operation);
    }
  }

  /**
   * Only the page number is taken from DO's link: the request itself stays on our base URL, so the
   * token is never sent wherever an upstream link happens to point.
   */
  private nextPage(link: string, current: number, operation: string): number {
    let next = Number.NaN;
    try {
      next = Number(new URL(link, this.#base).searchParams.get('page'));
    } catch {
      // An unparsable link is reported below like any other unusable one.
    }
    if (!Number.isInteger(next) || next <= current) {
      throw new AppError('UPSTREAM_ERROR', unexpectedResponse(operation), {
        cause: new Error(`Unusable next-page link: ${link}`),
      });
    }
    return next;
  }

  private async call(method: string, path: string, operation: string, options: CallOptions = {}): Promise<Reply> {
    const url = new URL(this.#base + path);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';

    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const message = isTimeout(err)
        ? `The infrastructure provider did not answer within ${this.#timeoutMs} ms while ${operation}`
        : `The infrastructure provider could not be reached while ${operation}`;
      throw new AppError('UPSTREAM_ERROR', message, { cause: err });
    }

    const json = parseJson(text);
    if (response.ok || options.tolerate?.includes(response.status)) return { status: response.status, json };
    throw failure(method, url.pathname, response.status, json, operation);
  }
}

/** DO's account of a failed request, kept as the cause for the server log. */
class DropletsApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: string | undefined,
    readonly requestId: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'DropletsApiError';
  }
}

function failure(method: string, path: string, status: number, json: unknown, operation: string): AppError {
  const parsed = errorSchema.safeParse(json);
  const body = parsed.success ? parsed.data : {};
  const cause = new DropletsApiError(
    status,
    body.id,
    body.request_id,
    `${method} ${path} answered ${status}${body.id ? ` ${body.id}` : ''}${body.message ? `: ${body.message}` : ''}`,
  );
  let message: string;
  if (status === 401 || status === 403) {
    // Our token, not the caller's credentials: a 401 to the caller would tell them to sign in again.
    message = `The infrastructure provider refused our credentials while ${operation}`;
  } else if (status === 429) {
    message = `The infrastructure provider's rate limit was reached while ${operation}; try again shortly`;
  } else if (status >= 500) {
    message = `The infrastructure provider failed while ${operation}`;
  } else {
    message = `The infrastructure provider refused the request while ${operation}${body.message ? `: ${body.message}` : ''}`;
  }
  return new AppError('UPSTREAM_ERROR', message, { cause });
}

function parse<S extends z.ZodType>(schema: S, json: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(json);
  if (!result.success) throw new AppError('UPSTREAM_ERROR', unexpectedResponse(operation), { cause: result.error });
  return result.data;
}

const unexpectedResponse = (operation: string) => `The infrastructure provider sent an unexpected response while ${operation}`;

/** Undefined for an empty or non-JSON body, which every schema then rejects. */
function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function upstreamMessage(json: unknown): string | undefined {
  const parsed = errorSchema.safeParse(json);
  return parsed.success ? parsed.data.message : undefined;
}

function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
}

function toMachine(droplet: Droplet): InfraMachine {
  return {
    id: String(droplet.id),
    name: droplet.name,
    region: droplet.region.slug,
    size: droplet.size_slug,
    image: droplet.image.slug ?? String(droplet.image.id),
    status: droplet.status,
    publicIpv4: droplet.networks.v4.find((network) => network.type === 'public')?.ip_address ?? null,
    // DO reports a droplet that is still being created as unlocked; for us creation is an action
    // in progress like any other.
    locked: droplet.locked || droplet.status === 'new',
    createdAt: droplet.created_at,
  };
}

function countryOf(slug: string): string {
  const city = /^[a-z]+/.exec(slug)?.[0];
  return (city && COUNTRY_BY_CITY.get(city)) || '';
}

const monthlyCents = (dollars: number) => Math.round(dollars * 100);

/** Keeps the fraction of a cent, without the float noise of the product (0.00893 * 100 = 0.8930000000000001). */
const hourlyCents = (dollars: number) => Math.round(dollars * 100 * 1e6) / 1e6;

/** DO's fingerprint: MD5 of the decoded key blob, as colon-separated hex pairs. */
function md5Fingerprint(publicKey: string): string {
  const blob = Buffer.from(publicKey.split(/\s+/)[1] ?? '', 'base64');
  return createHash('md5')
    .update(blob)
    .digest('hex')
    .replace(/(..)(?!$)/g, '$1:');
}

/** The key's own comment (usually user@host) is what its owner will recognise in DO's panel. */
function keyName(publicKey: string): string {
  const comment = publicKey.split(/\s+/).slice(2).join(' ');
  return comment || 'cloud-panel';
}

import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { servers, serverSshKeys, sshKeys } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import type { Preview } from '../../billing/preview';
import { endBillingItem, previewPurchase, purchaseCreation } from '../../billing/purchases';
import { assertProjectNotSuspended } from '../../billing/suspension';
import { AppError, conflict } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getInfraProvider, type InfraMachine, type PowerAction } from '../../providers/infra';
import { POWER_ACTION_FITS, POWER_ACTION_RESULT, type Server, type ServerStatus, type ServerWithKeys } from './schema';
import { serverCatalog, type ServerCatalog } from '../catalog';

/** The one server type on sale: the LAMP one-click image and the stack it sets up at first boot. */
const LAMP_STACK = {
  type: 'LAMP',
  image: 'lamp',
  sshUser: 'root',
  phpVersion: '8.3',
  pgVersion: '16',
  pgDatabase: 'app',
  pgUsername: 'app',
} as const;

const SERVER_RESOURCE_TYPE = 'server';

/** A server's id is its machine's reference at the provider, so the prefix finds this domain's machines. */
const SERVER_ID_PREFIX = 'srv';

/** Machines asked for in one upstream call by the background reconciliation. */
const RECONCILE_BATCH = 100;

/**
 * A provider may show a machine unlocked for a moment before an action takes hold, so a server
 * waits for its action's result; one the provider dropped settles on what the machine reports
 * after this long.
 */
const ACTION_SETTLE_TIMEOUT_MS = 10 * 60_000;

export interface CreateServerRequest {
  projectId: string;
  actorUserId: string;
  name: string;
  sizeSlug: string;
  region: string;
  sshKeyIds: string[];
}

export type ServerRow = typeof servers.$inferSelect;

/** Live servers, newest first, with PROVISIONING ones settled against the provider in one call. */
export async function listServers(projectId: string): Promise<Server[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(servers)
    .where(and(eq(servers.projectId, projectId), isNull(servers.terminatedAt)))
    .orderBy(desc(servers.createdAt), desc(servers.id));
  return (await reconcile(rows)).map(toView);
}

export async function getServer(projectId: string, serverId: string): Promise<ServerWithKeys> {
  const [row] = await reconcile([await liveServer(projectId, serverId)]);
  const db = await getDb();
  const keys = await db
    .select({ id: serverSshKeys.sshKeyId, name: serverSshKeys.name, fingerprint: serverSshKeys.fingerprint })
    .from(serverSshKeys)
    .where(eq(serverSshKeys.serverId, serverId))
    .orderBy(asc(serverSshKeys.name), asc(serverSshKeys.sshKeyId));
  return { ...toView(row!), sshKeys: keys };
}

/**
 * Buys and creates a server. Everything that can be refused is checked before anything happens
 * (size and region against the catalogue, keys, a free name, a chargeable card). Then, in this
 * order: the purchase is recorded, the card is charged, the machine is created upstream, and the
 * row, its billing item and the charge history are written in one transaction.
 *
 * The charge comes before the machine because a declined card, the likeliest failure, then never
 * reaches the provider, while a charge is cheap to undo: a provider failure refunds it; a failed
 * commit deletes the machine and refunds it; after a crash, billing's reconciliation refunds the
 * charge and `deleteOrphanedMachines` deletes any machine it left. The machine is created
 * outside the commit's transaction because that transaction holds the database while it is open
 * (the embedded database has one connection), which a slow provider must not prolong.
 */
export async function createServer(request: CreateServerRequest): Promise<{ deployed: true }> {
  const { projectId, actorUserId, name } = request;
  const { size, image } = sellableSize(await serverCatalog(), request.sizeSlug, request.region);
  const keys = await projectKeys(projectId, request.sshKeyIds);
  const db = await getDb();
  await assertNameFree(db, projectId, name);
  const serverId = newId(SERVER_ID_PREFIX);
  try {
    await purchaseCreation({
      projectId,
      actorUserId,
      resourceType: SERVER_RESOURCE_TYPE,
      resourceKey: name,
      category: 'servers',
      description: `Server ${name} (${size.slug}, ${request.region})`,
      monthly: size.priceMonthly,
      assertAvailable: (tx) => assertNameFree(tx, projectId, name),
      provision: () =>
        upstream(() =>
          getInfraProvider().createMachine({
            name,
            region: request.region,
            size: size.slug,
            image: image.slug,
            sshPublicKeys: keys.map((k) => k.publicKey),
            reference: serverId,
            project: projectId,
          }),
        ),
      unprovision: (machine) => discardMachine(machine.id, serverId),
      fulfil: async (tx, { billingItemId, provisioned: machine }) => {
        await insertServer(tx, { serverId, projectId, name, region: request.region, sizeSlug: size.slug, machine, billingItemId, keys });
        await emit(tx, projectId, 'server.created', { serverId, name, size: size.slug, region: request.region, by: actorUserId });
        return { resourceId: serverId, result: undefined };
      },
    });
  } catch (err) {
    if (isUniqueViolation(err, 'servers_project_live_name_key')) throw nameTaken(name);
    throw err;
  }
  return { deployed: true as const };
}

/** Renames upstream first, so a provider failure leaves the old name on both sides. */
export async function renameServer(projectId: string, serverId: string, actorUserId: string, name: string): Promise<Server> {
  const row = await liveServer(projectId, serverId);
  refuseWhileDeleting(row);
  if (row.name === name) return toView(row);
  const db = await getDb();
  await assertNameFree(db, projectId, name);
  const provider = getInfraProvider();
  await upstream(() => provider.renameMachine(row.providerMachineId, name));
  try {
    return await db.transaction(async (tx) => {
      const [saved] = await tx.update(servers).set({ name, updatedAt: new Date() }).where(eq(servers.id, serverId)).returning();
      await emit(tx, projectId, 'server.renamed', { serverId, from: row.name, to: name, by: actorUserId });
      return toView(saved!);
    });
  } catch (err) {
    await provider.renameMachine(row.providerMachineId, row.name).catch((undo: unknown) => {
      getLogger().error({ err: undo, serverId, machineId: row.providerMachineId }, 'could not restore the machine name after a failed rename');
    });
    if (isUniqueViolation(err, 'servers_project_live_name_key')) throw nameTaken(name);
    throw err;
  }
}

/**
 * Deletes the machine, then stops billing and hides the server. The request is recorded first and
 * the row stays listed until the provider has confirmed, so a provider failure answers 502 and a
 * retry picks up where it stopped.
 */
export async function deleteServer(projectId: string, serverId: string, actorUserId: string): Promise<void> {
  const row = await liveServer(projectId, serverId);
  const db = await getDb();
  if (!row.deleteRequestedAt) {
    await db
      .update(servers)
      .set({ deleteRequestedAt: new Date() })
      .where(and(eq(servers.id, serverId), isNull(servers.deleteRequestedAt)));
  }
  await upstream(() => getInfraProvider().deleteMachine(row.providerMachineId));
  const now = new Date();
  await db.transaction(async (tx) => {
    const [terminated] = await tx
      .update(servers)
      .set({ terminatedAt: now, updatedAt: now })
      .where(and(eq(servers.id, serverId), isNull(servers.terminatedAt)))
      .returning({ id: servers.id });
    if (!terminated) return;
    await endBillingItem(tx, projectId, SERVER_RESOURCE_TYPE, serverId, now);
    await emit(tx, projectId, 'server.deleted', { serverId, name: row.name, by: actorUserId });
  });
}

/**
 * Sends a power action when it fits the server's settled status (after a reconciliation, so a
 * server that has just finished starting counts as RUNNING). The server is PROVISIONING until the
 * provider has applied the action; reads settle it. While the project is suspended for an unpaid
 * invoice, an action that would leave the server running is refused (402 PROJECT_SUSPENDED).
 */
export async function performServerAction(projectId: string, serverId: string, actorUserId: string, action: PowerAction): Promise<Server> {
  const found = await liveServer(projectId, serverId);
  refuseWhileDeleting(found);
  const db = await getDb();
  if (POWER_ACTION_RESULT[action] === 'RUNNING') await assertProjectNotSuspended(db, projectId, `${action} of server "${found.name}"`);
  const current = (await reconcile([found]))[0]!;
  if (!POWER_ACTION_FITS[action].includes(current.status)) throw new AppError('CONFLICT', unfitActionMessage(current, action));
  await upstream(() => getInfraProvider().performAction(current.providerMachineId, action));
  return db.transaction(async (tx) => {
    const [saved] = await tx
      .update(servers)
      .set({ status: 'PROVISIONING', pendingAction: action, updatedAt: new Date() })
      .where(eq(servers.id, serverId))
      .returning();
    await emit(tx, projectId, 'server.action_requested', { serverId, action, from: current.status, by: actorUserId });
    return toView(saved!);
  });
}

/** What creating a server of this size would charge now; an unknown size is a 404. */
export async function previewServer(projectId: string, sizeSlug: string): Promise<Preview> {
  const { sizes } = await serverCatalog();
  const size = sizes.find((s) => s.slug === sizeSlug);
  if (!size) throw new AppError('NOT_FOUND', `Unknown server size "${sizeSlug}"; see GET /v1/catalog/servers/sizes`);
  return previewPurchase(projectId, size.priceMonthly);
}

/**
 * Settles PROVISIONING servers of every project, in batches, so servers reach RUNNING or OFF even
 * when nobody reads them. Returns how many changed.
 */
export async function reconcileProvisioningServers(): Promise<number> {
  const db = await getDb();
  const pending = await db
    .select()
    .from(servers)
    .where(and(eq(servers.status, 'PROVISIONING'), isNull(servers.terminatedAt)));
  let settled = 0;
  for (let start = 0; start < pending.length; start += RECONCILE_BATCH) {
    const batch = pending.slice(start, start + RECONCILE_BATCH);
    const after = await reconcile(batch);
    settled += after.filter((row, i) => row !== batch[i]).length;
  }
  return settled;
}

/**
 * Deletes the machines this domain made that no live server runs on: one whose creation crashed
 * between the provider and the commit, or whose failed purchase could not delete it at once.
 * Nobody pays for such a machine. Only machines older than `olderThanMs` are considered, so a
 * creation still in flight keeps its machine. Returns how many were deleted.
 */
export async function deleteOrphanedMachines(options: { olderThanMs: number; now?: Date }): Promise<number> {
  const now = options.now ?? new Date();
  const provider = getInfraProvider();
  const settled = (await provider.listMachines(`${SERVER_ID_PREFIX}_`)).filter((m) => now.getTime() - Date.parse(m.createdAt) > options.olderThanMs);
  if (settled.length === 0) return 0;
  const db = await getDb();
  const live = await db
    .select({ machineId: servers.providerMachineId })
    .from(servers)
    .where(
      and(
        inArray(
          servers.providerMachineId,
          settled.map((m) => m.id),
        ),
        isNull(servers.terminatedAt),
      ),
    );
  const running = new Set(live.map((r) => r.machineId));
  let deleted = 0;
  for (const machine of settled.filter((m) => !running.has(m.id))) {
    try {
      await provider.deleteMachine(machine.id);
      deleted += 1;
      getLogger().warn({ machineId: machine.id, reference: machine.reference }, 'orphaned machine deleted: no server was recorded for it');
    } catch (err) {
      // One machine the provider will not delete must not keep the others running unpaid.
      getLogger().error({ err, machineId: machine.id, reference: machine.reference }, 'orphaned machine could not be deleted');
    }
  }
  return deleted;
}

/**
 * Asks the provider, in one call per project, about the PROVISIONING servers among `rows` and
 * writes back those whose machine has settled (unlocked, on or off) with its address. Rows are
 * returned in order, changed ones replaced. A provider failure leaves the stored state of that
 * project's servers as it is: reads keep working while the provider is down.
 */
export async function reconcile(rows: ServerRow[]): Promise<ServerRow[]> {
  const pending = rows.filter((r) => r.status === 'PROVISIONING');
  if (pending.length === 0) return rows;
  const byProject = Map.groupBy(pending, (r) => r.projectId);
  const machines: InfraMachine[] = [];
  for (const [projectId, projectRows] of byProject) {
    try {
      machines.push(
        ...(await getInfraProvider().getMachines(
          projectId,
          projectRows.map((r) => r.providerMachineId),
        )),
      );
    } catch (err) {
      getLogger().warn({ err, servers: projectRows.map((r) => r.id) }, 'server reconciliation skipped: the infrastructure provider failed');
    }
  }
  const byMachineId = new Map(machines.map((m) => [m.id, m]));
  const db = await getDb();
  const now = new Date();
  const changed = new Map<string, ServerRow>();
  for (const row of pending) {
    const machine = byMachineId.get(row.providerMachineId);
    const status = machine ? settledStatus(row, machine, now) : null;
    if (!machine || !status) continue;
    const [saved] = await db
      .update(servers)
      .set({ status, pendingAction: null, ipAddress: machine.publicIpv4 ?? row.ipAddress, updatedAt: now })
      .where(and(eq(servers.id, row.id), eq(servers.status, 'PROVISIONING'), isNull(servers.terminatedAt)))
      .returning();
    if (saved) changed.set(saved.id, saved);
  }
  return rows.map((r) => changed.get(r.id) ?? r);
}

function settledStatus(row: ServerRow, machine: InfraMachine, now: Date): ServerStatus | null {
  if (machine.locked) return null;
  const status = machine.status === 'active' ? 'RUNNING' : machine.status === 'off' ? 'OFF' : null;
  if (!status || !row.pendingAction) return status;
  const waitedTooLong = now.getTime() - row.updatedAt.getTime() > ACTION_SETTLE_TIMEOUT_MS;
  return status === POWER_ACTION_RESULT[row.pendingAction] || waitedTooLong ? status : null;
}

async function liveServer(projectId: string, serverId: string): Promise<ServerRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.projectId, projectId), isNull(servers.terminatedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Server not found');
  return row;
}

function refuseWhileDeleting(row: ServerRow): void {
  if (row.deleteRequestedAt) {
    throw conflict(`Server "${row.name}" is being deleted; repeat the delete to finish it`);
  }
}

function unfitActionMessage(row: ServerRow, action: PowerAction): string {
  if (row.status === 'PROVISIONING') return `Server "${row.name}" is PROVISIONING; wait until it is RUNNING or OFF before sending ${action}`;
  if (action === 'power_on') return `Server "${row.name}" is already running; power_on fits a server that is OFF`;
  return `Server "${row.name}" is not running (status ${row.status}); ${action} fits a RUNNING server`;
}

interface SellableSize {
  size: ServerCatalog['sizes'][number];
  image: ServerCatalog['images'][number];
}

/** The size and the LAMP image, if the size is sold in the region and large enough for the image. */
function sellableSize(catalog: ServerCatalog, sizeSlug: string, regionSlug: string): SellableSize {
  const size = catalog.sizes.find((s) => s.slug === sizeSlug);
  if (!size) throw new AppError('VALIDATION_ERROR', `slug: unknown server size "${sizeSlug}"; see GET /v1/catalog/servers/sizes`);
  const region = catalog.regions.find((r) => r.slug === regionSlug);
  if (!region) throw new AppError('VALIDATION_ERROR', `region: unknown region "${regionSlug}"; see GET /v1/catalog/servers/regions`);
  if (!region.available) throw new AppError('VALIDATION_ERROR', `region: ${region.name} (${region.slug}) is not taking new servers at the moment`);
  if (!size.available || !size.regions.includes(region.slug)) {
    const where = size.available && size.regions.length ? `; it is sold in ${size.regions.join(', ')}` : '';
    throw new AppError('VALIDATION_ERROR', `slug: size ${size.slug} is not sold in ${region.slug}${where}`);
  }
  const image = catalog.images.find((i) => i.slug === LAMP_STACK.image);
  if (!image || !image.regions.includes(region.slug)) {
    throw new AppError('VALIDATION_ERROR', `region: LAMP servers are not available in ${region.slug}`);
  }
  if (size.diskGb < image.minDiskGb) {
    throw new AppError('VALIDATION_ERROR', `slug: size ${size.slug} has ${size.diskGb} GB of disk; a LAMP server needs at least ${image.minDiskGb} GB`);
  }
  return { size, image };
}

interface ProjectKey {
  id: string;
  name: string;
  fingerprint: string;
  publicKey: string;
}

async function projectKeys(projectId: string, ids: string[]): Promise<ProjectKey[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const db = await getDb();
  const found = await db
    .select({ id: sshKeys.id, name: sshKeys.name, fingerprint: sshKeys.fingerprint, publicKey: sshKeys.publicKey })
    .from(sshKeys)
    .where(and(eq(sshKeys.projectId, projectId), inArray(sshKeys.id, wanted)));
  const missing = wanted.filter((id) => !found.some((k) => k.id === id));
  if (missing.length > 0) {
    throw new AppError(
      'VALIDATION_ERROR',
      `sshKeyIds: no SSH key ${missing.map((id) => `"${id}"`).join(', ')} in this project; register keys before creating the server`,
    );
  }
  return found;
}

async function assertNameFree(db: DbOrTx, projectId: string, name: string): Promise<void> {
  const [clash] = await db
    .select({ id: servers.id })
    .from(servers)
    .where(and(eq(servers.projectId, projectId), eq(servers.name, name), isNull(servers.terminatedAt)));
  if (clash) throw nameTaken(name);
}

function nameTaken(name: string): AppError {
  return new AppError('CONFLICT', `A server named "${name}" already exists in this project`);
}

interface NewServer {
  serverId: string;
  projectId: string;
  name: string;
  region: string;
  sizeSlug: string;
  machine: InfraMachine;
  billingItemId: string;
  keys: ProjectKey[];
}

async function insertServer(tx: DbOrTx, server: NewServer): Promise<void> {
  const now = new Date();
  await tx.insert(servers).values({
    id: server.serverId,
    projectId: server.projectId,
    name: server.name,
    type: LAMP_STACK.type,
    region: server.region,
    instanceType: server.sizeSlug,
    image: LAMP_STACK.image,
    status: 'PROVISIONING',
    ipAddress: server.machine.publicIpv4,
    hostname: server.name,
    sshUser: LAMP_STACK.sshUser,
    phpVersion: LAMP_STACK.phpVersion,
    pgVersion: LAMP_STACK.pgVersion,
    pgDatabase: LAMP_STACK.pgDatabase,
    pgUsername: LAMP_STACK.pgUsername,
    providerMachineId: server.machine.id,
    billingItemId: server.billingItemId,
    createdAt: now,
    updatedAt: now,
  });
  if (server.keys.length > 0) {
    await tx.insert(serverSshKeys).values(server.keys.map((k) => ({ serverId: server.serverId, sshKeyId: k.id, name: k.name, fingerprint: k.fingerprint })));
  }
}

/** Undoes an upstream creation whose purchase failed; a machine that cannot be deleted now is left to `deleteOrphanedMachines`. */
async function discardMachine(machineId: string, serverId: string): Promise<void> {
  try {
    await getInfraProvider().deleteMachine(machineId);
  } catch (err) {
    getLogger().warn({ err, machineId, reference: serverId }, 'machine of a failed purchase not deleted yet: the orphan sweep will retry');
  }
}

/** Provider failures answer 502; a machine the provider no longer knows is one too, not a 404 of the server. */
export async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError && err.code !== 'NOT_FOUND') throw err;
    throw new AppError('UPSTREAM_ERROR', 'The infrastructure provider could not complete the request; try again', { cause: err });
  }
}

function toView(row: ServerRow): Server {
  return {
    id: row.id,
    organizationId: row.projectId,
    name: row.name,
    type: row.type,
    region: row.region,
    instanceType: row.instanceType,
    status: row.status,
    ipAddress: row.ipAddress,
    hostname: row.hostname,
    sshUser: row.sshUser,
    phpVersion: row.phpVersion,
    pgVersion: row.pgVersion,
    pgDatabase: row.pgDatabase,
    pgUsername: row.pgUsername,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
  };
}

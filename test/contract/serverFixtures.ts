import { sql } from 'drizzle-orm';
import { resetConfigForTests } from '../../server/platform/config';
import { clearCatalogCache } from '../../server/domains/catalog/service';
import { resetInfraProviderForTests } from '../../server/providers/infra';
import { generateEd25519KeyPair } from '../../server/domains/sshKeys/keyFormat';
import { addCard, CARDS } from '../billingHelpers';
import { queryRows } from '../db';
import { api, createProject, createUser, type TestUser } from '../helpers';
import type { Server, ServerWithKeys } from '../../server/domains/servers/schema';
import type { SshKey } from '../../server/domains/sshKeys/schema';

type InfraSetting = 'INFRA_PROVIDER' | 'INFRA_API_URL' | 'INFRA_API_TOKEN' | 'INFRA_SIM_PROVISION_SECONDS' | 'INFRA_SIM_ACTION_SECONDS' | 'INFRA_SIM_FAIL';

/** Changes infrastructure settings for the rest of the test file (or until changed again). */
export function configureInfra(settings: Partial<Record<InfraSetting, string>>): void {
  Object.assign(process.env, settings);
  resetConfigForTests();
  resetInfraProviderForTests();
  clearCatalogCache();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function paidProject(card: string = CARDS.ok): Promise<{ owner: TestUser; projectId: string }> {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  const saved = await addCard(owner, projectId, card);
  if (saved.status !== 201) throw new Error(`could not save the card: ${saved.status}`);
  return { owner, projectId };
}

/** Registers a fresh ed25519 public key through the API. */
export async function registerKey(user: TestUser, projectId: string, name = 'laptop'): Promise<SshKey> {
  const { publicKey } = generateEd25519KeyPair(name);
  const res = await api<SshKey>('POST', `/v1/projects/${projectId}/ssh-keys`, { cookie: user.cookie, body: { name, publicKey: publicKey.publicKey } });
  return res.data;
}

export interface ServerBody {
  name: string;
  slug: string;
  provider: string;
  region: string;
  sshKeyIds: string[];
}

export function createServerCall(user: TestUser, projectId: string, body: Partial<ServerBody> = {}) {
  return api<{ deployed: true }>('POST', `/v1/projects/${projectId}/servers`, {
    cookie: user.cookie,
    body: { name: 'web-1', slug: 's-1vcpu-1gb', provider: 'infra', region: 'fra1', sshKeyIds: [], ...body },
  });
}

/** A server as the API answers it; the single read adds the keys it was created with. */
export type ServerData = Server & Partial<Pick<ServerWithKeys, 'sshKeys'>>;

export async function listServers(user: TestUser, projectId: string): Promise<ServerData[]> {
  return (await api<ServerData[]>('GET', `/v1/projects/${projectId}/servers`, { cookie: user.cookie })).data;
}

/** Creates a server and returns it as the list shows it. */
export async function createServer(user: TestUser, projectId: string, body: Partial<ServerBody> = {}): Promise<ServerData> {
  const res = await createServerCall(user, projectId, body);
  if (res.status !== 200) throw new Error(`server creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const name = body.name ?? 'web-1';
  const server = (await listServers(user, projectId)).find((s) => s.name === name);
  if (!server) throw new Error(`server ${name} is not listed`);
  return server;
}

export async function simulatedMachines(): Promise<Array<{ id: string; reference: string; name: string; deleted_at: string | null }>> {
  return queryRows(sql`select id, reference, name, deleted_at from infra_sim_machines order by created_at`);
}

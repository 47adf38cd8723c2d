import { eq } from 'drizzle-orm';
import { getDb } from '../../../db';
import { dnsProviderConnections } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { open, seal } from '../../platform/encryption/envelope';
import { AppError, invalidField, validationError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { consumeOAuthState, issueOAuthState, safeReturnPath } from '../../platform/oauthState';
import { dnsRecordInputSchema, getDnsProvider, recordInZone, type DnsRecord, type DnsRecordInput, type DnsZone } from '../../providers/dns';
import { ended, withMarker, type RoundTripEnd } from './returnPaths';
import { DNS_CONNECTED_MARKER, type DnsProviderStatus, type DnsRecordView } from './schema';

/** What the OAuth round trip is recorded as. */
export const DNS_OAUTH_PURPOSE = 'dns-provider';
/** Where the OAuth provider sends the browser back: `/v1` + this. */
export const DNS_OAUTH_CALLBACK_PATH = '/integrations/dns-provider/callback';

type ConnectionRow = typeof dnsProviderConnections.$inferSelect;

/** A project's live connection, for the domains that act in its DNS account. */
export interface DnsAccess {
  credential: string;
  autoDnsEnabled: boolean;
}

export async function dnsProviderStatus(projectId: string): Promise<DnsProviderStatus> {
  return toStatus(await connectionRow(projectId));
}

/**
 * Checks the token with the provider, then stores it sealed (bound to the project) in place of any
 * earlier credential. A token the provider refuses is a 422 on `apiToken`, and nothing changes.
 */
export async function connectWithToken(projectId: string, actorUserId: string, apiToken: string): Promise<DnsProviderStatus> {
  const account = await verifyOrRefuse(apiToken.trim(), () =>
    invalidField('apiToken', 'the DNS provider refused this token; check that it is active and may edit DNS'),
  );
  return storeConnection(projectId, actorUserId, 'API_TOKEN', apiToken.trim(), account.accountName);
}

/** The provider's consent page for this project, with a fresh single-use state; 404 when OAuth is not configured. */
export async function startOAuth(projectId: string, actorUserId: string, redirect: string | undefined): Promise<string> {
  const oauth = getDnsProvider().oauth;
  if (!oauth) throw new AppError('NOT_FOUND', 'Connecting the DNS provider through OAuth is not configured on this installation; connect with an API token');
  const returnTo = safeReturnPath(redirect, integrationPagePath(projectId));
  const state = await issueOAuthState({ purpose: DNS_OAUTH_PURPOSE, projectId, userId: actorUserId, returnTo });
  return oauth.authorizeUrl(state, callbackUrl());
}

/**
 * The OAuth callback: the state is checked and consumed first (400 LINK_EXPIRED otherwise), then
 * the code is traded for a token, which is checked and stored like an API token. Answers the panel
 * path to return to, with the connected marker, or with an error marker when the provider refused.
 */
export async function completeOAuth(code: string | null, state: string | null, providerError: string | null): Promise<RoundTripEnd> {
  const grant = await consumeOAuthState(state ?? '', DNS_OAUTH_PURPOSE);
  const back = (outcome: string) => ended(withMarker(grant.returnTo, DNS_CONNECTED_MARKER, outcome));
  const oauth = getDnsProvider().oauth;
  if (!oauth || providerError || !code) return back('denied');
  let accessToken: string;
  try {
    ({ accessToken } = await oauth.exchangeCode(code, callbackUrl()));
  } catch (err) {
    if (err instanceof AppError && (err.code === 'DNS_CREDENTIAL_INVALID' || err.code === 'UPSTREAM_ERROR')) return back('error');
    throw err;
  }
  const account = await getDnsProvider().verifyCredential(accessToken);
  await storeConnection(grant.projectId, grant.userId, 'OAUTH', accessToken, account.accountName);
  return ended(withMarker(grant.returnTo, DNS_CONNECTED_MARKER, 'connected'), {
    projectId: grant.projectId,
    userId: grant.userId,
    action: 'dnsProvider.connectOAuth',
  });
}

/** Settings outlive a disconnection, so they can be set before connecting. */
export async function updateDnsSettings(projectId: string, actorUserId: string, autoDnsEnabled: boolean): Promise<DnsProviderStatus> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(dnsProviderConnections)
      .values({ projectId, autoDnsEnabled, updatedAt: new Date() })
      .onConflictDoUpdate({ target: dnsProviderConnections.projectId, set: { autoDnsEnabled, updatedAt: new Date() } })
      .returning();
    await emit(tx, projectId, 'dns_provider.settings_changed', { autoDnsEnabled, by: actorUserId });
    return toStatus(row!);
  });
}

/** Forgets the credential; the records made through it stay in the customer's DNS account. */
export async function disconnectDnsProvider(projectId: string, actorUserId: string): Promise<DnsProviderStatus> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(dnsProviderConnections)
      .set({ connectionType: null, sealedCredential: null, accountName: null, connectedBy: null, connectedAt: null, updatedAt: new Date() })
      .where(eq(dnsProviderConnections.projectId, projectId))
      .returning();
    if (row) await emit(tx, projectId, 'dns_provider.disconnected', { by: actorUserId });
    return toStatus(row ?? null);
  });
}

export async function listDnsZones(projectId: string): Promise<DnsZone[]> {
  const access = await requireDnsAccess(projectId);
  return getDnsProvider().listZones(access.credential);
}

export async function listDnsRecords(projectId: string, zoneId: string): Promise<DnsRecordView[]> {
  const access = await requireDnsAccess(projectId);
  return getDnsProvider().listRecords(access.credential, zoneId);
}

export interface RecordRequest {
  type: DnsRecordInput['type'];
  name: string;
  content: string;
  ttl: number;
  proxied: boolean;
  priority?: number | null | undefined;
}

export async function createDnsRecord(projectId: string, actorUserId: string, zoneId: string, request: RecordRequest): Promise<DnsRecordView> {
  const { access, record } = await prepareRecord(projectId, zoneId, request);
  const created = await getDnsProvider().createRecord(access.credential, zoneId, record);
  await recordEvent(projectId, 'dns_record.created', created, actorUserId);
  return created;
}

export async function replaceDnsRecord(
  projectId: string,
  actorUserId: string,
  zoneId: string,
  recordId: string,
  request: RecordRequest,
): Promise<DnsRecordView> {
  const { access, record } = await prepareRecord(projectId, zoneId, request);
  const replaced = await getDnsProvider().updateRecord(access.credential, zoneId, recordId, record);
  await recordEvent(projectId, 'dns_record.updated', replaced, actorUserId);
  return replaced;
}

export async function deleteDnsRecord(projectId: string, actorUserId: string, zoneId: string, recordId: string): Promise<void> {
  const access = await requireDnsAccess(projectId);
  await getDnsProvider().deleteRecord(access.credential, zoneId, recordId);
  const db = await getDb();
  await emit(db, projectId, 'dns_record.deleted', { zoneId, recordId, by: actorUserId });
}

/** The project's connection when it has one, for auto-DNS and a domain's records; null otherwise. */
export async function projectDnsAccess(projectId: string): Promise<DnsAccess | null> {
  const row = await connectionRow(projectId);
  if (!row?.sealedCredential) return null;
  return { credential: open(row.sealedCredential, projectId), autoDnsEnabled: row.autoDnsEnabled };
}

/** The account's zone that holds `hostname` (the longest matching apex), or null. */
export async function zoneHolding(credential: string, hostname: string): Promise<DnsZone | null> {
  const zones = await getDnsProvider().listZones(credential);
  const holding = zones.filter((z) => hostname === z.name || hostname.endsWith(`.${z.name}`));
  return holding.sort((a, b) => b.name.length - a.name.length)[0] ?? null;
}

/**
 * The records at each of `names` and under it, from the zones of the account that hold them: one
 * zone listing, and one record listing per zone however many names it holds.
 */
export async function recordsAtNames(credential: string, names: string[]): Promise<Map<string, DnsRecord[]>> {
  const provider = getDnsProvider();
  const zones = await provider.listZones(credential);
  const holding = (name: string) =>
    zones.filter((z) => name === z.name || name.endsWith(`.${z.name}`)).sort((a, b) => b.name.length - a.name.length)[0] ?? null;
  const recordsByZone = new Map<string, DnsRecord[]>();
  const result = new Map<string, DnsRecord[]>();
  for (const name of names) {
    const zone = holding(name);
    if (!zone) continue;
    if (!recordsByZone.has(zone.id)) recordsByZone.set(zone.id, await provider.listRecords(credential, zone.id));
    result.set(
      name,
      recordsByZone.get(zone.id)!.filter((r) => r.name === name || r.name.endsWith(`.${name}`)),
    );
  }
  return result;
}

/** Creates a record in the account's zone `zoneId` as the platform, not a member (auto-DNS). */
export async function createRecordWith(credential: string, zoneId: string, record: DnsRecordInput): Promise<DnsRecord> {
  return getDnsProvider().createRecord(credential, zoneId, record);
}

/** The body checked against every record rule (422 with the fields), its name made full in the zone. */
async function prepareRecord(projectId: string, zoneId: string, request: RecordRequest): Promise<{ access: DnsAccess; record: DnsRecordInput }> {
  const parsed = dnsRecordInputSchema.safeParse(request);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const access = await requireDnsAccess(projectId);
  const zone = (await getDnsProvider().listZones(access.credential)).find((z) => z.id === zoneId);
  if (!zone) throw new AppError('NOT_FOUND', 'DNS zone not found in the connected account');
  return { access, record: recordInZone(parsed.data, zone.name) };
}

async function recordEvent(projectId: string, type: 'dns_record.created' | 'dns_record.updated', record: DnsRecord, actorUserId: string): Promise<void> {
  const db = await getDb();
  await emit(db, projectId, type, { zoneId: record.zoneId, recordId: record.id, type: record.type, name: record.name, by: actorUserId });
}

async function requireDnsAccess(projectId: string): Promise<DnsAccess> {
  const access = await projectDnsAccess(projectId);
  if (!access) throw new AppError('DNS_PROVIDER_NOT_CONNECTED', 'No DNS provider is connected to this project; connect one with an API token first');
  return access;
}

async function verifyOrRefuse(credential: string, refusal: () => AppError) {
  try {
    return await getDnsProvider().verifyCredential(credential);
  } catch (err) {
    if (err instanceof AppError && err.code === 'DNS_CREDENTIAL_INVALID') throw refusal();
    throw err;
  }
}

async function storeConnection(
  projectId: string,
  actorUserId: string,
  connectionType: 'API_TOKEN' | 'OAUTH',
  credential: string,
  accountName: string | null,
): Promise<DnsProviderStatus> {
  const now = new Date();
  const connection = { connectionType, sealedCredential: seal(credential, projectId), accountName, connectedBy: actorUserId, connectedAt: now, updatedAt: now };
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(dnsProviderConnections)
      .values({ projectId, ...connection })
      .onConflictDoUpdate({ target: dnsProviderConnections.projectId, set: connection })
      .returning();
    await emit(tx, projectId, 'dns_provider.connected', { connectionType, accountName, by: actorUserId });
    return toStatus(row!);
  });
}

async function connectionRow(projectId: string): Promise<ConnectionRow | null> {
  const db = await getDb();
  const [row] = await db.select().from(dnsProviderConnections).where(eq(dnsProviderConnections.projectId, projectId));
  return row ?? null;
}

function toStatus(row: ConnectionRow | null): DnsProviderStatus {
  const connected = Boolean(row?.sealedCredential);
  return {
    connected,
    connectionType: connected ? (row?.connectionType ?? null) : null,
    accountName: connected ? (row?.accountName ?? null) : null,
    autoDnsEnabled: row?.autoDnsEnabled ?? false,
    oauthEnabled: getDnsProvider().oauth !== null,
    connectedAt: connected ? (row?.connectedAt?.toISOString() ?? null) : null,
  };
}

function callbackUrl(): string {
  return `${getConfig().APP_URL}/v1${DNS_OAUTH_CALLBACK_PATH}`;
}

export function integrationPagePath(projectId: string): string {
  return `/projects/${encodeURIComponent(projectId)}/integrations`;
}

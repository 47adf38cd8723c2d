import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, isNotNull, lte, or } from 'drizzle-orm';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { domains, type DomainCheck } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { assertProjectNotBlocked } from '../../billing/suspension';
import { lookupTxt } from '../../platform/dnsLookup';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { getLogger } from '../../platform/logger';
import { getRegistrarProvider } from '../../providers/registrar';
import { createRecordWith, projectDnsAccess, recordsAtNames, zoneHolding, type DnsAccess } from '../integrations';
import { normaliseDomainName } from './names';
import type { Domain, DomainVerification } from './schema';

/** The label the verification TXT record is published under, and the prefix of its value. */
export const VERIFICATION_LABEL = '_cloudpanel-verify';
const VERIFICATION_PREFIX = 'cloudpanel-verify=';

/** Background checks of a pending domain: after 1 minute, then twice as long each time, up to 6 hours apart. */
const FIRST_CHECK_MS = 60_000;
const MAX_CHECK_INTERVAL_MS = 6 * 60 * 60_000;
/** After a week unverified the job stops looking; a check from the API or the panel starts it again. */
export const GIVE_UP_AFTER_MS = 7 * 24 * 60 * 60_000;
const CHECK_BATCH = 100;

type DomainRow = typeof domains.$inferSelect;

export interface CreatedDomain extends Domain {
  autoDns: { created: boolean; detail: string | null };
}

export async function listDomains(projectId: string): Promise<Domain[]> {
  const db = await getDb();
  const rows = await db.select().from(domains).where(eq(domains.projectId, projectId)).orderBy(desc(domains.createdAt), desc(domains.id));
  const records = await recordsOf(projectId, rows);
  return rows.map((row) => toView(row, records.get(row.id) ?? []));
}

export async function getDomain(projectId: string, ref: string): Promise<Domain> {
  const row = await domainByRef(projectId, ref);
  const records = await recordsOf(projectId, [row]);
  return toView(row, records.get(row.id) ?? []);
}

/**
 * Claims an external domain for the project: PENDING, with a TXT record to publish. Refused to a
 * project blocked over an unpaid invoice (402) and for a name any project already holds (409, not
 * saying which). With auto-DNS on and the domain's zone in the connected account, the TXT record
 * is created there at once; a provider failure then does not undo the claim, it is reported.
 */
export async function addDomain(projectId: string, actorUserId: string, input: { name: string }): Promise<CreatedDomain> {
  const name = normaliseDomainName(input.name);
  const db = await getDb();
  await assertProjectNotBlocked(db, projectId, `adding the domain ${name}`);
  const now = new Date();
  let row: DomainRow;
  try {
    row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(domains)
        .values({
          id: newId('dom'),
          projectId,
          name,
          type: 'EXTERNAL',
          status: 'PENDING',
          verificationToken: randomBytes(16).toString('hex'),
          nextCheckAt: new Date(now.getTime() + FIRST_CHECK_MS),
          createdBy: actorUserId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await emit(tx, projectId, 'domain.added', { domainId: inserted!.id, name, by: actorUserId });
      return inserted!;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'domains_name_key')) throw new AppError('CONFLICT', `The domain ${name} has already been added to a project`);
    throw err;
  }
  const autoDns = await applyAutoDns(projectId, row);
  const records = await recordsOf(projectId, [row]);
  return { ...toView(row, records.get(row.id) ?? []), autoDns };
}

/**
 * Looks the verification TXT record up with a real DNS query and answers what was found next to
 * what is expected. Found: PENDING turns VERIFIED. Not found: it stays PENDING and the background
 * checks start again from their shortest interval. A verified domain stays verified.
 */
export async function verifyDomain(projectId: string, ref: string, actorUserId: string | null): Promise<DomainVerification> {
  const row = await domainByRef(projectId, ref);
  const { row: checked, check } = await checkOwnership(row, new Date(), actorUserId, 'request');
  const records = await recordsOf(projectId, [checked]);
  return { domain: toView(checked, records.get(checked.id) ?? []), check };
}

/** The one-click "create this record": the verification TXT record in the connected account's zone. */
export async function createVerificationRecord(projectId: string, ref: string): Promise<Domain> {
  const row = await domainByRef(projectId, ref);
  const access = await projectDnsAccess(projectId);
  if (!access)
    throw new AppError(
      'DNS_PROVIDER_NOT_CONNECTED',
      'No DNS provider is connected to this project; connect one, or publish the record where your DNS is hosted',
    );
  const outcome = await publishVerificationRecord(access, row);
  if (!outcome.created) throw new AppError('NOT_FOUND', outcome.detail ?? 'The verification record could not be created');
  const records = await recordsOf(projectId, [row]);
  return toView(row, records.get(row.id) ?? []);
}

/** Removes the domain from the project, freeing its name; records published for it stay where they are. */
export async function removeDomain(projectId: string, ref: string, actorUserId: string): Promise<void> {
  const row = await domainByRef(projectId, ref);
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.delete(domains).where(eq(domains.id, row.id));
    await emit(tx, projectId, 'domain.removed', { domainId: row.id, name: row.name, by: actorUserId });
  });
}

export async function searchDomains(query: string) {
  return getRegistrarProvider().searchDomains(query);
}

/**
 * The background checks: every PENDING domain whose time has come is looked up; one found turns
 * VERIFIED, one not found is looked at again after twice the last interval (up to 6 hours), and
 * one unverified for a week is left until someone asks again. Returns how many were verified.
 */
export async function checkPendingDomains(now = new Date()): Promise<number> {
  const db = await getDb();
  const due = await db
    .select()
    .from(domains)
    .where(and(eq(domains.status, 'PENDING'), isNotNull(domains.nextCheckAt), lte(domains.nextCheckAt, now)))
    .orderBy(asc(domains.nextCheckAt))
    .limit(CHECK_BATCH);
  let verified = 0;
  for (const row of due) {
    const { check } = await checkOwnership(row, now, null, 'background');
    if (check.verified) verified += 1;
  }
  return verified;
}

/** When a domain not found after `attempts` background checks is looked at next, or null once the job gives up. */
export function nextCheckAfter(createdAt: Date, attempts: number, now: Date): Date | null {
  if (now.getTime() - createdAt.getTime() >= GIVE_UP_AFTER_MS) return null;
  const interval = Math.min(FIRST_CHECK_MS * 2 ** Math.min(attempts, 20), MAX_CHECK_INTERVAL_MS);
  return new Date(now.getTime() + interval);
}

export function verificationRecordOf(row: Pick<DomainRow, 'name' | 'verificationToken'>): { type: 'TXT'; name: string; value: string } {
  return { type: 'TXT', name: `${VERIFICATION_LABEL}.${row.name}`, value: `${VERIFICATION_PREFIX}${row.verificationToken}` };
}

async function checkOwnership(
  row: DomainRow,
  now: Date,
  actorUserId: string | null,
  trigger: 'request' | 'background',
): Promise<{ row: DomainRow; check: DomainVerification['check'] }> {
  const expected = verificationRecordOf(row);
  const lookup = await lookupTxt(expected.name);
  const found = lookup.found.includes(expected.value);
  const lastCheck: DomainCheck = { at: now.toISOString(), found: lookup.found, error: lookup.error };
  const db = await getDb();
  const saved = await db.transaction(async (tx) => {
    if (found && row.status === 'PENDING') {
      const [verified] = await tx
        .update(domains)
        .set({ status: 'VERIFIED', verifiedAt: now, lastCheck, nextCheckAt: null, updatedAt: now })
        .where(and(eq(domains.id, row.id), eq(domains.status, 'PENDING')))
        .returning();
      if (verified) {
        await emit(tx, row.projectId, 'domain.verified', { domainId: row.id, name: row.name, by: actorUserId });
        return verified;
      }
    }
    const attempts = trigger === 'request' ? 0 : row.checkAttempts + 1;
    const pending = row.status === 'PENDING';
    const [updated] = await tx
      .update(domains)
      .set({
        lastCheck,
        checkAttempts: pending ? attempts : row.checkAttempts,
        nextCheckAt: pending ? nextCheckAfter(trigger === 'request' ? now : row.createdAt, attempts, now) : null,
        updatedAt: now,
      })
      .where(eq(domains.id, row.id))
      .returning();
    return updated ?? row;
  });
  return {
    row: saved,
    check: { verified: saved.status === 'VERIFIED', expected, found: lookup.found, error: lookup.error, checkedAt: now.toISOString() },
  };
}

async function applyAutoDns(projectId: string, row: DomainRow): Promise<CreatedDomain['autoDns']> {
  const access = await projectDnsAccess(projectId);
  if (!access) return { created: false, detail: 'No DNS provider is connected' };
  if (!access.autoDnsEnabled) return { created: false, detail: 'Auto-DNS is off: publish the record, or create it from the domain page' };
  return publishVerificationRecord(access, row);
}

async function publishVerificationRecord(access: DnsAccess, row: DomainRow): Promise<CreatedDomain['autoDns']> {
  const record = verificationRecordOf(row);
  try {
    const zone = await zoneHolding(access.credential, row.name);
    if (!zone) return { created: false, detail: `No zone of the connected DNS account holds ${row.name}` };
    await createRecordWith(access.credential, zone.id, { type: 'TXT', name: record.name, content: record.value, ttl: 1, proxied: false, priority: null });
    return { created: true, detail: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    getLogger().warn({ err, domainId: row.id }, 'verification record not created in the connected DNS account');
    return { created: false, detail: err.message };
  }
}

/**
 * The connected account's records at each domain and under it, one zone listing for all of them.
 * A provider that fails or a credential it refuses leaves the records empty rather than failing
 * the read: the domain itself is ours to show.
 */
async function recordsOf(projectId: string, rows: DomainRow[]): Promise<Map<string, Domain['dnsRecords']>> {
  const byDomain = new Map<string, Domain['dnsRecords']>();
  if (rows.length === 0) return byDomain;
  const access = await projectDnsAccess(projectId);
  if (!access) return byDomain;
  try {
    const found = await recordsAtNames(
      access.credential,
      rows.map((r) => r.name),
    );
    for (const row of rows) {
      byDomain.set(
        row.id,
        (found.get(row.name) ?? []).map((r) => ({ id: r.id, type: r.type, name: r.name, content: r.content, ttl: r.ttl })),
      );
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    getLogger().warn({ err, projectId }, 'domain records not read: the DNS provider failed');
  }
  return byDomain;
}

async function domainByRef(projectId: string, ref: string): Promise<DomainRow> {
  const db = await getDb();
  const byName = ref.includes('.') ? safeName(ref) : null;
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.projectId, projectId), byName ? or(eq(domains.name, byName), eq(domains.id, ref)) : eq(domains.id, ref)));
  if (!row) throw new AppError('NOT_FOUND', 'Domain not found');
  return row;
}

function safeName(ref: string): string | null {
  try {
    return normaliseDomainName(ref);
  } catch {
    return null;
  }
}

function toView(row: DomainRow, dnsRecords: Domain['dnsRecords']): Domain {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    dnsRecords,
    verificationRecord: verificationRecordOf(row),
  };
}

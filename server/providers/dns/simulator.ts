import { createHash } from 'node:crypto';
import { and, asc, eq, ne } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { dnsSimRecords, dnsSimZones } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { getConfig, type DNS_SIM_OPERATIONS } from '../../platform/config';
import { AppError, invalidField, notFound, validationError } from '../../platform/errors';
import { dnsRecordInputSchema, recordInZone } from './records';
import { DNS_RECORD_TYPES, type DnsAccount, type DnsProvider, type DnsRecord, type DnsRecordInput, type DnsRecordType, type DnsZone } from './types';

type SimulatedOperation = (typeof DNS_SIM_OPERATIONS)[number];
type ZoneRow = typeof dnsSimZones.$inferSelect;
type RecordRow = typeof dnsSimRecords.$inferSelect;

/** Cloudflare's API tokens are 40 characters of this alphabet; anything else could not be one. */
const CREDENTIAL_SHAPE = /^[A-Za-z0-9_-]{40}$/;
/** Lets tests and demos rehearse a token the customer revoked after connecting it. */
const REVOKED_PREFIX = 'revoked';
/** Cloudflare's record quota of a zone on its smallest plan. */
export const MAX_RECORDS_PER_ZONE = 200;

/**
 * The embedded DNS provider: a small model of Cloudflare's DNS API whose zones and records live in
 * PostgreSQL, so every process sees the same ones. An account is the SHA-256 of the token that
 * reaches it (no token is stored); a new account is seeded with the zones of DNS_SIM_ZONES, each with
 * a few demo records. It applies the record rules of records.ts and Cloudflare's own limits, and
 * DNS_SIM_FAIL makes chosen operations fail the way an unreachable provider would.
 */
export class DnsSimulator implements DnsProvider {
  readonly kind = 'simulator' as const;
  readonly description = 'Simulated DNS provider: zones and records are kept in this panel’s database and served by no public nameserver';
  readonly oauth = null;

  async verifyCredential(credential: string): Promise<DnsAccount> {
    failIfInjected('verify');
    const account = await openAccount(credential);
    return { accountName: `Simulated account ${account.slice(0, 6)}` };
  }

  async listZones(credential: string): Promise<DnsZone[]> {
    failIfInjected('zones');
    const account = await openAccount(credential);
    const db = await getDb();
    const rows = await db.select().from(dnsSimZones).where(eq(dnsSimZones.account, account)).orderBy(asc(dnsSimZones.name));
    return rows.map(toZone);
  }

  async listRecords(credential: string, zoneId: string): Promise<DnsRecord[]> {
    failIfInjected('records');
    const account = await openAccount(credential);
    const db = await getDb();
    const zone = await findZone(db, account, zoneId);
    const rows = await db
      .select()
      .from(dnsSimRecords)
      .where(eq(dnsSimRecords.zoneId, zone.id))
      .orderBy(asc(dnsSimRecords.name), asc(dnsSimRecords.type), asc(dnsSimRecords.createdAt), asc(dnsSimRecords.id));
    return rows.flatMap((row) => (isSupportedType(row.type) ? [toRecord(row, row.type)] : []));
  }

  async createRecord(credential: string, zoneId: string, record: DnsRecordInput): Promise<DnsRecord> {
    failIfInjected('create');
    const account = await openAccount(credential);
    const db = await getDb();
    return db.transaction(async (tx) => {
      // The zone's row is locked so that two writes racing into one zone see each other's records.
      const zone = await findZone(tx, account, zoneId, true);
      const wanted = validRecord(record, zone.name);
      const existing = await tx.select().from(dnsSimRecords).where(eq(dnsSimRecords.zoneId, zone.id));
      if (existing.length >= MAX_RECORDS_PER_ZONE) {
        throw new AppError('VALIDATION_ERROR', `The zone already holds ${MAX_RECORDS_PER_ZONE} records, the most the DNS provider allows`);
      }
      refuseClash(wanted, existing);
      const now = new Date();
      const [row] = await tx
        .insert(dnsSimRecords)
        .values({ id: newId('dnsrec'), zoneId: zone.id, ...wanted, createdAt: now, modifiedAt: now })
        .returning();
      return toRecord(row!, wanted.type);
    });
  }

  async updateRecord(credential: string, zoneId: string, recordId: string, record: DnsRecordInput): Promise<DnsRecord> {
    failIfInjected('update');
    const account = await openAccount(credential);
    const db = await getDb();
    return db.transaction(async (tx) => {
      const zone = await findZone(tx, account, zoneId, true);
      const wanted = validRecord(record, zone.name);
      const others = await tx
        .select()
        .from(dnsSimRecords)
        .where(and(eq(dnsSimRecords.zoneId, zone.id), ne(dnsSimRecords.id, recordId)));
      const [current] = await tx
        .select({ id: dnsSimRecords.id })
        .from(dnsSimRecords)
        .where(and(eq(dnsSimRecords.zoneId, zone.id), eq(dnsSimRecords.id, recordId)));
      if (!current) throw notFound('DNS record');
      refuseClash(wanted, others);
      const [row] = await tx
        .update(dnsSimRecords)
        .set({ ...wanted, modifiedAt: new Date() })
        .where(eq(dnsSimRecords.id, recordId))
        .returning();
      return toRecord(row!, wanted.type);
    });
  }

  async deleteRecord(credential: string, zoneId: string, recordId: string): Promise<void> {
    failIfInjected('delete');
    const account = await openAccount(credential);
    const db = await getDb();
    const zone = await findZone(db, account, zoneId);
    const deleted = await db
      .delete(dnsSimRecords)
      .where(and(eq(dnsSimRecords.zoneId, zone.id), eq(dnsSimRecords.id, recordId)))
      .returning({ id: dnsSimRecords.id });
    if (deleted.length === 0) throw notFound('DNS record');
  }
}

/** The account a credential reaches, seeded with the demo zones on its first use; DNS_CREDENTIAL_INVALID for a credential refused. */
async function openAccount(credential: string): Promise<string> {
  if (!CREDENTIAL_SHAPE.test(credential) || credential.startsWith(REVOKED_PREFIX)) {
    throw new AppError('DNS_CREDENTIAL_INVALID', 'The DNS provider refused the API token: it is invalid, expired or revoked');
  }
  const account = createHash('sha256').update(credential).digest('hex');
  const db = await getDb();
  const [known] = await db.select({ id: dnsSimZones.id }).from(dnsSimZones).where(eq(dnsSimZones.account, account)).limit(1);
  if (!known) await seedAccount(account);
  return account;
}

/**
 * Two first uses racing each other both get here: the unique (account, name) index lets one of
 * them insert each zone, and only the one that inserted a zone fills it.
 */
async function seedAccount(account: string): Promise<void> {
  const db = await getDb();
  for (const name of getConfig().DNS_SIM_ZONES) {
    await db.transaction(async (tx) => {
      const [zone] = await tx
        .insert(dnsSimZones)
        .values({ id: newId('dnszone'), account, name, status: 'active' })
        .onConflictDoNothing({ target: [dnsSimZones.account, dnsSimZones.name] })
        .returning();
      if (zone) await tx.insert(dnsSimRecords).values(demoRecords(zone.name).map((record) => ({ id: newId('dnsrec'), zoneId: zone.id, ...record })));
    });
  }
}

/** What a zone newly added at a provider usually holds: the site at the apex and www, and mail. */
function demoRecords(zone: string): DnsRecordInput[] {
  return [
    { type: 'A', name: zone, content: '203.0.113.10', ttl: 1, proxied: false, priority: null },
    { type: 'CNAME', name: `www.${zone}`, content: zone, ttl: 1, proxied: false, priority: null },
    { type: 'A', name: `mail.${zone}`, content: '203.0.113.25', ttl: 3600, proxied: false, priority: null },
    { type: 'MX', name: zone, content: `mail.${zone}`, ttl: 3600, proxied: false, priority: 10 },
  ];
}

async function findZone(db: DbOrTx, account: string, zoneId: string, lock = false): Promise<ZoneRow> {
  const query = db
    .select()
    .from(dnsSimZones)
    .where(and(eq(dnsSimZones.id, zoneId), eq(dnsSimZones.account, account)));
  const [zone] = lock ? await query.for('update') : await query;
  // Another account's zone answers as one that does not exist: the provider does not say whose it is.
  if (!zone) throw notFound('DNS zone');
  return zone;
}

/** The record rules of records.ts, as the API applies them, and the name made fully qualified in the zone. */
function validRecord(record: DnsRecordInput, zoneName: string): DnsRecordInput {
  const parsed = dnsRecordInputSchema.safeParse(record);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return recordInZone(parsed.data, zoneName);
}

/** Cloudflare's refusals of a record that would clash with the zone's others. */
function refuseClash(wanted: DnsRecordInput, others: RecordRow[]): void {
  const sameName = others.filter((other) => other.name === wanted.name);
  if (sameName.some((other) => other.type === wanted.type && other.content === wanted.content)) {
    throw invalidField('content', 'an identical record already exists');
  }
  if (wanted.type === 'CNAME' && sameName.length > 0) {
    throw invalidField('name', 'a CNAME record cannot share its name with any other record');
  }
  if (sameName.some((other) => other.type === 'CNAME')) {
    throw invalidField('name', 'a CNAME record already has this name, and a CNAME cannot share its name with any other record');
  }
}

function toZone(row: ZoneRow): DnsZone {
  return { id: row.id, name: row.name, status: row.status };
}

function toRecord(row: RecordRow, type: DnsRecordType): DnsRecord {
  return {
    id: row.id,
    zoneId: row.zoneId,
    type,
    name: row.name,
    content: row.content,
    ttl: row.ttl,
    proxied: row.proxied,
    priority: row.priority,
    createdAt: row.createdAt.toISOString(),
    modifiedAt: row.modifiedAt.toISOString(),
  };
}

function isSupportedType(type: string): type is DnsRecordType {
  return (DNS_RECORD_TYPES as readonly string[]).includes(type);
}

function failIfInjected(operation: SimulatedOperation): void {
  if (getConfig().DNS_SIM_FAIL.includes(operation)) {
    throw new AppError('UPSTREAM_ERROR', `The DNS provider failed (${operation}); try again shortly`);
  }
}

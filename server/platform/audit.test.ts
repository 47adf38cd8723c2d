import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '../../db';
import { auditEntries } from '../../db/schema';
import { newId } from '../../db/schema/ids';
import { queryRows } from '../../test/db';
import { auditTargetsOf, INTERRUPTED_AFTER_MS, markInterruptedAuditEntries, purgeExpiredAuditEntries } from './audit';
import { resetConfigForTests } from './config';

const DAY_MS = 24 * 3600_000;

async function insertEntry(values: { outcome: string; createdAt: Date }): Promise<string> {
  const id = newId('aud');
  const db = await getDb();
  await db.insert(auditEntries).values({
    id,
    projectId: null,
    actorUserId: 'usr_fixture',
    action: 'fixture.write',
    targets: {},
    requestId: 'req-fixture',
    clientIp: '203.0.113.1',
    transport: 'rest',
    ...values,
  });
  return id;
}

async function outcomeOf(id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ outcome: string }>(sql`select outcome from audit_entries where id = ${id}`);
  return row?.outcome;
}

describe('target ids', () => {
  it('keeps only fields named …Id or …Ids whose values look like ids', () => {
    expect(
      auditTargetsOf({
        projectId: 'my-shop',
        sshKeyIds: ['ssh_a', 'ssh_b', 'not an id', 7],
        keyId: 'key_123',
        name: 'Production',
        publicKey: 'ssh-ed25519 AAAA',
        password: 'hunter2hunter2',
        token: 'tok_secret',
        cardNumber: '4242424242424242',
        scopes: ['servers:read'],
        pastedId: 'has spaces and more',
        Id: 'x',
        nested: { serverId: 'srv_1' },
      }),
    ).toEqual({ projectId: 'my-shop', sshKeyIds: ['ssh_a', 'ssh_b'], keyId: 'key_123' });
  });

  it('records nothing from an input that is not an object', () => {
    expect(auditTargetsOf(undefined)).toEqual({});
    expect(auditTargetsOf(['prj_1'])).toEqual({});
    expect(auditTargetsOf('prj_1')).toEqual({});
  });
});

describe('pending entries whose process ended', () => {
  it('are marked interrupted once older than any request can run; recent and settled ones are left alone', async () => {
    const now = new Date();
    const stale = await insertEntry({ outcome: 'pending', createdAt: new Date(now.getTime() - INTERRUPTED_AFTER_MS - 1000) });
    const running = await insertEntry({ outcome: 'pending', createdAt: new Date(now.getTime() - 60_000) });
    const settled = await insertEntry({ outcome: 'ok', createdAt: new Date(now.getTime() - 2 * INTERRUPTED_AFTER_MS) });
    expect(await markInterruptedAuditEntries(now)).toBe(1);
    expect([await outcomeOf(stale), await outcomeOf(running), await outcomeOf(settled)]).toEqual(['interrupted', 'pending', 'ok']);
  });
});

describe('retention', () => {
  beforeEach(async () => {
    await queryRows(sql`delete from audit_entries`);
  });

  afterEach(() => {
    delete process.env.AUDIT_RETENTION_DAYS;
    resetConfigForTests();
  });

  it('purges entries older than 400 days by default and keeps younger ones', async () => {
    const now = new Date();
    const old = await insertEntry({ outcome: 'ok', createdAt: new Date(now.getTime() - 401 * DAY_MS) });
    const young = await insertEntry({ outcome: 'FORBIDDEN', createdAt: new Date(now.getTime() - 399 * DAY_MS) });
    expect(await purgeExpiredAuditEntries(now)).toBe(1);
    expect([await outcomeOf(old), await outcomeOf(young)]).toEqual([undefined, 'FORBIDDEN']);
  });

  it('follows AUDIT_RETENTION_DAYS', async () => {
    process.env.AUDIT_RETENTION_DAYS = '30';
    resetConfigForTests();
    const now = new Date();
    const month = await insertEntry({ outcome: 'ok', createdAt: new Date(now.getTime() - 31 * DAY_MS) });
    const week = await insertEntry({ outcome: 'ok', createdAt: new Date(now.getTime() - 7 * DAY_MS) });
    expect(await purgeExpiredAuditEntries(now)).toBe(1);
    expect([await outcomeOf(month), await outcomeOf(week)]).toEqual([undefined, 'ok']);
  });
});

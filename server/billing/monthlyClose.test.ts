import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { api, createProject, createUser, expectError } from '../../test/helpers';
import { addCard, CARDS, ledgerIntents, widgetPurchase } from '../../test/billingHelpers';
import { queryRows } from '../../test/db';
import { closeMonthForAllProjects, closeMonthForProject } from './monthlyClose';
import { endBillingItem, purchaseCreation } from './purchases';
import { getDb } from '../../db';
import { getPaymentsProvider } from '../providers/payments';

type Invoice = {
  id: string;
  period: string;
  status: string;
  total: number;
  subtotal: number;
  creditApplied: number;
  lines?: Array<{ amount: number; description: string }>;
};

async function projectWithWidgets(card: string, monthlies: number[]) {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  await addCard(owner, projectId, card);
  const created = [];
  for (const [i, monthly] of monthlies.entries()) {
    created.push(await purchaseCreation(widgetPurchase(projectId, owner.id, `w${i}`, monthly, new Date('2026-10-20T00:00:00Z'))));
  }
  return { owner, projectId, created };
}

async function eventTypes(projectId: string) {
  return (await queryRows<{ type: string }>(sql`select type from events where project_id = ${projectId} order by created_at`)).map((e) => e.type);
}

describe('monthly close', () => {
  it('bills every active item in full for the new month, once, however often it runs', async () => {
    const { owner, projectId, created } = await projectWithWidgets(CARDS.ok, [1000, 2500, 700]);
    const db = await getDb();
    await db.transaction((tx) => endBillingItem(tx, projectId, 'widget', created[2]!.resourceId, new Date('2026-10-25T00:00:00Z')));
    const close = new Date('2026-11-01T00:05:00Z');
    const chargesBefore = (await ledgerIntents(owner.id)).length;

    const first = await closeMonthForProject(projectId, close);
    const again = await closeMonthForProject(projectId, close);
    await closeMonthForAllProjects(close);
    expect(again?.id).toBe(first?.id);
    expect(first).toMatchObject({ period: '2026-11', status: 'paid', subtotal: 3500, total: 3500 });
    expect((await ledgerIntents(owner.id)).length - chargesBefore).toBe(1);
    expect((await ledgerIntents(owner.id)).at(-1)?.amount).toBe(3500);

    const listed = (await api<Invoice[]>('GET', `/v1/projects/${projectId}/billing/invoices`, { cookie: owner.cookie })).data;
    expect(listed).toHaveLength(1);
    const invoice = (await api<Invoice>('GET', `/v1/projects/${projectId}/billing/invoices/${first!.id}`, { cookie: owner.cookie })).data;
    expect(invoice.lines?.map((l) => l.amount).sort()).toEqual([1000, 2500]);
    expect(await eventTypes(projectId)).toContain('invoice.paid');
    expectError(await api('GET', `/v1/projects/${projectId}/billing/invoices/in_nope`, { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });

  it('marks a declined invoice failed, blocks the project, and unblocks it once paid', async () => {
    const { owner, projectId } = await projectWithWidgets(CARDS.ok, [1200]);
    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    const failed = await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z'));
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    expect(await eventTypes(projectId)).toContain('invoice.payment_failed');
    const blocked = (await api<{ blockedAt: string | null; blockedReason: string | null }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data;
    expect(blocked.blockedAt).not.toBeNull();
    expect(blocked.blockedReason).toContain('2026-11');

    expectError(await api('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, { cookie: owner.cookie }), 402, 'CARD_DECLINED');
    await addCard(owner, projectId, '5555 5555 5555 4444');
    const cards = (await api<Array<{ id: string; last4: string }>>('GET', `/v1/projects/${projectId}/billing/payment-methods`, { cookie: owner.cookie })).data;
    await api('POST', `/v1/projects/${projectId}/billing/payment-methods/${cards.find((c) => c.last4 === '4444')!.id}/default`, { cookie: owner.cookie });
    const paid = await api<Invoice>('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, { cookie: owner.cookie });
    expect(paid.data.status).toBe('paid');
    const unblocked = (await api<{ blockedAt: string | null }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data;
    expect(unblocked.blockedAt).toBeNull();
    expectError(await api('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, { cookie: owner.cookie }), 409, 'CONFLICT');
  });

  it('refuses to pay an invoice the close is still collecting: a second key would charge it twice', async () => {
    const { owner, projectId } = await projectWithWidgets(CARDS.ok, [900]);
    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    const failed = await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z'));
    await queryRows(sql`update invoices set status = 'open' where id = ${failed!.id}`);
    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    const chargesBefore = (await ledgerIntents(owner.id)).length;
    expectError(await api('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, { cookie: owner.cookie }), 409, 'CONFLICT');
    expect((await ledgerIntents(owner.id)).length).toBe(chargesBefore);
  });

  it('refunds a charge that finds its invoice paid by another attempt, and never marks a paid invoice failed', async () => {
    const { owner, projectId } = await projectWithWidgets(CARDS.ok, [1300]);
    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    const failed = await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z'));
    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    const provider = getPaymentsProvider();
    const charge = provider.chargeOffSession.bind(provider);
    // Another attempt settles the invoice while this one is at the processor.
    const spy = vi.spyOn(provider, 'chargeOffSession').mockImplementationOnce(async (input) => {
      const result = await charge(input);
      await queryRows(sql`update invoices set status = 'paid', paid_at = now(), processor_charge_id = 'ch_other_attempt' where id = ${failed!.id}`);
      return result;
    });
    const paid = await api<Invoice & { processorChargeId?: string }>('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, {
      cookie: owner.cookie,
    });
    spy.mockRestore();
    expect(paid.data.status).toBe('paid');
    const last = (await ledgerIntents(owner.id)).at(-1)!;
    expect(last).toMatchObject({ amount: 1300, status: 'succeeded', amount_refunded: 1300 });

    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    await queryRows(sql`update invoices set status = 'failed' where id = ${failed!.id}`);
    const declining = vi.spyOn(provider, 'chargeOffSession').mockImplementationOnce(async (input) => {
      const result = await charge(input);
      await queryRows(sql`update invoices set status = 'paid' where id = ${failed!.id}`);
      return result;
    });
    // The decline lost the race: the answer is the invoice as it stands, paid.
    const raced = await api<Invoice>('POST', `/v1/projects/${projectId}/billing/invoices/${failed!.id}/pay`, { cookie: owner.cookie });
    declining.mockRestore();
    expect(raced.data.status).toBe('paid');
    expect((await queryRows<{ status: string }>(sql`select status from invoices where id = ${failed!.id}`))[0]?.status).toBe('paid');
  });

  it('does not invoice items created during the month being closed into, nor projects without items', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    expect(await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z'))).toBeNull();
    await addCard(owner, projectId, CARDS.ok);
    await purchaseCreation(widgetPurchase(projectId, owner.id, 'late', 1000, new Date('2026-11-01T00:01:00Z')));
    expect(await closeMonthForProject(projectId, new Date('2026-11-01T00:05:00Z'))).toBeNull();
  });
});

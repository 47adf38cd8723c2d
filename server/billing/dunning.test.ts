import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { JOBS } from '../app';
import { api, createProject, createUser, expectError, type TestUser } from '../../test/helpers';
import { addCard, CARDS, ledgerIntents, widgetPurchase } from '../../test/billingHelpers';
import { queryRows } from '../../test/db';
import { runDunning } from './dunning';
import { DUNNING } from './jobs';
import { closeMonthForProject } from './monthlyClose';
import { purchaseCreation } from './purchases';
import type { SuspensionHook } from '../platform/domain';
import { registerSuspensionHook } from './suspension';

const DAY = 24 * 3_600_000;
const CLOSE = new Date('2026-11-01T00:05:00.000Z');
const after = (days: number) => new Date(CLOSE.getTime() + days * DAY);

/** A stand-in domain: records what the engine asks of it, and holds "suspended" resources per project. */
const widgets = {
  suspended: new Set<string>(),
  calls: [] as string[],
  failResume: false,
};
const widgetSuspension: SuspensionHook = {
  resource: 'widgets',
  async suspend(projectId) {
    widgets.calls.push(`suspend ${projectId}`);
    widgets.suspended.add(projectId);
  },
  async resume(projectId) {
    widgets.calls.push(`resume ${projectId}`);
    if (widgets.failResume) throw new Error('provider down');
    widgets.suspended.delete(projectId);
  },
  async projectsWithSuspendedResources() {
    return [...widgets.suspended];
  },
};
registerSuspensionHook(widgetSuspension);

interface InvoiceRow {
  id: string;
  status: string;
  attempts: number;
  first_failed_at: Date | null;
  next_attempt_at: Date | null;
}

async function invoiceRow(id: string): Promise<InvoiceRow> {
  const [row] = await queryRows<InvoiceRow>(sql`select id, status, attempts, first_failed_at, next_attempt_at from invoices where id = ${id}`);
  return {
    ...row!,
    first_failed_at: row!.first_failed_at && new Date(row!.first_failed_at),
    next_attempt_at: row!.next_attempt_at && new Date(row!.next_attempt_at),
  };
}

async function projectState(projectId: string) {
  const [row] = await queryRows<{ blocked_at: Date | null; suspended_at: Date | null }>(
    sql`select blocked_at, suspended_at from projects where id = ${projectId}`,
  );
  return { blocked: row!.blocked_at !== null, suspendedAt: row!.suspended_at && new Date(row!.suspended_at).toISOString() };
}

async function eventTypes(projectId: string): Promise<string[]> {
  return (await queryRows<{ type: string }>(sql`select type from events where project_id = ${projectId} order by created_at, id`)).map((e) => e.type);
}

/** A project billing a widget from October, whose card declines every charge from the close on. */
async function projectWithFailedInvoice(): Promise<{ owner: TestUser; projectId: string; invoiceId: string }> {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  await addCard(owner, projectId, CARDS.ok);
  await purchaseCreation(widgetPurchase(projectId, owner.id, 'w1', 1500, new Date('2026-10-20T00:00:00Z')));
  await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
  const invoice = await closeMonthForProject(projectId, CLOSE);
  expect(invoice?.status).toBe('failed');
  return { owner, projectId, invoiceId: invoice!.id };
}

beforeEach(() => {
  widgets.suspended.clear();
  widgets.calls.length = 0;
  widgets.failResume = false;
});

describe('dunning', () => {
  it('is a job of the billing engine, run every quarter of an hour', () => {
    expect(JOBS.find((job) => job.name === DUNNING)?.cron).toBe('*/15 * * * *');
  });

  it('schedules retries 1, 3 and 5 days after the first failure, each attempt charged once under its own key', async () => {
    const { owner, projectId, invoiceId } = await projectWithFailedInvoice();
    expect(await invoiceRow(invoiceId)).toMatchObject({ attempts: 1, first_failed_at: CLOSE, next_attempt_at: after(1) });

    await runDunning(new Date(after(1).getTime() - 1));
    expect((await invoiceRow(invoiceId)).attempts).toBe(1);

    for (const [day, attempts, next] of [
      [1, 2, after(3)],
      [3, 3, after(5)],
      [5, 4, null],
    ] as const) {
      await runDunning(after(day));
      await runDunning(after(day));
      expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'failed', attempts, first_failed_at: CLOSE, next_attempt_at: next });
    }
    const keys = (await ledgerIntents(owner.id)).map((charge) => charge.idempotency_key).filter((key) => key.startsWith('invoice:'));
    expect(keys).toEqual([`invoice:${invoiceId}`, `invoice:${invoiceId}:attempt:2`, `invoice:${invoiceId}:attempt:3`, `invoice:${invoiceId}:attempt:4`]);
    await runDunning(after(6));
    expect((await invoiceRow(invoiceId)).attempts).toBe(4);
    expect(await projectState(projectId)).toEqual({ blocked: true, suspendedAt: null });
  });

  it('pays the invoice on a scheduled retry once the card works again, and unblocks the project', async () => {
    const { projectId, invoiceId } = await projectWithFailedInvoice();
    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    expect((await runDunning(after(1))).paid).toBeGreaterThanOrEqual(1);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', next_attempt_at: null });
    expect(await projectState(projectId)).toEqual({ blocked: false, suspendedAt: null });
  });

  it('suspends the project once the grace period has passed, stopping every registered domain, once', async () => {
    const { owner, projectId } = await projectWithFailedInvoice();
    const overview = async () =>
      (await api<{ suspendedAt: string | null; suspendsAt: string | null }>('GET', `/v1/projects/${projectId}/billing`, { cookie: owner.cookie })).data;
    await runDunning(new Date(after(7).getTime() - 1));
    expect(await projectState(projectId)).toEqual({ blocked: true, suspendedAt: null });
    expect(await overview()).toEqual(expect.objectContaining({ suspendedAt: null, suspendsAt: after(7).toISOString() }));
    expect(widgets.suspended.has(projectId)).toBe(false);

    expect((await runDunning(after(7))).suspended).toBeGreaterThanOrEqual(1);
    expect(await projectState(projectId)).toEqual({ blocked: true, suspendedAt: after(7).toISOString() });
    expect(await overview()).toEqual(expect.objectContaining({ suspendedAt: after(7).toISOString(), suspendsAt: null }));
    expect(widgets.suspended.has(projectId)).toBe(true);
    expect(await runDunning(after(8))).toMatchObject({ suspended: 0 });
    expect((await eventTypes(projectId)).filter((type) => type === 'billing.project_suspended')).toHaveLength(1);
    const [event] = await queryRows<{ payload: { invoices: unknown[]; unpaidSince: string } }>(
      sql`select payload from events where project_id = ${projectId} and type = 'billing.project_suspended'`,
    );
    expect(event?.payload).toMatchObject({ unpaidSince: CLOSE.toISOString(), invoices: [{ period: '2026-11' }] });
  });

  it('lifts the suspension when the invoice is paid, restarts the domains, and retries a restart that failed', async () => {
    const { owner, projectId, invoiceId } = await projectWithFailedInvoice();
    await runDunning(after(7));
    expect(widgets.suspended.has(projectId)).toBe(true);

    const project = await api<{ suspendedAt: string | null; blockedAt: string | null }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie });
    expect(project.data.suspendedAt).toBe(after(7).toISOString());
    expectError(await api('POST', `/v1/projects/${projectId}/billing/invoices/${invoiceId}/pay`, { cookie: owner.cookie }), 402, 'CARD_DECLINED');
    expect((await projectState(projectId)).suspendedAt).not.toBeNull();

    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    widgets.failResume = true;
    const paid = await api<{ status: string }>('POST', `/v1/projects/${projectId}/billing/invoices/${invoiceId}/pay`, { cookie: owner.cookie });
    expect(paid.data.status).toBe('paid');
    expect(await projectState(projectId)).toEqual({ blocked: false, suspendedAt: null });
    expect(await eventTypes(projectId)).toContain('billing.project_resumed');
    expect(widgets.calls.filter((call) => call === `resume ${projectId}`)).toHaveLength(1);
    expect(widgets.suspended.has(projectId)).toBe(true);

    widgets.failResume = false;
    await runDunning(after(9));
    expect(widgets.suspended.has(projectId)).toBe(false);
  });

  it('keeps stopping what still runs in a suspended project on every pass', async () => {
    const { projectId } = await projectWithFailedInvoice();
    await runDunning(after(7));
    const suspend = vi.spyOn(widgetSuspension, 'suspend');
    await runDunning(after(7.01));
    expect(suspend).toHaveBeenCalledWith(projectId);
    suspend.mockRestore();
  });

  it('does not suspend a project whose invoice was paid in time', async () => {
    const { owner, projectId, invoiceId } = await projectWithFailedInvoice();
    await queryRows(sql`update ledger_payment_methods set behaviour = 'succeed'`);
    await api('POST', `/v1/projects/${projectId}/billing/invoices/${invoiceId}/pay`, { cookie: owner.cookie }).then((r) => r.data);
    await runDunning(after(30));
    expect(await projectState(projectId)).toEqual({ blocked: false, suspendedAt: null });
    expect(widgets.calls.filter((call) => call.endsWith(projectId))).toEqual([]);
  });
});

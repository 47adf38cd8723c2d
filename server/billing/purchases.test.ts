import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AppError } from '../platform/errors';
import { api, createProject, createUser } from '../../test/helpers';
import { addCard, CARDS, ledgerIntents, widgetPurchase, widgetsOf } from '../../test/billingHelpers';
import { queryRows } from '../../test/db';
import { previewPurchase, purchaseCreation, purchaseTierChange, reconcileAbandonedPurchases } from './purchases';

async function paidProject(card: string = CARDS.ok) {
  const owner = await createUser();
  const { projectId } = await createProject(owner);
  await addCard(owner, projectId, card);
  return { owner, projectId };
}

async function expectAppError(promise: Promise<unknown>, code: string) {
  await expect(promise).rejects.toSatisfy((err: unknown) => err instanceof AppError && err.code === code);
}

describe('purchaseCreation', () => {
  it.each([
    ['a 28-day February', '2026-02-10T08:30:00Z'],
    ['a leap February', '2028-02-10T08:30:00Z'],
    ['a 30-day month', '2026-04-10T08:30:00Z'],
    ['a 31-day month', '2026-05-10T08:30:00Z'],
  ])('charges exactly the preview shown just before, in %s', async (_label, iso) => {
    const { owner, projectId } = await paidProject();
    const now = new Date(iso);
    const preview = await previewPurchase(projectId, 2499, now);
    const receipt = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w1', 2499, now));
    expect(receipt.charged).toEqual(preview);
    const intents = await ledgerIntents(owner.id);
    expect(intents.at(-1)).toMatchObject({ amount: preview.dueToday, status: 'succeeded', idempotency_key: `purchase:${receipt.purchaseId}` });
    expect(preview.dueToday).toBeGreaterThan(0);
    expect(preview.dueToday).toBeLessThan(2499);
  });

  it('refuses with ORG_PAYMENT_METHOD_REQUIRED for the biller and BILLER_PAYMENT_METHOD_REQUIRED for others', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const admin = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin')`);
    await expectAppError(purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 1000)), 'ORG_PAYMENT_METHOD_REQUIRED');
    await expectAppError(purchaseCreation(widgetPurchase(projectId, admin.id, 'w', 1000)), 'BILLER_PAYMENT_METHOD_REQUIRED');
    expect(await widgetsOf(projectId)).toHaveLength(0);
  });

  it('creates nothing when the card is declined at charge time, and says so with 402 CARD_DECLINED', async () => {
    const { owner, projectId } = await paidProject(CARDS.declinesOnCharge);
    await expectAppError(purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 1000)), 'CARD_DECLINED');
    expect(await widgetsOf(projectId)).toHaveLength(0);
    expect(await queryRows(sql`select id from billing_items where project_id = ${projectId}`)).toHaveLength(0);
    const [purchase] = await queryRows<{ status: string; failure_code: string }>(
      sql`select status, failure_code from purchases where project_id = ${projectId}`,
    );
    expect(purchase).toEqual({ status: 'failed', failure_code: 'card_declined' });
  });

  it('charges once and creates once under 20 concurrent identical creates', async () => {
    const { owner, projectId } = await paidProject();
    const before = (await ledgerIntents(owner.id)).length;
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => purchaseCreation(widgetPurchase(projectId, owner.id, 'same-name', 1500))));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(refused.map((r) => (r.reason instanceof AppError ? r.reason.code : String(r.reason)))).toEqual(Array(19).fill('CONFLICT'));
    expect((await ledgerIntents(owner.id)).length - before).toBe(1);
    expect(await widgetsOf(projectId)).toHaveLength(1);
  });

  it('refunds the charge when the resource cannot be created', async () => {
    const { owner, projectId } = await paidProject();
    const request = widgetPurchase(projectId, owner.id, 'w', 3000);
    await expect(
      purchaseCreation({
        ...request,
        fulfil: async () => {
          throw new Error('upstream refused');
        },
      }),
    ).rejects.toThrow('upstream refused');
    const [intent] = await ledgerIntents(owner.id);
    expect(intent!.amount).toBeGreaterThan(0);
    expect(intent!.amount_refunded).toBe(intent!.amount);
    const [purchase] = await queryRows<{ status: string }>(sql`select status from purchases where project_id = ${projectId}`);
    expect(purchase?.status).toBe('refunded');
    expect(await queryRows(sql`select id from billing_items where project_id = ${projectId}`)).toHaveLength(0);
  });

  it('refuses a project blocked over an unpaid invoice with 402 PROJECT_BLOCKED', async () => {
    const { owner, projectId } = await paidProject();
    await queryRows(sql`update projects set blocked_at = now(), blocked_reason = 'Unpaid invoice for 2026-10' where id = ${projectId}`);
    await expectAppError(purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 1000)), 'PROJECT_BLOCKED');
    expect(await ledgerIntents(owner.id)).toHaveLength(0);
  });

  it('records the charge in the project charge history of the month in progress', async () => {
    const { owner, projectId } = await paidProject();
    const receipt = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 3100));
    const history = (
      await api<{ resourceHistory: Array<{ other: number; inProgress: boolean }> }>('GET', `/v1/projects/${projectId}/stats`, { cookie: owner.cookie })
    ).data.resourceHistory;
    expect(history.at(-1)).toMatchObject({ inProgress: true, other: receipt.charged.subtotal });
  });
});

describe('tier changes and credit', () => {
  it('credits a downgrade back and applies that credit to the next purchase before the card', async () => {
    const { owner, projectId } = await paidProject();
    const now = new Date('2026-04-16T00:00:00Z');
    const created = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 4000, now));
    const down = await purchaseTierChange({
      projectId,
      actorUserId: owner.id,
      billingItemId: created.billingItemId,
      monthly: 1000,
      description: 'Widget w (small)',
      apply: async () => 'applied',
      now,
    });
    expect(down.preview).toMatchObject({ direction: 'downgrade', dueToday: 0, creditBack: 1500 });
    const overview = (await api<{ creditBalance: number }>('GET', `/v1/projects/${projectId}/billing`, { cookie: owner.cookie })).data;
    expect(overview.creditBalance).toBe(1500);

    const intentsBefore = (await ledgerIntents(owner.id)).length;
    const second = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w2', 2000, now));
    expect(second.charged).toMatchObject({ subtotal: 1000, creditApplied: 1000, dueToday: 0 });
    expect((await ledgerIntents(owner.id)).length).toBe(intentsBefore);
    expect((await api<{ creditBalance: number }>('GET', `/v1/projects/${projectId}/billing`, { cookie: owner.cookie })).data.creditBalance).toBe(500);
  });

  it('invoices an upgrade now, and leaves the tier unchanged when the card declines', async () => {
    const { owner, projectId } = await paidProject();
    const now = new Date('2026-04-16T00:00:00Z');
    const created = await purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 1000, now));
    const up = await purchaseTierChange({
      projectId,
      actorUserId: owner.id,
      billingItemId: created.billingItemId,
      monthly: 3000,
      description: 'Widget w (large)',
      apply: async () => 'applied',
      now,
    });
    expect(up.preview).toMatchObject({ direction: 'upgrade', subtotal: 1000, dueToday: 1000, creditBack: 0 });

    await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'`);
    let applied = false;
    await expectAppError(
      purchaseTierChange({
        projectId,
        actorUserId: owner.id,
        billingItemId: created.billingItemId,
        monthly: 9000,
        description: 'Widget w (huge)',
        apply: async () => void (applied = true),
        now,
      }),
      'CARD_DECLINED',
    );
    expect(applied).toBe(false);
    const [item] = await queryRows<{ monthly: number }>(sql`select monthly from billing_items where id = ${created.billingItemId}`);
    expect(item?.monthly).toBe(3000);
  });
});

describe('reconcileAbandonedPurchases', () => {
  it('leaves completed purchases alone', async () => {
    const { owner, projectId } = await paidProject();
    await purchaseCreation(widgetPurchase(projectId, owner.id, 'w', 1000));
    expect(await reconcileAbandonedPurchases({ olderThanMs: 0 })).toBe(0);
    const [intent] = await ledgerIntents(owner.id);
    expect(intent?.amount_refunded).toBe(0);
  });
});

import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { cardSchema } from '../../server/domains/billing/schema';
import { api, createApiKey, createProject, createUser, expectError } from '../helpers';
import { getDb } from '../../db';
import { endBillingItem, purchaseCreation } from '../../server/billing/purchases';
import { addCard, CARDS, widgetPurchase } from '../billingHelpers';
import { databaseFingerprint, queryRows } from '../db';

type Card = z.infer<typeof cardSchema>;

describe('payment methods', () => {
  it('saves cards on the biller, the first as default, and switches the default', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const first = await addCard(owner, projectId, CARDS.ok);
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ brand: 'visa', last4: '4242', isDefault: true });
    const second = (await addCard(owner, projectId, '5555 5555 5555 4444')).data;
    expect(second).toMatchObject({ brand: 'mastercard', last4: '4444', isDefault: false });

    const made = await api<Card>('POST', `/v1/projects/${projectId}/billing/payment-methods/${second.id}/default`, { cookie: owner.cookie });
    expect(made.data.isDefault).toBe(true);
    const list = (await api<Card[]>('GET', `/v1/projects/${projectId}/billing/payment-methods`, { cookie: owner.cookie })).data;
    expect(list.map((c) => [c.last4, c.isDefault])).toEqual([
      ['4242', false],
      ['4444', true],
    ]);
    expect(JSON.stringify(list)).not.toContain('4242424242424242');

    expectError(await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${second.id}`, { cookie: owner.cookie }), 409, 'CONFLICT');
    expect((await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${first.data.id}`, { cookie: owner.cookie })).status).toBe(204);
    expect((await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${second.id}`, { cookie: owner.cookie })).status).toBe(204);
    expect((await api<Card[]>('GET', `/v1/projects/${projectId}/billing/payment-methods`, { cookie: owner.cookie })).data).toEqual([]);
  });

  it('refuses declined cards with 402 CARD_DECLINED and saves nothing', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const before = await databaseFingerprint();
    const declined = await addCard(owner, projectId, CARDS.declined);
    expectError(declined, 402, 'CARD_DECLINED');
    expect(declined.body && !declined.body.success && declined.body.error.message).toMatch(/declined/i);
    const poor = await addCard(owner, projectId, CARDS.insufficient);
    expectError(poor, 402, 'CARD_DECLINED');
    expect(poor.body && !poor.body.success && poor.body.error.message).toMatch(/insufficient funds/i);
    expect(await databaseFingerprint()).toEqual(before);
  });

  it.each([
    [{ cardNumber: '4242 4242 4242 4241' }, 'cardNumber'],
    [{ cardNumber: '4242' }, 'cardNumber'],
    [{ expMonth: 13 }, 'expMonth'],
    [{ expYear: 2001, expMonth: 1 }, 'expYear'],
    [{ cvc: '12' }, 'cvc'],
    [{ cvc: undefined }, 'cvc'],
    [{ country: 'USA' }, 'country'],
  ])('validates %j (422 naming the field)', async (override, field) => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const res = await api('POST', `/v1/projects/${projectId}/billing/payment-methods`, {
      cookie: owner.cookie,
      body: { cardNumber: CARDS.ok, expMonth: 12, expYear: new Date().getUTCFullYear() + 1, cvc: '123', ...override },
    });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body && !res.body.success && res.body.error.message).toContain(field);
  });

  it('lets only the member who holds billing manage cards', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const admin = await createUser();
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'admin')`);
    expectError(await addCard(admin, projectId, CARDS.ok), 403, 'FORBIDDEN');
    const key = await createApiKey(owner, projectId, ['billing:read']);
    expectError(await api('POST', `/v1/projects/${projectId}/billing/payment-methods`, { key: key.key, body: { cardNumber: CARDS.ok } }), 403, 'FORBIDDEN');
  });
});

describe('billing overview', () => {
  it('shows the biller, default card, credit, blocked and suspended state and month total', async () => {
    const owner = await createUser('Olga Owner');
    const { projectId } = await createProject(owner);
    await addCard(owner, projectId, CARDS.ok);
    const overview = (await api<Record<string, unknown>>('GET', `/v1/projects/${projectId}/billing`, { cookie: owner.cookie })).data;
    expect(overview).toMatchObject({
      biller: { id: owner.id, name: 'Olga Owner', email: owner.email },
      billingEmail: owner.email,
      defaultPaymentMethod: { last4: '4242', isDefault: true },
      billerHasPaymentMethod: true,
      pendingTransfer: null,
      creditBalance: 0,
      currency: 'usd',
      blockedAt: null,
      suspendedAt: null,
      provider: 'local',
      currentMonth: { total: 0 },
    });
  });
});

describe("the biller's cards are the biller's alone", () => {
  it('lists them to the biller only; other owners and admins learn only that a card is on file', async () => {
    const owner = await createUser('Olga Owner');
    const { projectId } = await createProject(owner);
    const coOwner = await createUser();
    const admin = await createUser();
    await queryRows(
      sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${coOwner.id}, 'owner'), (${projectId}, ${admin.id}, 'admin')`,
    );
    await addCard(owner, projectId, CARDS.ok);

    expect((await api<Card[]>('GET', `/v1/projects/${projectId}/billing/payment-methods`, { cookie: owner.cookie })).data).toHaveLength(1);
    for (const other of [coOwner, admin]) {
      const refused = await api('GET', `/v1/projects/${projectId}/billing/payment-methods`, { cookie: other.cookie });
      expectError(refused, 403, 'FORBIDDEN');
      expect(JSON.stringify(refused.body)).not.toContain('4242');
      const overview = (
        await api<{ defaultPaymentMethod: unknown; billerHasPaymentMethod: boolean }>('GET', `/v1/projects/${projectId}/billing`, { cookie: other.cookie })
      ).data;
      expect(overview).toMatchObject({ defaultPaymentMethod: null, billerHasPaymentMethod: true });
      expect(JSON.stringify(overview)).not.toContain('4242');
    }
    const ownersKey = await createApiKey(owner, projectId, ['billing:read']);
    await queryRows(sql`update api_keys set created_by_user_id = ${admin.id} where id = ${ownersKey.id}`);
    expectError(await api('GET', `/v1/projects/${projectId}/billing/payment-methods`, { key: ownersKey.key }), 403, 'FORBIDDEN');
  });
});

describe('the last card', () => {
  it('cannot be removed while it pays for running resources, in this project or another one the member bills', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner, 'Shop');
    const other = await createProject(owner, 'Blog');
    const card = (await addCard(owner, projectId, CARDS.ok)).data;
    const widget = await purchaseCreation(widgetPurchase(other.projectId, owner.id, 'w1', 1000));

    const before = await databaseFingerprint();
    const refused = await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${card.id}`, { cookie: owner.cookie });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body).toMatchObject({ error: { message: expect.stringContaining('"Blog"') } });
    expect(await databaseFingerprint()).toEqual(before);

    const db = await getDb();
    await db.transaction((tx) => endBillingItem(tx, other.projectId, 'widget', widget.resourceId));
    expect((await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${card.id}`, { cookie: owner.cookie })).status).toBe(204);
  });

  it('can go when another card stays, and once the resources are gone', async () => {
    const owner = await createUser();
    const { projectId } = await createProject(owner);
    const first = (await addCard(owner, projectId, CARDS.ok)).data;
    await purchaseCreation(widgetPurchase(projectId, owner.id, 'w1', 1000));
    const second = (await addCard(owner, projectId, '5555 5555 5555 4444')).data;
    expect((await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${second.id}`, { cookie: owner.cookie })).status).toBe(204);
    expectError(await api('DELETE', `/v1/projects/${projectId}/billing/payment-methods/${first.id}`, { cookie: owner.cookie }), 409, 'CONFLICT');
  });
});

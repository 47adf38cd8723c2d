import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { events } from '../db/schema';
import { newId } from '../db/schema/ids';
import { AppError } from '../server/platform/errors';
import type { CreationPurchase } from '../server/billing/purchases';
import type { cardSchema } from '../server/domains/billing/schema';
import { api, type TestUser } from './helpers';
import { queryRows } from './db';

export const CARDS = {
  ok: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficient: '4000 0000 0000 9995',
  declinesOnCharge: '4000 0000 0000 0341',
} as const;

export async function addCard(user: TestUser, projectId: string, cardNumber: string, extra: Record<string, unknown> = {}) {
  return api<z.infer<typeof cardSchema>>('POST', `/v1/projects/${projectId}/billing/payment-methods`, {
    cookie: user.cookie,
    body: { cardNumber, expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123', ...extra },
  });
}

/**
 * A stand-in paid resource for billing tests: its "row" is an event, written inside the purchase's
 * transaction exactly as a real domain writes its resource row.
 */
export function widgetPurchase(projectId: string, actorUserId: string, name: string, monthly: number, now?: Date): CreationPurchase<{ widgetId: string }> {
  return {
    projectId,
    actorUserId,
    resourceType: 'widget',
    resourceKey: name,
    category: 'other',
    description: `Widget ${name}`,
    monthly,
    now,
    assertAvailable: async (tx) => {
      const taken = await tx
        .select({ id: events.id })
        .from(events)
        .where(and(eq(events.projectId, projectId), eq(events.type, 'widget.created'), sql`${events.payload}->>'name' = ${name}`));
      if (taken.length > 0) {
        throw new AppError('CONFLICT', `A widget named "${name}" already exists`);
      }
    },
    fulfil: async (tx) => {
      // The test resource lives in the events table; no domain declares it, so it is written directly.
      const widgetId = newId('evt');
      await tx.insert(events).values({ id: widgetId, projectId, type: 'widget.created', payload: { name } });
      return { resourceId: widgetId, result: { widgetId } };
    },
  };
}

/** Charges made on the ledger customer of one user (a project's biller), oldest first. */
export async function ledgerIntents(userId: string) {
  return queryRows<{ id: string; amount: number; status: string; amount_refunded: number; idempotency_key: string }>(
    sql`select i.id, i.amount, i.status, i.amount_refunded, i.idempotency_key from ledger_payment_intents i
        join users u on u.payment_customer_id = i.customer_id where u.id = ${userId} order by i.created_at, i.id`,
  );
}

export async function widgetsOf(projectId: string) {
  return queryRows<{ id: string }>(sql`select id from events where project_id = ${projectId} and type = 'widget.created'`);
}

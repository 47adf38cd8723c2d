import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import { getDb, type Tx } from '../../db';
import { isUniqueViolation } from '../../db/errors';
import { billingItems, creditEntries, projectCharges, projects, purchases } from '../../db/schema';
import { newId } from '../../db/schema/ids';
import { AppError, type ErrorCode } from '../platform/errors';
import { emit } from '../platform/events';
import { getLogger } from '../platform/logger';
import { getPaymentsProvider } from '../providers/payments';
import { chargeContextFor, loadPayer, requireChargeablePayer } from './account';
import { previewCreation, previewTierChange, type Preview, type TierChangePreview } from './preview';

export type ChargeCategory = (typeof projectCharges.$inferInsert)['category'];

/**
 * What buying can answer besides the buying domain's own refusals: no usable card (told to the
 * biller or to anyone else), a declined card, a blocked project, the same purchase already in
 * flight, the processor or provider failing. An operation that buys lists these in `meta.errors`.
 */
export const PURCHASE_ERRORS = [
  'ORG_PAYMENT_METHOD_REQUIRED',
  'BILLER_PAYMENT_METHOD_REQUIRED',
  'CARD_DECLINED',
  'PROJECT_BLOCKED',
  'CONFLICT',
  'UPSTREAM_ERROR',
] as const satisfies readonly ErrorCode[];

export interface CreationPurchase<T, P = undefined> {
  projectId: string;
  actorUserId: string;
  /** The domain's name for the resource kind, e.g. `server`. */
  resourceType: string;
  /** What is bought, unique per project while the purchase is in flight (usually the resource's name). */
  resourceKey: string;
  category: ChargeCategory;
  description: string;
  monthly: number;
  /**
   * Refuses the purchase before anything is charged (a name already taken). It runs with the
   * project locked, in the transaction that records the purchase, so once it passes no concurrent
   * creation of the same thing can be charged.
   */
  assertAvailable?: (tx: Tx) => Promise<void>;
  /**
   * Work outside the database once the card is charged and before the resource is recorded, such
   * as creating the machine upstream: a declined card never gets this far, and if it fails the
   * charge is refunded. What it leaves behind in a crash before the commit is the domain's to
   * find; this module only refunds the charge.
   */
  provision?: () => Promise<P>;
  /** Undoes `provision` when the resource cannot be recorded after all (the charge is refunded as well). */
  unprovision?: (provisioned: P) => Promise<void>;
  /**
   * Creates the resource inside the transaction that records the payment; nothing it writes
   * survives if the charge cannot be attached to it.
   */
  fulfil: (tx: Tx, purchase: { purchaseId: string; billingItemId: string; provisioned: P }) => Promise<{ resourceId: string; result: T }>;
  now?: Date;
}

export interface PurchaseReceipt<T> {
  result: T;
  resourceId: string;
  purchaseId: string;
  billingItemId: string;
  charged: Preview;
}

/**
 * Creates a paid resource by charging the project's saved card off-session for the prorated
 * amount, in this order: record the purchase, charge, `provision`, then one transaction that
 * claims the purchase, runs `fulfil`, and writes the billing item and the charge history.
 *
 * The purchase row comes first so the charge's idempotency key can derive from it and retries
 * charge once. A decline stops before `provision`, so nothing exists to undo; any failure after
 * the charge refunds it (and runs `unprovision` once `provision` has succeeded); a crash after the
 * charge leaves the purchase pending, and `reconcileAbandonedPurchases` refunds it.
 */
export async function purchaseCreation<T, P = undefined>(request: CreationPurchase<T, P>): Promise<PurchaseReceipt<T>> {
  const now = request.now ?? new Date();
  const opened = await openPurchase(request, now);
  const chargeId = await chargePurchase(opened);
  let provisioned: P;
  try {
    provisioned = request.provision ? await request.provision() : (undefined as P);
  } catch (err) {
    await abandonPurchase(opened.purchaseId, 'provisioning_failed');
    throw err;
  }
  try {
    return await settlePurchase(opened, chargeId, now, request.category, async (tx) => {
      const billingItemId = newId('bi');
      const { resourceId, result } = await request.fulfil(tx, { purchaseId: opened.purchaseId, billingItemId, provisioned });
      await tx.insert(billingItems).values({
        id: billingItemId,
        projectId: request.projectId,
        category: request.category,
        resourceType: request.resourceType,
        resourceId,
        description: request.description,
        monthly: request.monthly,
        currency: opened.preview.currency,
        startedAt: now,
      });
      await tx.update(purchases).set({ billingItemId }).where(eq(purchases.id, opened.purchaseId));
      return { result, purchaseId: opened.purchaseId, billingItemId, charged: opened.preview, resourceId };
    });
  } catch (err) {
    if (request.unprovision) {
      await request.unprovision(provisioned).catch((undo: unknown) => {
        getLogger().error({ err: undo, purchaseId: opened.purchaseId }, 'could not undo provisioning after a failed purchase');
      });
    }
    throw err;
  }
}

export interface TierChange<T> {
  projectId: string;
  actorUserId: string;
  billingItemId: string;
  monthly: number;
  description: string;
  /** Applies the new tier inside the transaction that records the payment or the credit. */
  apply: (tx: Tx) => Promise<T>;
  now?: Date;
}

/**
 * Moves a resource's subscription item to a new monthly price. An upgrade charges the prorated
 * difference now (a decline answers 402 and changes nothing); a downgrade charges nothing and
 * credits the prorated difference to the project's balance.
 */
export async function purchaseTierChange<T>(change: TierChange<T>): Promise<{ result: T; preview: TierChangePreview }> {
  const now = change.now ?? new Date();
  const db = await getDb();
  const [item] = await db
    .select()
    .from(billingItems)
    .where(and(eq(billingItems.id, change.billingItemId), eq(billingItems.projectId, change.projectId)));
  if (!item || item.endedAt) throw new AppError('NOT_FOUND', 'Subscription item not found');
  if (change.monthly >= item.monthly) {
    const opened = await openPurchase(
      {
        projectId: change.projectId,
        actorUserId: change.actorUserId,
        resourceType: item.resourceType,
        resourceKey: item.resourceId,
        category: item.category,
        description: change.description,
        monthly: change.monthly,
        kind: 'upgrade',
        currentMonthly: item.monthly,
      },
      now,
    );
    const chargeId = await chargePurchase(opened);
    return settlePurchase(opened, chargeId, now, item.category, async (tx) => {
      const result = await change.apply(tx);
      await tx.update(billingItems).set({ monthly: change.monthly, description: change.description }).where(eq(billingItems.id, item.id));
      return { result, preview: opened.preview as TierChangePreview };
    });
  }
  const payer = await loadPayer(db, change.projectId);
  const preview = previewTierChange(item.monthly, change.monthly, await chargeContextFor(db, change.projectId, payer.defaultCard, now));
  return db.transaction(async (tx) => {
    const result = await change.apply(tx);
    await tx.update(billingItems).set({ monthly: change.monthly, description: change.description }).where(eq(billingItems.id, item.id));
    if (preview.creditBack > 0) {
      await tx
        .insert(creditEntries)
        .values({ id: newId('cre'), projectId: change.projectId, amount: preview.creditBack, reason: `Downgrade: ${change.description}` });
    }
    await emit(tx, change.projectId, 'subscription.downgraded', { billingItemId: item.id, creditBack: preview.creditBack, monthly: change.monthly });
    return { result, preview };
  });
}

/** Stops billing a resource from now on (deleting a resource ends its item; no refund of the month). */
export async function endBillingItem(tx: Tx, projectId: string, resourceType: string, resourceId: string, now = new Date()): Promise<void> {
  await tx
    .update(billingItems)
    .set({ endedAt: now })
    .where(
      and(
        eq(billingItems.projectId, projectId),
        eq(billingItems.resourceType, resourceType),
        eq(billingItems.resourceId, resourceId),
        isNull(billingItems.endedAt),
      ),
    );
}

export interface OpenedPurchase {
  purchaseId: string;
  projectId: string;
  customerId: string;
  paymentMethodId: string;
  preview: Preview;
  description: string;
}

/** Step one: refuse blocked projects and missing cards, then record the purchase and reserve credit. */
export async function openPurchase(
  request: Pick<
    CreationPurchase<unknown>,
    'projectId' | 'actorUserId' | 'resourceType' | 'resourceKey' | 'category' | 'description' | 'monthly' | 'assertAvailable'
  > & {
    kind?: 'create' | 'upgrade';
    currentMonthly?: number;
  },
  now: Date,
): Promise<OpenedPurchase> {
  const db = await getDb();
  const payer = await requireChargeablePayer(db, request.projectId, request.actorUserId);
  try {
    return await db.transaction(async (tx) => {
      const [project] = await tx
        .select({ blockedAt: projects.blockedAt, blockedReason: projects.blockedReason })
        .from(projects)
        .where(eq(projects.id, request.projectId))
        .for('update');
      if (!project) throw new AppError('NOT_FOUND', 'Project not found');
      if (project.blockedAt) {
        throw new AppError('PROJECT_BLOCKED', `This project is blocked (${project.blockedReason ?? 'unpaid invoice'}); pay the open invoice first`);
      }
      await request.assertAvailable?.(tx);
      const context = await chargeContextFor(tx, request.projectId, payer.defaultCard, now);
      const preview =
        request.kind === 'upgrade' ? previewTierChange(request.currentMonthly ?? 0, request.monthly, context) : previewCreation(request.monthly, context);
      const purchaseId = newId('pur');
      await tx.insert(purchases).values({
        id: purchaseId,
        projectId: request.projectId,
        kind: request.kind ?? 'create',
        resourceType: request.resourceType,
        resourceKey: request.resourceKey,
        category: request.category,
        description: request.description,
        monthly: request.monthly,
        subtotal: preview.subtotal,
        tax: preview.tax,
        creditApplied: preview.creditApplied,
        dueToday: preview.dueToday,
        currency: preview.currency,
        createdByUserId: request.actorUserId,
      });
      if (preview.creditApplied > 0) {
        await tx.insert(creditEntries).values({
          id: newId('cre'),
          projectId: request.projectId,
          amount: -preview.creditApplied,
          reason: `Applied to ${request.description}`,
          purchaseId,
        });
      }
      return {
        purchaseId,
        projectId: request.projectId,
        customerId: payer.customerId,
        paymentMethodId: payer.defaultCard.id,
        preview,
        description: request.description,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'purchases_pending_resource_key')) {
      throw new AppError('CONFLICT', `A ${request.resourceType} named "${request.resourceKey}" is already being created in this project`);
    }
    throw err;
  }
}

/** Step two: the off-session charge, keyed by the purchase. A decline releases the purchase and answers 402. */
export async function chargePurchase(opened: OpenedPurchase): Promise<string | null> {
  if (opened.preview.dueToday === 0) return null;
  let outcome;
  try {
    outcome = await getPaymentsProvider().chargeOffSession({
      customerId: opened.customerId,
      paymentMethodId: opened.paymentMethodId,
      amount: opened.preview.dueToday,
      currency: opened.preview.currency,
      description: opened.description,
      idempotencyKey: chargeKey(opened.purchaseId),
      projectId: opened.projectId,
    });
  } catch (err) {
    await abandonPurchase(opened.purchaseId, 'processor_unreachable');
    throw err;
  }
  if (outcome.status === 'failed') {
    await abandonPurchase(opened.purchaseId, outcome.declineCode);
    throw new AppError('CARD_DECLINED', `${outcome.message} Nothing was created; update the payment card and try again.`);
  }
  return outcome.chargeId;
}

/**
 * Step three: claims the purchase, runs the domain's writes and records the charge, all in one
 * transaction; if that fails, the charge is refunded and the reserved credit released.
 */
async function settlePurchase<R>(
  opened: OpenedPurchase,
  chargeId: string | null,
  now: Date,
  category: ChargeCategory,
  write: (tx: Tx) => Promise<R>,
): Promise<R> {
  const db = await getDb();
  try {
    return await db.transaction(async (tx) => {
      // The project row is locked before the purchase row, in the same order as openPurchase:
      // otherwise a concurrent opening (holding the project, waiting on this purchase's unique
      // key) and this settlement (holding the purchase, needing the project for foreign keys)
      // deadlock.
      await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, opened.projectId)).for('update');
      // Claiming the row first means the reconciler and this step can never both settle one purchase.
      const [claimed] = await tx
        .update(purchases)
        .set({ status: 'completed', processorChargeId: chargeId, settledAt: now })
        .where(and(eq(purchases.id, opened.purchaseId), eq(purchases.status, 'pending')))
        .returning({ projectId: purchases.projectId, resourceType: purchases.resourceType });
      if (!claimed) throw new AppError('CONFLICT', 'This purchase was abandoned while it was in progress; try again');
      const result = await write(tx);
      await recordCharge(tx, claimed.projectId, category, opened.preview.subtotal, opened.description, now);
      await emit(tx, claimed.projectId, 'charge.succeeded', {
        purchaseId: opened.purchaseId,
        resourceType: claimed.resourceType,
        amount: opened.preview.dueToday,
        currency: opened.preview.currency,
      });
      return result;
    });
  } catch (err) {
    await abandonPurchase(opened.purchaseId, 'fulfilment_failed');
    throw err;
  }
}

/** Adds an amount to the project's charge history (the resourceHistory of its stats). */
export async function recordCharge(tx: Tx, projectId: string, category: ChargeCategory, amount: number, description: string, at: Date): Promise<void> {
  if (amount === 0) return;
  await tx.insert(projectCharges).values({ id: newId('chg'), projectId, category, amount, description, chargedAt: at });
}

/**
 * Gives back what an unfinished purchase took: its reserved credit and, when the card was
 * charged, the charge (refunded with a key derived from the purchase). The purchase is claimed
 * first, so a slow creation can no longer complete it, and it counts as settled only once both are
 * given back: repeating this after a crash finishes the job.
 */
export async function abandonPurchase(purchaseId: string, failureCode: string): Promise<void> {
  const db = await getDb();
  await db
    .update(purchases)
    .set({ status: 'failed', failureCode })
    .where(and(eq(purchases.id, purchaseId), eq(purchases.status, 'pending')));
  const [purchase] = await db.select().from(purchases).where(eq(purchases.id, purchaseId));
  if (!purchase || purchase.status !== 'failed' || purchase.settledAt) return;
  if (purchase.creditApplied > 0) {
    await db.transaction(async (tx) => {
      const [released] = await tx
        .select({ id: creditEntries.id })
        .from(creditEntries)
        .where(and(eq(creditEntries.purchaseId, purchaseId), gt(creditEntries.amount, 0)))
        .for('update');
      if (!released) {
        await tx.insert(creditEntries).values({
          id: newId('cre'),
          projectId: purchase.projectId,
          amount: purchase.creditApplied,
          reason: 'Released: purchase not completed',
          purchaseId,
        });
      }
    });
  }
  const charge = await getPaymentsProvider().findCharge(chargeKey(purchaseId));
  const owed = charge && charge.status === 'succeeded' ? charge.amount - charge.amountRefunded : 0;
  if (charge && owed > 0) {
    await getPaymentsProvider().refund({ chargeId: charge.chargeId, amount: owed, idempotencyKey: `refund:${purchaseId}` });
    getLogger().warn({ purchaseId, chargeId: charge.chargeId, failureCode }, 'charge refunded: its resource was not created');
  }
  const wasCharged = charge?.status === 'succeeded';
  await db
    .update(purchases)
    .set({ status: wasCharged ? 'refunded' : 'failed', processorChargeId: charge?.chargeId ?? null, settledAt: new Date() })
    .where(eq(purchases.id, purchaseId));
}

/**
 * Settles purchases left pending by a process that died between charging and creating, and
 * abandoned ones whose settling was interrupted. Completed purchases are never touched, so a
 * charge always ends attached to its resource or refunded.
 */
export async function reconcileAbandonedPurchases(options: { olderThanMs: number; now?: Date }): Promise<number> {
  const now = options.now ?? new Date();
  const db = await getDb();
  const unsettled = await db
    .select({ id: purchases.id })
    .from(purchases)
    .where(
      or(
        and(eq(purchases.status, 'pending'), lt(purchases.createdAt, new Date(now.getTime() - options.olderThanMs))),
        and(eq(purchases.status, 'failed'), isNull(purchases.settledAt)),
      ),
    );
  for (const { id } of unsettled) await abandonPurchase(id, 'abandoned');
  return unsettled.length;
}

export function chargeKey(purchaseId: string): string {
  return `purchase:${purchaseId}`;
}

/**
 * What creating a resource priced `monthly` would charge the project now. Domain preview
 * endpoints call this; `purchaseCreation` charges exactly this at the same instant.
 */
export async function previewPurchase(projectId: string, monthly: number, now = new Date()): Promise<Preview> {
  const db = await getDb();
  const payer = await loadPayer(db, projectId);
  return previewCreation(monthly, await chargeContextFor(db, projectId, payer.defaultCard, now));
}

/**
 * For a resource that was bought but never worked (its provider could not start it): ends its
 * billing item and credits what its creation charged (tax included) to the project's balance,
 * which the next charges consume. The charge history is reduced by the same subtotal. Safe to
 * repeat: only the call that ends the item credits. Returns the amount credited.
 */
export async function creditFailedCreation(tx: Tx, projectId: string, billingItemId: string, reason: string, now = new Date()): Promise<number> {
  const [ended] = await tx
    .update(billingItems)
    .set({ endedAt: now })
    .where(and(eq(billingItems.id, billingItemId), eq(billingItems.projectId, projectId), isNull(billingItems.endedAt)))
    .returning({ category: billingItems.category, description: billingItems.description });
  if (!ended) return 0;
  const [purchase] = await tx
    .select({ id: purchases.id, subtotal: purchases.subtotal, tax: purchases.tax })
    .from(purchases)
    .where(and(eq(purchases.billingItemId, billingItemId), eq(purchases.kind, 'create'), eq(purchases.status, 'completed')));
  if (!purchase) return 0;
  const amount = purchase.subtotal + (purchase.tax ?? 0);
  if (amount > 0) {
    await tx.insert(creditEntries).values({ id: newId('cre'), projectId, amount, reason: `${reason}: ${ended.description}`, purchaseId: purchase.id });
  }
  await recordCharge(tx, projectId, ended.category, -purchase.subtotal, `Credited back: ${ended.description}`, now);
  return amount;
}

/** What moving the billing item to `monthly` would charge or credit now (the tier-change preview). */
export async function previewTierChangeOf(projectId: string, billingItemId: string, monthly: number, now = new Date()): Promise<TierChangePreview> {
  const db = await getDb();
  const [item] = await db
    .select()
    .from(billingItems)
    .where(and(eq(billingItems.id, billingItemId), eq(billingItems.projectId, projectId)));
  if (!item || item.endedAt) throw new AppError('NOT_FOUND', 'Subscription item not found');
  const payer = await loadPayer(db, projectId);
  return previewTierChange(item.monthly, monthly, await chargeContextFor(db, projectId, payer.defaultCard, now));
}

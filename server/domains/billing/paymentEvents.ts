import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { getDb, type Tx } from '../../../db';
import { processedPaymentEvents, projects } from '../../../db/schema';
import { AppError, describeIssues } from '../../platform/errors';
import { emit } from '../../platform/events';

/** What a recorded event says about the processor's object; nothing else of it is kept. */
interface ProcessorFact {
  processorObjectId: string;
  amount: number;
  currency: string;
  projectId: string | null;
}

const metadata = z.record(z.string(), z.string()).nullish();
const projectOf = (m: Record<string, string> | null | undefined) => m?.project_id || null;

/** The processor's event types we act on, the domain event each becomes, and how to read its object. */
const RECORDED: Record<string, { eventType: string; object: z.ZodType<ProcessorFact> }> = {
  'invoice.paid': {
    eventType: 'invoice.paid',
    object: z
      .object({ id: z.string().min(1), amount_paid: z.number().int(), currency: z.string().min(1), metadata })
      .transform((o) => ({ processorObjectId: o.id, amount: o.amount_paid, currency: o.currency, projectId: projectOf(o.metadata) })),
  },
  'payment_intent.payment_failed': {
    eventType: 'payment.failed',
    object: z
      .object({ id: z.string().min(1), amount: z.number().int(), currency: z.string().min(1), metadata })
      .transform((o) => ({ processorObjectId: o.id, amount: o.amount, currency: o.currency, projectId: projectOf(o.metadata) })),
  },
  'charge.refunded': {
    eventType: 'order.refunded',
    // The amount that matters for a refund is what went back, which may be less than the charge.
    object: z
      .object({ id: z.string().min(1), amount_refunded: z.number().int(), currency: z.string().min(1), metadata })
      .transform((o) => ({ processorObjectId: o.id, amount: o.amount_refunded, currency: o.currency, projectId: projectOf(o.metadata) })),
  },
};

const eventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export type PaymentEventResult = { status: 'recorded'; eventId: string } | { status: 'ignored' } | { status: 'duplicate' };

/**
 * Records a verified processor event as a domain event. Processors deliver at least once, so the
 * event's id is claimed in the same transaction as the emit: a redelivery finds it taken and
 * changes nothing, and a failed emit releases it for the processor's next attempt.
 */
export async function recordPaymentEvent(input: unknown): Promise<PaymentEventResult> {
  const event = eventSchema.safeParse(input);
  if (!event.success) throw new AppError('BAD_REQUEST', `Not a payment processor event. ${describeIssues(event.error.issues)}`);
  const handler = RECORDED[event.data.type];
  if (!handler) return { status: 'ignored' };
  const fact = handler.object.safeParse(event.data.data.object);
  if (!fact.success) {
    throw new AppError('BAD_REQUEST', `Unexpected ${event.data.type} object. ${describeIssues(fact.error.issues)}`);
  }
  const { projectId, ...payload } = fact.data;
  const db = await getDb();
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(processedPaymentEvents)
      .values({ id: `stripe:${event.data.id}` })
      .onConflictDoNothing()
      .returning({ id: processedPaymentEvents.id });
    if (claimed.length === 0) return { status: 'duplicate' } as const;
    const eventId = await emit(tx, await existingProject(tx, projectId), handler.eventType, payload);
    return { status: 'recorded', eventId } as const;
  });
}

/**
 * Metadata is whatever was set on the processor's object, possibly long ago: a project deleted
 * since, or a mistyped id, records the event without a project rather than failing it forever.
 */
async function existingProject(tx: Tx, projectId: string | null): Promise<string | null> {
  if (!projectId) return null;
  const [found] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).limit(1);
  return found ? found.id : null;
}

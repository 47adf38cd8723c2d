import { TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import type { AppRouter } from '@/server/app';

/** The error code that asks for the same request again, with the same key, once the first has finished. */
const IN_PROGRESS = 'IDEMPOTENCY_IN_PROGRESS';

interface Submission {
  key: string;
  /** Requests of this submission on their way. */
  inFlight: number;
  /** Whether the last one to come back was answered by our server (data or a refusal other than IDEMPOTENCY_IN_PROGRESS). */
  answered: boolean;
}

/**
 * Gives every write the panel sends an Idempotency-Key, one per submission: the same procedure
 * with the same input is the same submission until our server has answered it (a retry after a
 * network failure or after IDEMPOTENCY_IN_PROGRESS, a second click while the first runs), so the
 * server runs it once and a double click or a retry never buys twice. Once answered, sending it
 * again is a new submission: paying an invoice again after changing the card must not be handed
 * the first attempt's refusal.
 */
export function idempotencyKeyLink(): TRPCLink<AppRouter> {
  const submissions = new Map<string, Submission>();
  return () =>
    ({ op, next }) => {
      if (op.type !== 'mutation') return next(op);
      const id = `${op.path}\n${JSON.stringify(op.input ?? null)}`;
      const submission = submissions.get(id) ?? { key: newKey(), inFlight: 0, answered: false };
      submissions.set(id, submission);
      submission.inFlight += 1;
      // The last request to come back decides: one left unanswered (lost, or still running on the
      // server) will be sent again, and must carry the same key even if a sibling was answered.
      const finish = (answered: boolean) => {
        submission.inFlight -= 1;
        submission.answered = answered;
        if (submission.inFlight === 0 && submission.answered) submissions.delete(id);
      };
      return observable((observer) =>
        next({ ...op, context: { ...op.context, idempotencyKey: submission.key } }).subscribe({
          next(result) {
            finish(true);
            observer.next(result);
          },
          error(err) {
            finish(isAnswer(err));
            observer.error(err);
          },
          complete() {
            observer.complete();
          },
        }),
      );
    };
}

/** The Idempotency-Key header of a write that went through idempotencyKeyLink. */
export function idempotencyHeaders(op: Operation): Record<string, string> {
  const key = op.context.idempotencyKey;
  return typeof key === 'string' ? { 'Idempotency-Key': key } : {};
}

/** A refusal from our server settles the submission; a lost request, a proxy's error page or "still running" does not. */
function isAnswer(err: unknown): boolean {
  if (!(err instanceof TRPCClientError)) return false;
  const code = (err as TRPCClientError<AppRouter>).data?.appError?.code;
  return code !== undefined && code !== IN_PROGRESS;
}

/** Random hex; crypto.randomUUID exists only on secure origins, getRandomValues everywhere. */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

import { TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import type { AppRouter } from '@/server/app';

/**
 * How long a submission keeps its key once answered. A double click, or the retry of a second
 * click that found the first still running, lands within it and gets the first answer again;
 * later, the same form sent again is a new submission.
 */
export const REPEAT_WINDOW_MS = 10_000;

/** The error code that asks for the same request again, with the same key, once the first has finished. */
const IN_PROGRESS = 'IDEMPOTENCY_IN_PROGRESS';

interface Submission {
  key: string;
  /** When the server last answered it; undefined while no answer has come (in flight, or lost on the way). */
  answeredAt?: number;
}

/**
 * Gives every write the panel sends an Idempotency-Key, one per submission: the same procedure
 * with the same input is the same submission while unanswered (a retry after a network failure
 * or after IDEMPOTENCY_IN_PROGRESS, a second click while the first runs) and for REPEAT_WINDOW_MS
 * after its answer. The server then runs it once, so a double click or a retry never buys twice.
 */
export function idempotencyKeyLink(now: () => number = Date.now): TRPCLink<AppRouter> {
  const submissions = new Map<string, Submission>();
  return () =>
    ({ op, next }) => {
      if (op.type !== 'mutation') return next(op);
      forgetAnswered(submissions, now());
      const id = `${op.path}\n${JSON.stringify(op.input ?? null)}`;
      const submission = submissions.get(id) ?? { key: newKey() };
      submissions.set(id, submission);
      return observable((observer) =>
        next({ ...op, context: { ...op.context, idempotencyKey: submission.key } }).subscribe({
          next(result) {
            submission.answeredAt = now();
            observer.next(result);
          },
          error(err) {
            if (isAnswer(err)) submission.answeredAt = now();
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

function forgetAnswered(submissions: Map<string, Submission>, at: number): void {
  for (const [id, submission] of submissions) {
    if (submission.answeredAt !== undefined && at - submission.answeredAt >= REPEAT_WINDOW_MS) submissions.delete(id);
  }
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

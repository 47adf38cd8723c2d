import { AppError } from '../server/platform/errors';

/** The AppError a call is refused with; anything else thrown, or no refusal at all, fails the test. */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

/** Every message, cause and field of an error, as one string to search for what must not be there. */
export function everythingIn(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 6; depth += 1) {
    parts.push(String(current), JSON.stringify(current), (current as { stack?: string }).stack ?? '');
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

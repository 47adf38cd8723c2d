import { ApiError, CLIENT_CODES, WaitError } from '@cloudpanel/sdk';

/**
 * Exit codes by class of failure, so scripts can tell "try again later" from "fix the command".
 * README's "Use it from the shell" lists them.
 */
export const EXIT = {
  ok: 0,
  /** Anything else: a 500, an answer the tool did not understand. */
  failure: 1,
  /** The command line itself: an unknown command or option, a missing argument, no project chosen. */
  usage: 2,
  /** 401 or 403: no key, a revoked one, a missing scope or role. */
  auth: 3,
  /** 404. */
  notFound: 4,
  /** 400, 409, 413, 415, 422: the request was refused as sent. */
  rejected: 5,
  /** 402: a card is needed, declined, or the project is blocked. */
  payment: 6,
  /** 429 after the retries. */
  rateLimited: 7,
  /** No answer, or 502, 503, 504 after the retries: the platform or an upstream is unavailable. */
  unavailable: 8,
  /** `--wait` ended without the wanted state: it failed or timed out. */
  waitFailed: 9,
} as const;

/** A mistake in the command line; printed with the command's usage hint. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof WaitError) return EXIT.waitFailed;
  if (!(err instanceof ApiError)) return EXIT.failure;
  if (err.code === CLIENT_CODES.network) return EXIT.unavailable;
  switch (err.status) {
    case 401:
    case 403:
      return EXIT.auth;
    case 404:
      return EXIT.notFound;
    case 400:
    case 409:
    case 413:
    case 415:
    case 422:
      return EXIT.rejected;
    case 402:
      return EXIT.payment;
    case 429:
      return EXIT.rateLimited;
    case 502:
    case 503:
    case 504:
      return EXIT.unavailable;
    default:
      return EXIT.failure;
  }
}

/** What a person reads: the code and message, each failing field, and the request id to quote to support. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const lines = [`Error: ${err.code}: ${err.message}`];
    for (const [field, message] of Object.entries(err.fields ?? {})) lines.push(`  ${field}: ${message}`);
    if (err.retryAfterSeconds !== undefined && err.status === 429) lines.push(`  try again in ${err.retryAfterSeconds} s`);
    if (err.requestId) lines.push(`  request id: ${err.requestId}`);
    return `${lines.join('\n')}\n`;
  }
  if (err instanceof WaitError) return `Error: ${err.reason === 'timeout' ? 'WAIT_TIMEOUT' : 'WAIT_FAILED'}: ${err.message}\n`;
  return `Error: ${err instanceof Error ? err.message : String(err)}\n`;
}

/** The same for scripts (`--json`): one JSON object on stderr. */
export function errorJson(err: unknown): string {
  if (err instanceof ApiError) {
    const { status, code, message, fields, requestId } = err;
    return `${JSON.stringify({ error: { status, code, message, ...(fields ? { fields } : {}), ...(requestId ? { requestId } : {}) } })}\n`;
  }
  if (err instanceof WaitError)
    return `${JSON.stringify({ error: { code: err.reason === 'timeout' ? 'WAIT_TIMEOUT' : 'WAIT_FAILED', message: err.message } })}\n`;
  return `${JSON.stringify({ error: { code: err instanceof UsageError ? 'USAGE' : 'FAILURE', message: err instanceof Error ? err.message : String(err) } })}\n`;
}

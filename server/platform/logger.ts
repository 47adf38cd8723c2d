import pino from 'pino';
import { getConfig } from './config';

const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'cardNumber',
  '*.cardNumber',
  'cvc',
  '*.cvc',
  'privateKey',
  '*.privateKey',
  'secret',
  '*.secret',
];

/**
 * Errors are logged by name, message, code and stack. A failed statement's error also carries the
 * SQL and its parameters (a password hash, an email were seen there): those never reach the log.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  // The ORM's wrapper writes the statement and its parameters into the message (and so the stack).
  const message = err.message.startsWith('Failed query:') ? 'Failed query (statement and parameters withheld)' : err.message;
  const frames = (err.stack ?? '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n');
  const out: Record<string, unknown> = { type: err.name, message, stack: frames };
  const { code, cause } = err as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (cause !== undefined) out.cause = serializeError(cause);
  return out;
}

const globalLogger = globalThis as unknown as { __appLogger?: pino.Logger };

export function getLogger(): pino.Logger {
  if (!globalLogger.__appLogger) {
    globalLogger.__appLogger = pino({
      level: getConfig().LOG_LEVEL,
      base: { service: 'cloud-panel' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
    });
  }
  return globalLogger.__appLogger;
}

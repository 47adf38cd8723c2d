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

const globalLogger = globalThis as unknown as { __appLogger?: pino.Logger };

export function getLogger(): pino.Logger {
  if (!globalLogger.__appLogger) {
    globalLogger.__appLogger = pino({
      level: getConfig().LOG_LEVEL,
      base: { service: 'cloud-panel' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    });
  }
  return globalLogger.__appLogger;
}

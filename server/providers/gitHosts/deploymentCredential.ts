import { AppError } from '../../platform/errors';

/**
 * A refusal of the platform's own deployment token (`refused`, as the adapter's HTTP client mapped
 * it) is the platform's failure, never a grant for the customer to renew.
 */
export function platformRefusal(label: string, operation: string, refused: AppError): AppError {
  if (refused.code === 'UPSTREAM_ERROR') return refused;
  return new AppError('UPSTREAM_ERROR', `${label} refused the platform's deployment credential while ${operation}`, { cause: refused.cause });
}

/** Reads of a deployment copy run on the platform's token: its refusal is reported as the platform's. */
export async function asPlatform<T>(label: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.code === 'GIT_CREDENTIAL_INVALID') {
      throw new AppError('UPSTREAM_ERROR', `${label} refused the platform's deployment credential while reading a deployment copy`, { cause: err.cause });
    }
    throw err;
  }
}

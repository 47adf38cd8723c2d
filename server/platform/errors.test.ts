import { describe, expect, it } from 'vitest';
import { AppError, callUpstream, toAppError } from './errors';

/** What another bundle's copy of this module makes: the same class body, a different class. */
async function appErrorOfAnotherCopy(): Promise<Error> {
  const url = new URL('./errors.ts', import.meta.url);
  url.search = `copy=${Date.now()}`;
  const other = (await import(/* @vite-ignore */ url.href)) as typeof import('./errors');
  expect(other.AppError).not.toBe(AppError);
  return new other.AppError('SERVICE_UNAVAILABLE', 'Shared PostgreSQL is not configured');
}

describe('AppError across copies of the module', () => {
  it('is recognised whichever copy made it, keeping its code and status', async () => {
    const foreign = await appErrorOfAnotherCopy();
    expect(foreign instanceof AppError).toBe(true);
    expect(toAppError(foreign)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    await expect(callUpstream('wrapped', () => Promise.reject(foreign))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('is not claimed by other errors', () => {
    const others: unknown[] = [new Error('plain'), null, undefined, 'NOT_FOUND', { code: 'NOT_FOUND', status: 404 }];
    for (const other of others) expect(other instanceof AppError).toBe(false);
    expect(toAppError(new Error('plain')).code).toBe('INTERNAL_ERROR');
    expect(new AppError('NOT_FOUND', 'x') instanceof Error).toBe(true);
  });
});

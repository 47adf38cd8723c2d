import { headers } from 'next/headers';
import { createRequestContext } from '@/server/platform/context';
import { appRouter } from '@/server/app';
import { createCallerFactory } from '@/server/platform/trpc';
import type { OwnAccount } from '@/server/domains/accounts/schema';

const createCaller = createCallerFactory(appRouter);

/**
 * The account behind the request's session cookie, or null when the session no longer counts
 * (a password change or reset ends older sessions even though their cookie still decodes).
 */
export async function getSignedInAccount(): Promise<OwnAccount | null> {
  const context = await createRequestContext(await headers(), 'GET', 'internal');
  if (context.actor.kind !== 'session') return null;
  return createCaller(context).accounts.me({});
}

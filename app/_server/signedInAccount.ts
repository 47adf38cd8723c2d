import { headers } from 'next/headers';
import { createRequestContext } from '@/server/context';
import { appRouter } from '@/server/routers/_app';
import { createCallerFactory } from '@/server/trpc';

const createCaller = createCallerFactory(appRouter);

/**
 * The account behind the request's session cookie, or null when the session no longer counts
 * (a password change or reset ends older sessions even though their cookie still decodes).
 */
export async function getSignedInAccount(): Promise<{ id: string; name: string; email: string } | null> {
  const context = await createRequestContext(await headers(), 'GET', 'internal');
  if (context.actor.kind !== 'session') return null;
  return createCaller(context).accounts.me({});
}

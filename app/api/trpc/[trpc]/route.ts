import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createRequestContext } from '@/server/platform/context';
import { AppError } from '@/server/platform/errors';
import { appRouter } from '@/server/app';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One HTTP request may carry a batch of calls; more than this is refused. */
const MAX_BATCH_SIZE = 10;

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: async () => {
      const procedures = new URL(req.url).pathname.split('/').pop()?.split(',') ?? [];
      if (procedures.length > MAX_BATCH_SIZE) {
        throw new AppError('BAD_REQUEST', `At most ${MAX_BATCH_SIZE} calls per batch`);
      }
      return createRequestContext(req.headers, req.method, 'trpc');
    },
  });
}

export { handler as GET, handler as POST };

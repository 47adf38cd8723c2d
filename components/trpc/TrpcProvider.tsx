'use client';

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '@/server/app';
import { appErrorOf } from './errors';
import { idempotencyHeaders, idempotencyKeyLink } from './idempotencyLink';

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** The server refuses batches of more than 10 calls (app/api/trpc). */
const MAX_BATCH_ITEMS = 10;

const NOT_RETRIED = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'VALIDATION_ERROR', 'BAD_REQUEST', 'CONFLICT']);

/** Writes carry an Idempotency-Key, so these are safe to send again: the server runs the write once. */
const RETRIED_WRITES = new Set(['NETWORK_ERROR', 'IDEMPOTENCY_IN_PROGRESS']);

/** A session can end under the page (password changed elsewhere): send the user to sign in again. */
function redirectWhenSignedOut(error: unknown): void {
  if (appErrorOf(error).code !== 'UNAUTHORIZED' || typeof window === 'undefined') return;
  const back = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/login?expired=1&callbackUrl=${encodeURIComponent(back)}`);
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: redirectWhenSignedOut }),
    mutationCache: new MutationCache({ onError: redirectWhenSignedOut }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (failures, error) => failures < 2 && !NOT_RETRIED.has(appErrorOf(error).code),
      },
      mutations: {
        retry: (failures, error) => failures < 3 && RETRIED_WRITES.has(appErrorOf(error).code),
      },
    },
  });
}

export function TrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        idempotencyKeyLink(),
        // A write goes alone: its Idempotency-Key is a header of the whole HTTP request.
        splitLink({
          condition: (op) => op.type === 'mutation',
          true: httpLink({ url: '/api/trpc', headers: ({ op }) => idempotencyHeaders(op) }),
          false: httpBatchLink({ url: '/api/trpc', maxItems: MAX_BATCH_ITEMS }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

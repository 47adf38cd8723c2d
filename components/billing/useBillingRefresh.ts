'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTRPC } from '../trpc/TrpcProvider';

/**
 * A card, a payment or a new biller changes several of the page's answers at once (summary,
 * cards, invoices) and the project's blocked state, which every project page reads.
 */
export function useBillingRefresh(projectId: string): () => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries(trpc.billing.pathFilter()),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey({ projectId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId }) }),
    ]);
  }, [queryClient, trpc, projectId]);
}

'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import { useTRPC } from '../trpc/TrpcProvider';

export type NotificationItem = inferRouterOutputs<AppRouter>['notifications']['list']['notifications'][number];

/** How often the bell asks for the unread count while the page is open. */
export const UNREAD_POLL_MS = 30_000;

/**
 * Marking read from the bell or the page: afterwards every notifications query (the bell's count,
 * its dropdown, the page's list) is read again, so both places agree.
 */
export function useMarkRead() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.notifications.pathKey() });
  const markOne = useMutation(trpc.notifications.markRead.mutationOptions({ onSuccess: refresh }));
  const markAll = useMutation(trpc.notifications.markAllRead.mutationOptions({ onSuccess: refresh }));
  return { markOne, markAll };
}

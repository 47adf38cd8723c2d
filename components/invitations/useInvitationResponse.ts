'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../trpc/TrpcProvider';

/** Accepting or rejecting changes the user's projects and pending list everywhere in the panel. */
export function useInvitationResponse() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.invitations.listMine.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() }),
    ]);
  const accept = useMutation({ ...trpc.invitations.accept.mutationOptions(), onSuccess: refresh });
  const reject = useMutation({ ...trpc.invitations.reject.mutationOptions(), onSuccess: refresh });
  return { accept, reject };
}

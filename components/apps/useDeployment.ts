'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '../trpc/TrpcProvider';
import { DEPLOYMENT_POLL_MS, inProgress } from './apps';

/**
 * One deployment with its log, read again while it is queued or building. When it lands, the
 * app (its live deployment) and its deployment list are read again too.
 */
export function useDeployment(projectId: string, appId: string, deploymentId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const deployment = useQuery(
    trpc.apps.deployment.queryOptions(
      { projectId, appId, deploymentId },
      { refetchInterval: (query) => (query.state.data && inProgress(query.state.data.status) ? DEPLOYMENT_POLL_MS : false) },
    ),
  );
  const status = deployment.data?.status;
  const previous = useRef(status);

  useEffect(() => {
    const was = previous.current;
    previous.current = status;
    if (was && status && inProgress(was) && !inProgress(status)) {
      void Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.apps.get.queryKey({ projectId, appId }) }),
        queryClient.invalidateQueries({ queryKey: trpc.apps.deployments.queryKey({ projectId, appId }) }),
        queryClient.invalidateQueries({ queryKey: trpc.apps.list.queryKey({ projectId }) }),
      ]);
    }
  }, [status, queryClient, trpc, projectId, appId]);

  return deployment;
}

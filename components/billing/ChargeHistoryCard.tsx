'use client';

import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { ChargeChart } from './ChargeChart';

/**
 * The project's last six months of charges (projects.stats, open to every role), on the overview
 * and on the Billing page. projects.stats carries no currency and billing.overview, which does,
 * is closed to members and viewers, so pages that cannot read it show the default billing currency.
 */
export function ChargeHistoryCard({
  projectId,
  title,
  description,
  currency = 'usd',
}: {
  projectId: string;
  title: ReactNode;
  description?: ReactNode;
  currency?: string;
}) {
  const trpc = useTRPC();
  const stats = useQuery(trpc.projects.stats.queryOptions({ projectId }));

  return (
    <Card title={title} description={description} aria-label="Charge history">
      {stats.isPending ? (
        <div aria-busy="true">
          <Skeleton height={190} />
        </div>
      ) : stats.isError ? (
        <Alert tone="danger" title="The charge history could not be loaded" action={<Button size="sm" onClick={() => stats.refetch()}>Try again</Button>}>
          {errorMessage(stats.error)}
        </Alert>
      ) : (
        <ChargeChart entries={stats.data.resourceHistory} currency={currency} />
      )}
    </Card>
  );
}

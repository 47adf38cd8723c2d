'use client';

import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTRPC } from '../trpc/TrpcProvider';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
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
  const history = useQuery(trpc.projects.stats.queryOptions({ projectId }, { select: (stats) => stats.resourceHistory }));

  return (
    <Card title={title} description={description} aria-label="Charge history">
      <DataList label="Charge history" query={history} loading={<Skeleton height={190} />}>
        {(entries) => <ChargeChart entries={entries} currency={currency} />}
      </DataList>
    </Card>
  );
}

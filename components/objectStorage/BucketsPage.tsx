'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { BucketStatus } from './BucketStatus';
import { DevelopmentEndpointNotice } from './DevelopmentEndpointNotice';
import { regionName, TIER_LABELS, type BucketView, type StorageProviderInfo } from './storage';
import styles from './objectStorage.module.css';

export function BucketsPage({ provider }: { provider: StorageProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const buckets = useQuery(trpc.objectStorage.list.queryOptions({ projectId: project.id }));
  const newPath = projectPath(project.id, 'object-storage/new');

  const columns: Column<BucketView>[] = [
    {
      header: 'Name',
      cell: (bucket) => (
        <div>
          <Link href={projectPath(project.id, `object-storage/${bucket.id}`)} className={`${styles.nameLink} mono`}>
            {bucket.name}
          </Link>
          <div className={`cell-sub ${styles.underName}`}>
            {TIER_LABELS[bucket.tier]} · {bucket.region}
            {bucket.publicAccess ? <Badge tone="warning">Public</Badge> : null}
            {bucket.cdnEnabled ? <Badge tone="accent">CDN</Badge> : null}
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (bucket) => <BucketStatus bucket={bucket} /> },
    { header: 'Tier', className: 'hide-xs', cell: (bucket) => TIER_LABELS[bucket.tier] },
    {
      header: 'Region',
      className: 'hide-sm',
      cell: (bucket) => (
        <div className={styles.nowrap}>
          <div>{regionName(bucket.region)}</div>
          <div className="cell-sub mono">{bucket.region}</div>
        </div>
      ),
    },
    {
      header: 'Access',
      className: 'hide-xs',
      cell: (bucket) => (
        <span className={styles.flags}>
          {bucket.publicAccess ? <Badge tone="warning">Public</Badge> : <Badge>Private</Badge>}
          {bucket.cdnEnabled ? <Badge tone="accent">CDN</Badge> : null}
        </span>
      ),
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (bucket) => <span title={formatDateTime(bucket.createdAt)}>{formatRelative(bucket.createdAt)}</span>,
    },
  ];

  const createButton = canCreate ? (
    <ButtonLink href={newPath} variant="primary">
      <Icon name="plus" /> Create bucket
    </ButtonLink>
  ) : null;

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Object storage"
        description="S3-compatible buckets billed monthly by tier, with the credentials that reach them."
        actions={
          <>
            <ButtonLink href={projectPath(project.id, 'object-storage/credentials')}>
              <Icon name="key" /> Credentials
            </ButtonLink>
            {createButton}
          </>
        }
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <DevelopmentEndpointNotice provider={provider} />
        <Card flush>
          <DataList
            label="Buckets"
            query={buckets}
            columns={columns}
            rowKey={(bucket) => bucket.id}
            empty={
              <EmptyState
                icon="bucket"
                title="No buckets yet"
                description="Create a bucket for uploads, backups or static assets, and reach it with any S3 client."
                action={createButton}
              />
            }
          />
        </Card>
      </div>
    </main>
  );
}

'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatBytes, formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { formatMinorUnits } from '../ui/money';
import { AvailabilityNotice } from './AvailabilityNotice';
import { DatabaseStatus } from './DatabaseStatus';
import { endpoint, POOL_MODES_EXPLAINED, TIER_LABELS, type TenantView, type TierPrice } from './databases';
import { StorageMeter } from './StorageMeter';
import styles from './databases.module.css';

export function DatabasesPage() {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const tenants = useQuery(trpc.databases.list.queryOptions({ projectId: project.id }));
  const availability = useQuery(trpc.databases.availability.queryOptions({ projectId: project.id }));
  const prices = useQuery(trpc.databases.prices.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  // Off only once the cluster says it cannot take a database; the form checks again.
  const available = availability.data?.available !== false;
  const newPath = projectPath(project.id, 'databases/new');
  const createButton = canCreate ? <CreateButton href={newPath} available={available} /> : null;

  const columns: Column<TenantView>[] = [
    {
      header: 'Name',
      cell: (tenant) => (
        <div>
          <Link href={projectPath(project.id, `databases/${tenant.tenantId}`)} className={`${styles.nameLink} mono`}>
            {tenant.dbName}
          </Link>
          <div className={`cell-sub ${styles.underName}`}>
            {TIER_LABELS[tenant.tier]} · {POOL_MODES_EXPLAINED[tenant.poolMode].label} pooling
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (tenant) => <DatabaseStatus tenant={tenant} /> },
    {
      header: 'Tier',
      className: 'hide-xs',
      cell: (tenant) => (
        <div className={styles.nowrap}>
          <div>{TIER_LABELS[tenant.tier]}</div>
          <div className="cell-sub">{tenant.limits.maxConnections} connections</div>
        </div>
      ),
    },
    { header: 'Pool mode', className: 'hide-sm', cell: (tenant) => POOL_MODES_EXPLAINED[tenant.poolMode].label },
    {
      header: 'Endpoint',
      className: 'hide-sm',
      cell: (tenant) => (
        <div className={styles.nowrap}>
          <div className="mono">{endpoint(tenant.host, tenant.port)}</div>
          {tenant.poolHost && tenant.poolPort ? <div className="cell-sub mono">pool {endpoint(tenant.poolHost, tenant.poolPort)}</div> : null}
        </div>
      ),
    },
    { header: 'Storage', className: 'hide-xs', cell: (tenant) => <StorageMeter tenant={tenant} /> },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (tenant) => <span title={formatDateTime(tenant.createdAt)}>{formatRelative(tenant.createdAt)}</span>,
    },
  ];

  const tierColumns: Column<TierPrice>[] = [
    {
      header: 'Tier',
      cell: (price) => (
        <div>
          <span className="cell-primary">{TIER_LABELS[price.tier]}</span>
          <div className={`cell-sub ${styles.underName}`}>
            {price.maxConnections} connections · {formatBytes(price.storageGb * 1_000_000_000)} · pool of {price.poolSize}
          </div>
        </div>
      ),
    },
    { header: 'Price', cell: (price) => <span className={styles.figure}>{formatMinorUnits(price.monthly, price.currency)}/month</span> },
    { header: 'Max connections', className: 'hide-xs', cell: (price) => <span className={styles.figure}>{price.maxConnections}</span> },
    { header: 'Storage', className: 'hide-xs', cell: (price) => <span className={styles.figure}>{formatBytes(price.storageGb * 1_000_000_000)}</span> },
    { header: 'Pool size', className: 'hide-xs', cell: (price) => <span className={styles.figure}>{price.poolSize}</span> },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Databases"
        description="PostgreSQL databases on a shared cluster, billed monthly to this project: each has its own roles, a connection limit, a storage limit and a PgBouncer pool."
        actions={createButton}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <AvailabilityNotice availability={availability} />
        <Card flush>
          <DataList
            label="Databases"
            query={tenants}
            columns={columns}
            rowKey={(tenant) => tenant.tenantId}
            empty={
              <EmptyState
                icon="database"
                title="No databases yet"
                description="Create a PostgreSQL database for an application: you get its user, a password shown once, and connection strings for direct and pooled connections."
                action={createButton}
              />
            }
          />
        </Card>
        <Card
          flush
          title="Tiers"
          description="Max connections are the direct sessions a database may hold at once; the pool size is PgBouncer’s server connections for it. The tier can be changed later."
        >
          <DataList label="Database tiers" query={prices} columns={tierColumns} rowKey={(price) => price.tier} loadingRows={4} />
        </Card>
      </div>
    </main>
  );
}

function CreateButton({ href, available }: { href: string; available: boolean }) {
  if (!available) {
    return (
      <Button variant="primary" disabled title="Databases cannot be created on this installation now">
        <Icon name="plus" /> New database
      </Button>
    );
  }
  return (
    <ButtonLink href={href} variant="primary">
      <Icon name="plus" /> New database
    </ButtonLink>
  );
}

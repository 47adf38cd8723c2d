'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDateTime, formatMemory, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Card } from '../ui/Card';
import { ButtonLink } from '../ui/Button';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { PERSISTENCE_LABELS, planName, PROVISIONING_POLL_MS, regionName, useRedisCatalog, type RedisDatabase, type RedisProviderInfo } from './catalog';
import { RedisStatus } from './RedisStatus';
import { SimulatorNotice } from './SimulatorNotice';
import styles from './redis.module.css';

export function RedisPage({ provider }: { provider: RedisProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const { plans, regions } = useRedisCatalog();
  const databases = useQuery(
    trpc.redis.list.queryOptions(
      { projectId: project.id },
      { refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'PROVISIONING') ? PROVISIONING_POLL_MS : false) },
    ),
  );
  const newPath = projectPath(project.id, 'redis/new');

  const columns: Column<RedisDatabase>[] = [
    {
      header: 'Name',
      cell: (db) => (
        <div>
          <Link href={projectPath(project.id, `redis/${db.id}`)} className={styles.nameLink}>
            {db.name}
          </Link>
          <div className={`cell-sub ${styles.planUnderName}`}>{planName(db.planSlug, plans.data)}</div>
        </div>
      ),
    },
    { header: 'Status', cell: (db) => <RedisStatus database={db} /> },
    {
      header: 'Plan',
      className: 'hide-sm',
      cell: (db) => (
        <div className={styles.nowrap}>
          <div>{planName(db.planSlug, plans.data)}</div>
          <div className="cell-sub mono">{db.planSlug}</div>
        </div>
      ),
    },
    {
      header: 'Region',
      className: 'hide-xs',
      cell: (db) => (
        <div className={styles.nowrap}>
          <div>{regionName(db.region, regions.data)}</div>
          <div className="cell-sub mono">{db.region}</div>
        </div>
      ),
    },
    { header: 'Usable memory', className: 'hide-xs', cell: (db) => <span className={styles.figure}>{formatMemory(db.usableMemoryMb)}</span> },
    { header: 'Replication', className: 'hide-sm', cell: (db) => (db.replication ? 'Replica' : <span className="muted">None</span>) },
    { header: 'Persistence', className: 'hide-sm', cell: (db) => PERSISTENCE_LABELS[db.dataPersistence] },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (db) => <span title={formatDateTime(db.createdAt)}>{formatRelative(db.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Redis"
        description="Managed Redis 7.2 compatible databases billed monthly to this project. A new database is ready within seconds."
        actions={
          canCreate ? (
            <ButtonLink href={newPath} variant="primary">
              <Icon name="plus" /> Create database
            </ButtonLink>
          ) : null
        }
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <SimulatorNotice provider={provider} />
        <Card flush>
          <DataList
            label="Redis databases"
            query={databases}
            columns={columns}
            rowKey={(db) => db.id}
            empty={
              <EmptyState
                icon="bolt"
                title="No Redis databases yet"
                description="Create a database for caching, queues or sessions, with the memory, replication and persistence you choose."
                action={
                  canCreate ? (
                    <ButtonLink href={newPath} variant="primary">
                      <Icon name="plus" /> Create database
                    </ButtonLink>
                  ) : null
                }
              />
            }
          />
        </Card>
      </div>
    </main>
  );
}

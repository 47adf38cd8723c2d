'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { regionName, useRegistryRegions, type RegistryProviderInfo, type RegistryView } from './registry';
import { RegistryStatus } from './RegistryStatus';
import { SimulatorNotice } from './SimulatorNotice';
import styles from './containerRegistry.module.css';

export function RegistriesPage({ provider }: { provider: RegistryProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const registries = useQuery(trpc.containerRegistry.list.queryOptions({ projectId: project.id }));
  const regions = useRegistryRegions(project.id);
  const newPath = projectPath(project.id, 'container-registry/new');

  const columns: Column<RegistryView>[] = [
    {
      header: 'Name',
      cell: (registry) => (
        <div>
          <Link href={projectPath(project.id, `container-registry/${registry.id}`)} className={`${styles.nameLink} mono`}>
            {registry.name}
          </Link>
          <div className={`cell-sub ${styles.underName}`}>
            {regionName(registry.region, regions.data)} · {repositoryCount(registry.repositories.length)}
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (registry) => <RegistryStatus registry={registry} /> },
    {
      header: 'Region',
      className: 'hide-xs',
      cell: (registry) => (
        <div className={styles.nowrap}>
          <div>{regionName(registry.region, regions.data)}</div>
          <div className="cell-sub mono">{registry.region}</div>
        </div>
      ),
    },
    {
      header: 'Endpoint',
      className: 'hide-sm',
      cell: (registry) => <span className="mono cell-sub">{`${registry.endpoint}/${registry.name}`}</span>,
    },
    {
      header: 'Repositories',
      className: 'hide-xs',
      cell: (registry) => <span className={styles.figure}>{registry.repositories.length}</span>,
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (registry) => <span title={formatDateTime(registry.createdAt)}>{formatRelative(registry.createdAt)}</span>,
    },
  ];

  const createButton = canCreate ? (
    <ButtonLink href={newPath} variant="primary">
      <Icon name="plus" /> Create registry
    </ButtonLink>
  ) : null;

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Container registry"
        description="Private Docker registries for this project's images: USD 1 a month each, storage and egress included for now. Push and pull with docker and an API key."
        actions={createButton}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <SimulatorNotice provider={provider} />
        <Card flush>
          <DataList
            label="Registries"
            query={registries}
            columns={columns}
            rowKey={(registry) => registry.id}
            empty={
              <EmptyState
                icon="box"
                title="No registries yet"
                description="Create a registry, then push images to it with docker. Repositories are made on the first push, or ahead of it with the visibility you choose."
                action={createButton}
              />
            }
          />
        </Card>
      </div>
    </main>
  );
}

function repositoryCount(count: number): string {
  return `${count} ${count === 1 ? 'repository' : 'repositories'}`;
}

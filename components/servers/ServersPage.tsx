'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDate, formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { StatusBadge } from '../ui/StatusBadge';
import type { Column } from '../ui/Table';
import { PROVISIONING_POLL_MS, regionName, sizeSummary, useServerCatalog, type Server } from './catalog';
import styles from './servers.module.css';

export function ServersPage({ created }: { created?: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const { regions, sizes } = useServerCatalog();
  const servers = useQuery(
    trpc.servers.list.queryOptions(
      { projectId: project.id },
      { refetchInterval: (query) => (query.state.data?.some((s) => s.status === 'PROVISIONING') ? PROVISIONING_POLL_MS : false) },
    ),
  );
  const newServer = created ? servers.data?.find((s) => s.name === created) : undefined;
  const newPath = projectPath(project.id, 'servers/new');

  const columns: Column<Server>[] = [
    {
      header: 'Name',
      cell: (server) => (
        <div>
          <Link href={projectPath(project.id, `servers/${server.id}`)} className={styles.nameLink}>
            {server.name}
          </Link>
          <div className="cell-sub">{server.type}</div>
          {server.ipAddress ? <div className={`cell-sub ${styles.ipUnderName}`}>{server.ipAddress}</div> : null}
        </div>
      ),
    },
    {
      header: 'Status',
      cell: (server) => (
        <div className={styles.statusCell}>
          <StatusBadge status={server.status} />
          {server.suspendedAt ? (
            <Badge tone="danger" title={`Powered off on ${formatDate(server.suspendedAt)} for an unpaid invoice`}>
              Suspended
            </Badge>
          ) : null}
        </div>
      ),
    },
    {
      header: 'Region',
      className: 'hide-xs',
      cell: (server) => (
        <div>
          <div>{regionName(server.region, regions.data)}</div>
          <div className="cell-sub mono">{server.region}</div>
        </div>
      ),
    },
    {
      header: 'Size',
      className: 'hide-sm',
      cell: (server) => (
        <div>
          <div className="mono" style={{ fontSize: 13 }}>
            {server.instanceType}
          </div>
          <div className="cell-sub">{sizeSummary(server.instanceType, sizes.data)}</div>
        </div>
      ),
    },
    {
      header: 'IP address',
      className: 'hide-xs',
      cell: (server) =>
        server.ipAddress ? (
          <span className={styles.ipCell}>
            <code>{server.ipAddress}</code>
            <CopyButton value={server.ipAddress} label={`Copy IP address of ${server.name}`} />
          </span>
        ) : (
          <span className="muted">Assigned at first boot</span>
        ),
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (server) => <span title={formatDateTime(server.createdAt)}>{formatRelative(server.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Servers"
        description="LAMP servers billed monthly to this project. New servers start provisioning at once and get their address when they have booted."
        actions={
          canCreate ? (
            <ButtonLink href={newPath} variant="primary">
              <Icon name="plus" /> Create server
            </ButtonLink>
          ) : null
        }
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        {created ? (
          <Alert tone="success" title={`Server ${created} is being created`}>
            It was charged and is booting; its status turns Running within a minute or two.{' '}
            {newServer ? <Link href={projectPath(project.id, `servers/${newServer.id}`)}>Open {created}</Link> : null}
          </Alert>
        ) : null}
        <Card flush>
          <DataList
            label="Servers"
            query={servers}
            columns={columns}
            rowKey={(server) => server.id}
            empty={
              <EmptyState
                icon="server"
                title="No servers yet"
                description="Create a LAMP server in the region and size you choose. Add an SSH key first so you can log in to it."
                action={
                  canCreate ? (
                    <div className="row" style={{ justifyContent: 'center' }}>
                      <ButtonLink href={newPath} variant="primary">
                        <Icon name="plus" /> Create server
                      </ButtonLink>
                      <ButtonLink href={projectPath(project.id, 'ssh-keys')}>SSH keys</ButtonLink>
                    </div>
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

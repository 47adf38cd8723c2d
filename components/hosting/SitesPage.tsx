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
import { FileIcon } from './FileIcon';
import { READY_POLL_MS, TIER_LABELS, type HostingProviderInfo, type SiteView } from './hosting';
import { SiteStatus } from './SiteStatus';
import { WebSimulatorNotice } from './SimulatorNotice';
import styles from './hosting.module.css';

export function SitesPage({ provider }: { provider: HostingProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const sites = useQuery(
    trpc.hosting.list.queryOptions(
      { projectId: project.id },
      // A new site starts serving within seconds; the list watches until every site answers.
      { refetchInterval: (query) => (query.state.data?.some((site) => !site.ready && site.status === 'ACTIVE') ? READY_POLL_MS : false) },
    ),
  );
  const newPath = projectPath(project.id, 'hosting/new');

  const columns: Column<SiteView>[] = [
    {
      header: 'Name',
      cell: (site) => (
        <div>
          <Link href={projectPath(project.id, `hosting/${site.tenantId}`)} className={`${styles.nameLink} mono`}>
            {site.siteName}
          </Link>
          <div className={`cell-sub ${styles.underName}`}>
            {TIER_LABELS[site.tier]} · PHP {site.phpVersion}
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (site) => <SiteStatus site={site} /> },
    {
      header: 'Tier',
      className: 'hide-xs',
      cell: (site) => (
        <div className={styles.nowrap}>
          <div>{TIER_LABELS[site.tier]}</div>
          <div className="cell-sub">{site.limits.diskGb} GB disk</div>
        </div>
      ),
    },
    { header: 'PHP', className: 'hide-xs', cell: (site) => <span className={styles.nowrap}>PHP {site.phpVersion}</span> },
    {
      header: 'Address',
      className: 'hide-sm',
      cell: (site) => (
        <a href={site.url} target="_blank" rel="noreferrer" className={`${styles.urlLink} mono`}>
          {site.url.replace(/^https?:\/\//, '')}
          <FileIcon name="external" size={13} />
        </a>
      ),
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (site) => <span title={formatDateTime(site.createdAt)}>{formatRelative(site.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Hosting"
        description="PHP web hosting billed monthly to this project: each site has its own files, domains, MySQL databases and SFTP access."
        actions={
          canCreate ? (
            <ButtonLink href={newPath} variant="primary">
              <Icon name="plus" /> Create site
            </ButtonLink>
          ) : null
        }
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <WebSimulatorNotice provider={provider} />
        <Card flush>
          <DataList
            label="Hosting sites"
            query={sites}
            columns={columns}
            rowKey={(site) => site.tenantId}
            empty={
              <EmptyState
                icon="cloud"
                title="No sites yet"
                description="Create a site for a PHP application or a WordPress blog: upload its files with the file manager or SFTP, attach your domains and add MySQL databases."
                action={
                  canCreate ? (
                    <ButtonLink href={newPath} variant="primary">
                      <Icon name="plus" /> Create site
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

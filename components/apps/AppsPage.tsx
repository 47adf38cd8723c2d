'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDateTime, formatRelative } from '../format';
import { GIT_HOST_NAMES } from '../integrations/gitHosts';
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
import { formatMinorUnits } from '../ui/money';
import { regionName, type AppView } from './apps';
import { AppStatus } from './DeploymentStatus';
import { LiveDeploymentLink } from './LiveDeploymentLink';
import { useAppCatalog } from './useAppCatalog';
import styles from './apps.module.css';

export function AppsPage({ currency }: { currency: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const canCreate = hasRole(project, 'member');
  const apps = useQuery(trpc.apps.list.queryOptions({ projectId: project.id }));
  const { regions } = useAppCatalog();
  const createButton = canCreate ? (
    <ButtonLink href={projectPath(project.id, 'apps/new')} variant="primary">
      <Icon name="plus" /> New app
    </ButtonLink>
  ) : null;

  const columns: Column<AppView>[] = [
    {
      header: 'App',
      cell: (app) => (
        <div>
          <Link href={projectPath(project.id, `apps/${app.id}`)} className={`${styles.nameLink} ${styles.appName} mono`}>
            {app.name}
          </Link>
          <div className={`cell-sub ${styles.underName}`}>
            <span className="mono">{app.repository}</span> · <span className="mono">{app.branch}</span>
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (app) => <AppStatus app={app} /> },
    {
      header: 'Repository',
      className: 'hide-sm',
      cell: (app) => (
        <div className={styles.repository}>
          <span className="mono">{app.repository}</span>
          <span className="cell-sub">
            {GIT_HOST_NAMES[app.gitHost]} · branch <span className="mono">{app.branch}</span>
            {app.autoDeploy ? ' · deploys on push' : ''}
          </span>
        </div>
      ),
    },
    {
      header: 'Live deployment',
      className: 'hide-sm',
      cell: (app) => <LiveDeploymentLink app={app} />,
    },
    {
      header: 'Services',
      className: 'hide-sm',
      cell: (app) => (
        <div>
          <div>
            {app.services.length} {app.services.length === 1 ? 'service' : 'services'}
          </div>
          <div className="cell-sub">{regionName(app.region, regions.data)}</div>
        </div>
      ),
    },
    {
      header: 'Price',
      cell: (app) => (
        <span className={styles.figure}>
          {formatMinorUnits(app.monthly, currency)}
          <span className="muted">/month</span>
        </span>
      ),
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (app) => <span title={formatDateTime(app.createdAt)}>{formatRelative(app.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Apps"
        description="Apps built from a branch of a connected git repository and run as services in a region, billed monthly per instance. Each push to the branch deploys them again."
        actions={createButton}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <Card flush>
          <DataList
            label="Apps"
            query={apps}
            columns={columns}
            rowKey={(app) => app.id}
            empty={
              <EmptyState
                icon="power"
                title="No apps yet"
                description="Create an app from a repository of a connected git host: its template’s services, or one service you describe. Connect a host on the Integrations page."
                action={createButton}
              />
            }
          />
        </Card>
      </div>
    </main>
  );
}

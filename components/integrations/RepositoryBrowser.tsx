'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { GitHost } from '@/db/schema/gitIntegrations';
import { formatBytes } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { Skeleton } from '../ui/Skeleton';
import type { Column } from '../ui/Table';
import { BranchSelect } from './BranchSelect';
import { GIT_HOST_NAMES, newAppSearch, repositoryQueries, type GitContentEntryView, type GitRepositoryView } from './gitHosts';
import { TemplatePreview } from './TemplatePreview';
import styles from './integrations.module.css';

/** One repository of a connected host: its files at a branch, and the app its template would make. */
export function RepositoryBrowser({ host, repository, onClose }: { host: GitHost; repository: GitRepositoryView; onClose: () => void }) {
  const project = useProject();
  const [branch, setBranch] = useState(repository.defaultBranch);
  const [path, setPath] = useState('');
  const canCreate = hasRole(project, 'member');

  return (
    <Card
      aria-label={`Repository ${repository.fullName}`}
      title={
        <span className={styles.titleRow}>
          <span className="mono">{repository.fullName}</span>
          {repository.private ? <Badge>Private</Badge> : null}
          <span className={styles.hostTag}>{GIT_HOST_NAMES[host]}</span>
        </span>
      }
      description={repository.description ?? undefined}
      actions={
        <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close the repository">
          Close
        </Button>
      }
      footer={
        canCreate ? (
          <>
            <span className="muted">
              The app builds <span className="mono">{branch}</span> and deploys again on each push to it.
            </span>
            <ButtonLink variant="primary" href={`${projectPath(project.id, 'apps/new')}${newAppSearch(host, repository.fullName, branch)}`}>
              <Icon name="plus" /> Create app from this repository
            </ButtonLink>
          </>
        ) : undefined
      }
    >
      <div className="stack-lg">
        <div className={styles.branchRow}>
          <BranchSelect
            host={host}
            repository={repository.fullName}
            value={branch}
            onChange={(next) => {
              setBranch(next);
              setPath('');
            }}
          />
        </div>
        <div className={styles.browserGrid}>
          <Files host={host} repository={repository.fullName} branch={branch} path={path} onOpen={setPath} />
          <Template host={host} repository={repository.fullName} branch={branch} />
        </div>
      </div>
    </Card>
  );
}

function Files({
  host,
  repository,
  branch,
  path,
  onOpen,
}: {
  host: GitHost;
  repository: string;
  branch: string;
  path: string;
  onOpen: (path: string) => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const contents = useQuery(repositoryQueries(trpc, project.id, host, repository).contents(path, branch));
  const segments = path === '' ? [] : path.split('/');

  const columns: Column<GitContentEntryView>[] = [
    {
      header: 'Name',
      cell: (entry) =>
        entry.type === 'dir' ? (
          <button type="button" className={styles.linkButton} onClick={() => onOpen(entry.path)} aria-label={`Open the folder ${entry.name}`}>
            <Icon name="folder" size={14} /> <span className="mono">{entry.name}</span>
          </button>
        ) : (
          <span className={styles.entryName}>
            <Icon name="file" size={14} />
            <span className="mono">{entry.name}</span>
            {entry.type === 'symlink' || entry.type === 'submodule' ? <span className="muted">{entry.type}</span> : null}
          </span>
        ),
    },
    {
      header: 'Size',
      className: styles.sizeCell,
      cell: (entry) => (entry.size === null ? <span className="muted">—</span> : formatBytes(entry.size)),
    },
  ];

  return (
    <section className={styles.files} aria-label="Files">
      <nav className={styles.crumbs} aria-label="Folder">
        <button type="button" className={styles.crumb} onClick={() => onOpen('')} aria-current={segments.length === 0 ? 'location' : undefined}>
          {repository.split('/').pop()}
        </button>
        {segments.map((segment, index) => {
          const target = segments.slice(0, index + 1).join('/');
          return (
            <span key={target} className={styles.crumbPart}>
              <span aria-hidden>/</span>
              <button
                type="button"
                className={styles.crumb}
                onClick={() => onOpen(target)}
                aria-current={index === segments.length - 1 ? 'location' : undefined}
              >
                {segment}
              </button>
            </span>
          );
        })}
      </nav>
      <div className={styles.filesTable}>
        <DataList
          label={path ? `Files in ${path}` : 'Files'}
          query={contents}
          columns={columns}
          rowKey={(entry) => entry.path}
          loadingRows={5}
          empty={<EmptyState icon="folder" title="This folder is empty" />}
        />
      </div>
    </section>
  );
}

function Template({ host, repository, branch }: { host: GitHost; repository: string; branch: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const template = useQuery(repositoryQueries(trpc, project.id, host, repository).appTemplate(branch));
  return (
    <section className={styles.templatePane} aria-label="App template">
      <h3 className={styles.paneTitle}>App template</h3>
      {template.isPending ? (
        <div className="stack" aria-busy="true">
          <Skeleton height={20} width="70%" />
          <Skeleton height={120} />
        </div>
      ) : template.isError ? (
        <LoadFailed title="The template could not be read" error={template.error} retry={template.refetch} retrying={template.isFetching} />
      ) : (
        <TemplatePreview template={template.data} />
      )}
    </section>
  );
}

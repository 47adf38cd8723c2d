'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { GitHost } from '@/db/schema/gitIntegrations';
import { formatDateTime, formatRelative } from '../format';
import { useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { Skeleton } from '../ui/Skeleton';
import { GIT_HOST_NAMES, repositoriesQuery, type GitRepositoryView } from './gitHosts';
import styles from './integrations.module.css';

/** The repositories a connected host reaches, newest first, filtered as typed; choosing one hands it back. */
export function RepositoryPicker({ host, onClose, onPick }: { host: GitHost | null; onClose: () => void; onPick: (repository: GitRepositoryView) => void }) {
  return (
    <Dialog
      open={host !== null}
      onClose={onClose}
      title={host ? `Repositories on ${GIT_HOST_NAMES[host].toLowerCase()}` : ''}
      description="The repositories the connection reaches, most recently updated first."
      footer={
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
      }
    >
      {host ? <RepositoryList host={host} onPick={onPick} /> : null}
    </Dialog>
  );
}

/** Mounted only while the dialog is open, so the filter starts empty each time. */
function RepositoryList({ host, onPick }: { host: GitHost; onPick: (repository: GitRepositoryView) => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const repositories = useQuery(repositoriesQuery(trpc, project.id, host));
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown = repositories.data?.filter(
    (repository) => repository.fullName.toLowerCase().includes(needle) || repository.description?.toLowerCase().includes(needle),
  );

  return (
    <>
      <Input
        label="Filter"
        type="search"
        name="repositoryFilter"
        autoComplete="off"
        spellCheck={false}
        placeholder="Name or description"
        value={filter}
        onChange={(event) => setFilter(event.target.value)}
      />
      {repositories.isError ? (
        <LoadFailed title="The repositories could not be loaded" error={repositories.error} retry={repositories.refetch} retrying={repositories.isFetching} />
      ) : !shown ? (
        <div className="stack" aria-busy="true">
          <Skeleton height={52} />
          <Skeleton height={52} />
          <Skeleton height={52} />
        </div>
      ) : shown.length === 0 ? (
        <p className="muted">{needle ? `No repository matches “${filter.trim()}”.` : 'The connection reaches no repository yet: grant it some on the host.'}</p>
      ) : (
        <ul className={styles.repoList} aria-label="Repositories">
          {shown.map((repository) => (
            <li key={repository.fullName}>
              <button type="button" className={styles.repoButton} onClick={() => onPick(repository)}>
                <span className={styles.repoName}>
                  <span className="mono">{repository.fullName}</span>
                  {repository.private ? <Badge>Private</Badge> : null}
                </span>
                {repository.description ? <span className={styles.repoDescription}>{repository.description}</span> : null}
                <span className={styles.repoMeta} title={formatDateTime(repository.updatedAt)}>
                  {repository.defaultBranch} · updated {formatRelative(repository.updatedAt)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

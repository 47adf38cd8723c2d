'use client';

import { useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import type { GitHost } from '@/db/schema/gitIntegrations';
import { useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button } from '../ui/Button';
import { Select } from '../ui/Select';
import { repositoryQueries } from './gitHosts';
import styles from './integrations.module.css';

/**
 * The branches of a repository, read a page of 100 at a time as the host serves them: a repository
 * with hundreds of branches shows the first page at once and the rest on request.
 */
export function BranchSelect({
  host,
  repository,
  value,
  onChange,
  label = 'Branch',
  error,
  hint,
  disabled,
}: {
  host: GitHost;
  repository: string;
  value: string;
  onChange: (branch: string) => void;
  label?: string;
  error?: string;
  hint?: string;
  disabled?: boolean;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const [pages, setPages] = useState(1);
  const queries = repositoryQueries(trpc, project.id, host, repository);
  const results = useQueries({ queries: Array.from({ length: pages }, (_, index) => queries.branches(index + 1)) });
  const names = results.flatMap((result) => result.data?.branches.map((branch) => branch.name) ?? []);
  const last = results[results.length - 1];
  const first = results[0];
  const hasMore = last?.data?.nextPage != null;
  const loadingMore = pages > 1 && last?.isPending === true;
  // A branch named by the address may sit on a page not read yet; it stays choosable.
  const options = names.includes(value) || value === '' ? names : [value, ...names];
  const loadError = first?.isError ? `The branches could not be loaded: ${errorMessage(first.error)}` : undefined;

  return (
    <div className={styles.branchSelect}>
      <Select
        label={label}
        name="branch"
        value={value}
        disabled={disabled || (first?.isPending && options.length === 0)}
        onChange={(event) => onChange(event.target.value)}
        options={options.map((name) => ({ value: name, label: name }))}
        error={error ?? loadError}
        hint={hint}
      />
      {hasMore || loadingMore ? (
        <Button size="sm" variant="ghost" loading={loadingMore} onClick={() => setPages((count) => count + 1)}>
          Load more branches
        </Button>
      ) : null}
    </div>
  );
}

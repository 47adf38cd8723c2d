'use client';

import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import type { AppRouter } from '@/server/app';
import { AUDIT_OUTCOME_FILTERS, type AuditOutcomeFilter } from '@/server/domains/audit/schema';
import { formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { PageHeader } from '../ui/PageHeader';
import { Select, type SelectOption } from '../ui/Select';
import type { Column } from '../ui/Table';
import styles from './activity.module.css';

type AuditEntry = inferRouterOutputs<AppRouter>['audit']['list']['entries'][number];

interface Filters {
  actor: string;
  action: string;
  outcome: AuditOutcomeFilter | '';
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { actor: '', action: '', outcome: '', from: '', to: '' };

export function ActivityPage({ actions, retentionDays }: { actions: readonly string[]; retentionDays: number }) {
  const project = useProject();
  const canRead = hasRole(project, 'admin');
  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Activity"
        description={`Every change made in this project, from the panel and through API keys, with who made it and how it ended; refused attempts too. Entries are kept for ${retentionDays} days.`}
      />
      {canRead ? (
        <ActivityLog projectId={project.id} actions={actions} />
      ) : (
        <div className="card">
          <EmptyState
            icon="lock"
            title="Activity is visible to owners and admins"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin if you need to know who changed something.`}
          />
        </div>
      )}
    </main>
  );
}

function ActivityLog({ projectId, actions }: { projectId: string; actions: readonly string[] }) {
  const trpc = useTRPC();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const filtered = Object.values(filters).some(Boolean);
  const log = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      {
        projectId,
        actor: filters.actor || undefined,
        action: filters.action || undefined,
        outcome: filters.outcome || undefined,
        from: filters.from || undefined,
        to: filters.to || undefined,
      },
      // The rows on screen stay while a changed filter loads, instead of flashing back to placeholders.
      // A log is read for what just happened: opening the page always fetches it again, however recent the cached copy.
      { getNextPageParam: (page) => page.nextCursor, placeholderData: keepPreviousData, refetchOnMount: 'always' },
    ),
  );
  const entries = log.data?.pages.flatMap((page) => page.entries);
  const set = (field: keyof Filters) => (event: { target: { value: string } }) => setFilters((current) => ({ ...current, [field]: event.target.value }));

  return (
    <Card
      flush
      title="Audit log"
      description="Newest first. Times are in your browser's time zone; date filters are whole days in UTC."
      actions={
        <Button size="sm" variant="ghost" onClick={() => void log.refetch()} loading={log.isRefetching && !log.isFetchingNextPage}>
          Refresh
        </Button>
      }
      footer={
        entries && entries.length > 0 ? (
          <>
            <span className="muted">
              {entries.length} {entries.length === 1 ? 'entry' : 'entries'} shown
            </span>
            {log.hasNextPage ? (
              <Button size="sm" onClick={() => void log.fetchNextPage()} loading={log.isFetchingNextPage}>
                Load more
              </Button>
            ) : (
              <span className="muted">{filtered ? 'That is every matching entry' : 'That is everything'}</span>
            )}
          </>
        ) : undefined
      }
    >
      <form className={styles.filters} aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
        <ActorSelect projectId={projectId} value={filters.actor} onChange={set('actor')} />
        <Select
          label="Action"
          value={filters.action}
          onChange={set('action')}
          options={[{ value: '', label: 'Any action' }, ...actions.map((action) => ({ value: action, label: action }))]}
        />
        <Select label="Outcome" value={filters.outcome} onChange={set('outcome')} options={OUTCOME_OPTIONS} />
        <Input label="From" type="date" value={filters.from} max={filters.to || undefined} onChange={set('from')} />
        <Input label="To" type="date" value={filters.to} min={filters.from || undefined} onChange={set('to')} />
        {filtered ? (
          <div className={styles.clear}>
            <Button size="sm" variant="ghost" onClick={() => setFilters(NO_FILTERS)}>
              Clear filters
            </Button>
          </div>
        ) : null}
      </form>
      <DataList
        label="Audit log"
        query={{ data: entries, error: log.error, isFetching: log.isFetching, refetch: log.refetch }}
        columns={COLUMNS}
        rowKey={(entry) => entry.id}
        loadingRows={6}
        empty={
          filtered ? (
            <EmptyState
              icon="activity"
              title="No entries match these filters"
              description="Widen the date range or clear a filter."
              action={<Button onClick={() => setFilters(NO_FILTERS)}>Clear filters</Button>}
            />
          ) : (
            <EmptyState icon="activity" title="No activity yet" description="Changes made in this project will be listed here as they happen." />
          )
        }
      />
    </Card>
  );
}

/** Members and the project's keys by name; an entry names whoever acted, including people who have since left. */
function ActorSelect({ projectId, value, onChange }: { projectId: string; value: string; onChange: (event: { target: { value: string } }) => void }) {
  const trpc = useTRPC();
  const members = useQuery(trpc.members.list.queryOptions({ projectId })).data ?? [];
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ projectId })).data ?? [];
  const options: SelectOption[] = [
    { value: '', label: 'Anyone' },
    ...members.map((member) => ({ value: member.userId, label: member.name })),
    ...keys.map((key) => ({ value: key.id, label: `API key ${key.name} (${key.prefix}…)` })),
  ];
  if (value && !options.some((option) => option.value === value)) options.push({ value, label: value });
  return <Select label="Who" value={value} onChange={onChange} options={options} />;
}

const OUTCOME_LABELS: Partial<Record<AuditOutcomeFilter, string>> = {
  ok: 'Succeeded',
  error: 'Failed (any error)',
  pending: 'In progress',
  interrupted: 'Interrupted',
};

const OUTCOME_OPTIONS: SelectOption[] = [
  { value: '', label: 'Any outcome' },
  ...(['ok', 'error'] as const).map((outcome) => ({ value: outcome, label: OUTCOME_LABELS[outcome]! })),
  ...AUDIT_OUTCOME_FILTERS.filter((outcome) => !OUTCOME_LABELS[outcome]).map((code) => ({ value: code, label: `Failed: ${code}` })),
  ...(['interrupted', 'pending'] as const).map((outcome) => ({ value: outcome, label: OUTCOME_LABELS[outcome]! })),
];

function OutcomeBadge({ outcome }: { outcome: AuditEntry['outcome'] }) {
  if (outcome === 'ok') return <Badge tone="success">Succeeded</Badge>;
  if (outcome === 'pending') return <Badge>In progress</Badge>;
  if (outcome === 'interrupted') return <Badge tone="warning">Interrupted</Badge>;
  return (
    <Badge tone="danger" mono>
      {outcome}
    </Badge>
  );
}

/** The ids the call named, without the project every entry here shares. */
function Targets({ targets }: { targets: AuditEntry['targets'] }) {
  const shown = Object.entries(targets).filter(([field]) => field !== 'projectId');
  if (shown.length === 0) return null;
  return (
    <div className={styles.targets}>
      {shown.map(([field, ids]) => (
        <span key={field}>
          <span className="muted">{field === 'resultId' ? '→' : field}</span> <code>{Array.isArray(ids) ? ids.join(', ') : ids}</code>
        </span>
      ))}
    </div>
  );
}

const COLUMNS: Column<AuditEntry>[] = [
  {
    header: 'When',
    cell: (entry) => (
      <div>
        <div className={styles.nowrap} title={formatDateTime(entry.createdAt)}>
          {formatRelative(entry.createdAt)}
        </div>
        <div className="cell-sub hide-xs">{formatDateTime(entry.createdAt)}</div>
      </div>
    ),
  },
  {
    header: 'Who',
    cell: (entry) => (
      <div>
        <div className="cell-primary">{entry.actor.name ?? entry.actor.userId}</div>
        <div className={entry.actor.apiKey ? 'cell-sub' : 'cell-sub hide-xs'}>
          {entry.actor.apiKey ? (
            <span className={styles.nowrap}>
              <Icon name="key" size={12} /> <code>{entry.actor.apiKey.prefix}…</code>
            </span>
          ) : (
            (entry.actor.email ?? null)
          )}
        </div>
      </div>
    ),
  },
  {
    header: 'Action',
    cell: (entry) => (
      <div>
        <code className={styles.action}>{entry.action}</code>
        <Targets targets={entry.targets} />
      </div>
    ),
  },
  { header: 'Outcome', cell: (entry) => <OutcomeBadge outcome={entry.outcome} /> },
  {
    header: 'Source',
    className: 'hide-sm',
    cell: (entry) => (
      <div title={`Request ${entry.requestId}`}>
        <div>{entry.transport === 'rest' ? 'API' : 'Panel'}</div>
        <div className="cell-sub">
          <code>{entry.clientIp}</code>
        </div>
      </div>
    ),
  },
];

'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { formatDate, formatMoney, ROLE_LABELS } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { projectPath } from './areas';
import { COUNTERS } from './counters';
import { hasRole, useProject } from './ProjectContext';

const CHARGE_CATEGORIES = ['servers', 'domains', 'apps', 'objectStorage', 'containerRegistry', 'databases', 'redis', 'email', 'other'] as const;
const monthFormat = new Intl.DateTimeFormat('en', { month: 'short', timeZone: 'UTC' });

export function ProjectOverview() {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  return (
    <main className="page">
      <PageHeader
        eyebrow="Overview"
        title={project.name}
        description={
          <span className="row">
            <span className="mono">{project.slug}</span>
            <Badge tone={project.role === 'owner' ? 'accent' : 'neutral'}>{ROLE_LABELS[project.role]}</Badge>
          </span>
        }
        actions={
          canManage ? (
            <>
              <ButtonLink href={projectPath(project.id, 'members')}>
                <Icon name="users" /> Invite
              </ButtonLink>
              <ButtonLink href={projectPath(project.id, 'api-keys')} variant="primary">
                <Icon name="key" /> API keys
              </ButtonLink>
            </>
          ) : null
        }
      />
      <div className="stack-lg">
        {project.blockedAt ? (
          <Alert tone="danger" title="This project is blocked">
            {project.blockedReason ?? 'Contact support to unblock it.'} Since {formatDate(project.blockedAt)}.
          </Alert>
        ) : null}
        <section aria-label="Resources" className="stat-grid">
          {COUNTERS.map((counter) => (
            <Link key={counter.key} href={projectPath(project.id, counter.segment)} className="card stat">
              <span className="stat-label">{counter.label}</span>
              <span className="stat-value">{project._count[counter.key]}</span>
            </Link>
          ))}
        </section>
        <div className="form-grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(320px, 1fr))', alignItems: 'start' }}>
          <ChargeHistory projectId={project.id} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Project ID</dt>
              <dd className="row" style={{ gap: 4 }}>
                <code>{project.id}</code>
                <CopyButton value={project.id} label="Copy project ID" />
              </dd>
              <dt>Slug</dt>
              <dd>
                <code>{project.slug}</code>
              </dd>
              <dt>Your role</dt>
              <dd>{ROLE_LABELS[project.role]}</dd>
              <dt>Billing email</dt>
              <dd>{project.billingEmail ?? <span className="muted">The biller&apos;s account email</span>}</dd>
              <dt>Created</dt>
              <dd>{formatDate(project.createdAt)}</dd>
            </dl>
          </Card>
        </div>
      </div>
    </main>
  );
}

function ChargeHistory({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const stats = useQuery(trpc.projects.stats.queryOptions({ projectId }));

  return (
    <Card title="Charges" description="The last five months and the month in progress.">
      {stats.isPending ? (
        <Skeleton height={160} />
      ) : stats.isError ? (
        <Alert tone="danger" action={<Button size="sm" onClick={() => stats.refetch()}>Try again</Button>}>
          {errorMessage(stats.error)}
        </Alert>
      ) : (
        <ChargeBars entries={stats.data.resourceHistory} />
      )}
    </Card>
  );
}

type HistoryEntry = { month: string; inProgress: boolean } & Record<(typeof CHARGE_CATEGORIES)[number], number>;

function ChargeBars({ entries }: { entries: readonly HistoryEntry[] }) {
  const totals = entries.map((entry) => ({
    month: entry.month,
    inProgress: entry.inProgress,
    total: CHARGE_CATEGORIES.reduce((sum, category) => sum + entry[category], 0),
  }));
  const highest = Math.max(...totals.map((t) => t.total), 0);
  return (
    <div className="stack">
      <div className={highest === 0 ? 'history-chart history-chart-empty' : 'history-chart'} role="list" aria-label="Charges per month">
        {totals.map((t) => (
          <div key={t.month} className="history-bar" role="listitem" aria-label={`${t.month}: ${formatMoney(t.total)}${t.inProgress ? ' so far' : ''}`}>
            <span className="history-bar-amount">{formatMoney(t.total)}</span>
            <span
              className={t.inProgress ? 'history-bar-fill in-progress' : 'history-bar-fill'}
              style={{ height: `calc((100% - 44px) * ${highest > 0 ? t.total / highest : 0})` }}
            />
            <span className="history-bar-label">{monthFormat.format(new Date(`${t.month}-01T00:00:00Z`))}</span>
          </div>
        ))}
      </div>
      {highest === 0 ? <p className="muted">No charges yet. Paid resources you create will show up here.</p> : null}
    </div>
  );
}

'use client';

import Link from 'next/link';
import { ChargeHistoryCard } from '../billing/ChargeHistoryCard';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDate, ROLE_LABELS } from '../format';
import { Badge } from '../ui/Badge';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { projectPath } from './areas';
import { COUNTERS } from './counters';
import { hasRole, useProject } from './ProjectContext';

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
        <ProjectBillingAlert project={project} />
        <section aria-label="Resources" className="stat-grid">
          {COUNTERS.map((counter) => (
            <Link key={counter.key} href={projectPath(project.id, counter.segment)} className="card stat">
              <span className="stat-label">{counter.label}</span>
              <span className="stat-value">{project._count[counter.key]}</span>
            </Link>
          ))}
        </section>
        <div className="form-grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(320px, 1fr))', alignItems: 'start' }}>
          <ChargeHistoryCard projectId={project.id} title="Charges" description="The last five months and the month in progress." />
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

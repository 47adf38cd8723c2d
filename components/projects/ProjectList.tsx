'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { initials, ROLE_LABELS } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { ButtonLink } from '../ui/Button';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { COUNTERS } from './counters';

export function ProjectList() {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.list.queryOptions({}));
  const hasProjects = projects.isSuccess && projects.data.length > 0;

  return (
    <main className="page">
      <PageHeader
        title="Projects"
        description="A project holds your resources, its members and its bill. API keys reach exactly one project."
        actions={
          hasProjects ? (
            <ButtonLink href="/projects/new" variant="primary">
              <Icon name="plus" /> New project
            </ButtonLink>
          ) : null
        }
      />
      <DataList
        label="Projects"
        query={projects}
        loading={
          <div className="project-grid">
            {[0, 1, 2].map((i) => (
              <div key={i} className="card project-card">
                <Skeleton width="60%" height={18} />
                <Skeleton height={44} />
              </div>
            ))}
          </div>
        }
        empty={
          <div className="card">
            <EmptyState
              icon="folder"
              title="Create your first project"
              description="Projects group servers, domains, databases and storage, with their own members, API keys and billing."
              action={
                <ButtonLink href="/projects/new" variant="primary">
                  <Icon name="plus" /> Create project
                </ButtonLink>
              }
            />
          </div>
        }
      >
        {(items) => (
          <div className="project-grid">
            {items.map((project) => (
              <Link key={project.id} href={`/projects/${project.id}`} className="card project-card" aria-label={`Open project ${project.name}`}>
                <div className="project-card-head">
                  <span className="project-avatar">{initials(project.name).slice(0, 1)}</span>
                  <div className="project-card-title">
                    <strong>{project.name}</strong>
                    <span className="muted mono">{project.slug}</span>
                  </div>
                  <span style={{ marginLeft: 'auto' }} className="row">
                    {project.blockedAt ? <Badge tone="danger">Blocked</Badge> : null}
                    <Badge tone={project.role === 'owner' ? 'accent' : 'neutral'}>{ROLE_LABELS[project.role]}</Badge>
                  </span>
                </div>
                <div className="project-card-counts">
                  {COUNTERS.map((counter) => (
                    <div key={counter.key} className="count-figure">
                      <span className="count-figure-value">{project._count[counter.key]}</span>
                      <span className="count-figure-label">{counter.label}</span>
                    </div>
                  ))}
                </div>
              </Link>
            ))}
          </div>
        )}
      </DataList>
    </main>
  );
}

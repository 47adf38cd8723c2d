'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { initials } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';
import { Icon } from '../ui/Icon';
import { Menu } from '../ui/Menu';
import { Skeleton } from '../ui/Skeleton';

export function ProjectSwitcher() {
  const trpc = useTRPC();
  const params = useParams<{ projectId?: string }>();
  const projects = useQuery(trpc.projects.list.queryOptions({}));
  const ref = params.projectId;
  const current = ref ? projects.data?.find((p) => p.id === ref || p.slug === ref) : undefined;

  return (
    <Menu
      buttonClassName="switcher-button"
      buttonLabel={current ? `Project: ${current.name}. Switch project` : 'Switch project'}
      button={
        <>
          {current ? <span className="project-avatar">{initials(current.name).slice(0, 1)}</span> : <Icon name="folder" />}
          <span className="switcher-name">{current ? current.name : 'All projects'}</span>
          <Icon name="chevronsUpDown" size={14} />
        </>
      }
    >
      {(close) => (
        <>
          <p className="menu-label">Projects</p>
          {projects.isPending ? (
            <div style={{ padding: '6px 10px' }}>
              <Skeleton />
            </div>
          ) : projects.isError ? (
            <p className="menu-identity muted">Projects could not be loaded.</p>
          ) : projects.data.length === 0 ? (
            <p className="menu-identity muted">No projects yet.</p>
          ) : (
            projects.data.map((project) => (
              <Link key={project.id} href={`/projects/${project.id}`} className="menu-item" aria-current={project.id === current?.id} onClick={close}>
                <span className="project-avatar">{initials(project.name).slice(0, 1)}</span>
                <span className="switcher-name">{project.name}</span>
                {project.id === current?.id ? <Icon name="check" className="menu-item-check" /> : null}
              </Link>
            ))
          )}
          <div className="menu-separator" />
          <Link href="/projects" className="menu-item" onClick={close}>
            <Icon name="folder" />
            All projects
          </Link>
          <Link href="/projects/new" className="menu-item" onClick={close}>
            <Icon name="plus" />
            New project
          </Link>
        </>
      )}
    </Menu>
  );
}

'use client';

import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import { roleAtLeast, type RequiredRole } from '@/server/platform/auth/roles';
import type { AppRouter } from '@/server/app';
import { appErrorOf } from '../trpc/errors';
import { LoadFailed } from '../ui/LoadFailed';
import { useTRPC } from '../trpc/TrpcProvider';
import { ButtonLink } from '../ui/Button';
import { EmptyState } from '../ui/EmptyState';
import { Skeleton } from '../ui/Skeleton';

export type Project = inferRouterOutputs<AppRouter>['projects']['get'];

const ProjectContext = createContext<Project | null>(null);

/** Loads the project named in the URL (id or slug) once for every page under it. */
export function ProjectGate({ projectRef, children }: { projectRef: string; children: ReactNode }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.projects.get.queryOptions({ projectId: projectRef }));

  if (query.isPending) {
    return (
      <div className="page" aria-busy="true">
        <Skeleton width={240} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={160} style={{ marginTop: 28 }} />
      </div>
    );
  }
  if (query.isError) {
    const { code } = appErrorOf(query.error);
    if (code === 'NOT_FOUND') {
      return (
        <div className="page">
          <div className="card">
            <EmptyState
              icon="folder"
              title="Project not found"
              description="It does not exist, it was deleted, or you are not a member of it."
              action={<ButtonLink href="/projects">Back to projects</ButtonLink>}
            />
          </div>
        </div>
      );
    }
    return (
      <div className="page">
        <LoadFailed title="The project could not be loaded" error={query.error} retry={query.refetch} retrying={query.isFetching} />
      </div>
    );
  }
  return <ProjectContext.Provider value={query.data}>{children}</ProjectContext.Provider>;
}

export function useProject(): Project {
  const project = useContext(ProjectContext);
  if (!project) throw new Error('useProject must be used inside <ProjectGate>');
  return project;
}

/** The server's own role order, so the panel hides exactly what the server would refuse. */
export function hasRole(project: Project, least: RequiredRole): boolean {
  return roleAtLeast(project.role, least);
}

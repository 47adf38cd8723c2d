import type { IconName } from '../ui/Icon';

export interface ProjectArea {
  /** Path segment under /projects/[projectId]; '' is the overview. */
  segment: string;
  label: string;
  icon: IconName;
}

export interface ResourceArea extends ProjectArea {
  summary: string;
  capabilities: readonly string[];
}

/** The resource areas of SPEC that the panel does not manage yet; each gets a page saying what it will hold. */
export const RESOURCE_AREAS: readonly ResourceArea[] = [
  {
    segment: 'databases',
    label: 'Databases',
    icon: 'database',
    summary: 'Shared PostgreSQL tenant databases with their own pool.',
    capabilities: ['Isolated logical database and role', 'Connection pooling', 'Password rotation'],
  },
];

export function projectPath(projectId: string, segment = ''): string {
  return segment ? `/projects/${projectId}/${segment}` : `/projects/${projectId}`;
}

'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { roleAtLeast } from '@/server/platform/auth/roles';
import type { PanelArea } from '@/server/platform/domain';
import { projectPath, RESOURCE_AREAS, type ProjectArea } from '../projects/areas';
import { useTRPC } from '../trpc/TrpcProvider';
import { Icon, isIconName } from '../ui/Icon';

/**
 * `areas` are the domains' own, from their manifests; the coming ones are the panel's. An area that
 * names a least role shows once the project (the same read as the page's) says the caller has it.
 */
export function ProjectNav({ projectRef, areas }: { projectRef: string; areas: { project: PanelArea[]; resources: PanelArea[] } }) {
  const pathname = usePathname();
  const base = projectPath(projectRef);
  const trpc = useTRPC();
  const role = useQuery(trpc.projects.get.queryOptions({ projectId: projectRef })).data?.role;
  const visible = (area: PanelArea) => !area.role || (role !== undefined && roleAtLeast(role, area.role));

  function link(area: ProjectArea | PanelArea, soon: boolean) {
    const href = projectPath(projectRef, area.segment);
    const active = area.segment === '' ? pathname === base : pathname === href || pathname.startsWith(`${href}/`);
    return (
      <Link key={area.segment} href={href} className="sidebar-link" aria-current={active ? 'page' : undefined}>
        <Icon name={isIconName(area.icon) ? area.icon : 'folder'} />
        {area.label}
        {soon ? <span className="sidebar-soon">Soon</span> : null}
      </Link>
    );
  }

  return (
    <nav className="sidebar" aria-label="Project">
      <div className="sidebar-section">
        <p className="sidebar-heading">Project</p>
        {areas.project.filter(visible).map((area) => link(area, false))}
      </div>
      <div className="sidebar-section">
        <p className="sidebar-heading">Resources</p>
        {areas.resources.filter(visible).map((area) => link(area, false))}
        {RESOURCE_AREAS.map((area) => link(area, true))}
      </div>
    </nav>
  );
}

'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { roleAtLeast } from '@/server/platform/auth/roles';
import type { PanelArea } from '@/server/platform/domain';
import { projectPath } from '../projects/areas';
import { useTRPC } from '../trpc/TrpcProvider';
import { Icon, isIconName } from '../ui/Icon';

/**
 * `areas` are the domains' own, from their manifests. An area that names a least role shows once
 * the project (the same read as the page's) says the caller has it.
 */
export function ProjectNav({ projectRef, areas }: { projectRef: string; areas: { project: PanelArea[]; resources: PanelArea[] } }) {
  const pathname = usePathname();
  const base = projectPath(projectRef);
  const trpc = useTRPC();
  const role = useQuery(trpc.projects.get.queryOptions({ projectId: projectRef })).data?.role;
  const visible = (area: PanelArea) => !area.role || (role !== undefined && roleAtLeast(role, area.role));

  function link(area: PanelArea) {
    const href = projectPath(projectRef, area.segment);
    const active = area.segment === '' ? pathname === base : pathname === href || pathname.startsWith(`${href}/`);
    return (
      <Link key={area.segment} href={href} className="sidebar-link" aria-current={active ? 'page' : undefined}>
        <Icon name={isIconName(area.icon) ? area.icon : 'folder'} />
        {area.label}
      </Link>
    );
  }

  return (
    <nav className="sidebar" aria-label="Project">
      <div className="sidebar-section">
        <p className="sidebar-heading">Project</p>
        {areas.project.filter(visible).map(link)}
      </div>
      <div className="sidebar-section">
        <p className="sidebar-heading">Resources</p>
        {areas.resources.filter(visible).map(link)}
      </div>
    </nav>
  );
}

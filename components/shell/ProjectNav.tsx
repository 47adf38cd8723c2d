'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { PanelArea } from '@/server/platform/domain';
import { projectPath, RESOURCE_AREAS, type ProjectArea } from '../projects/areas';
import { Icon, isIconName } from '../ui/Icon';

/** `areas` are the domains' own, from their manifests; the coming ones are the panel's. */
export function ProjectNav({ projectRef, areas }: { projectRef: string; areas: { project: PanelArea[]; resources: PanelArea[] } }) {
  const pathname = usePathname();
  const base = projectPath(projectRef);

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
        {areas.project.map((area) => link(area, false))}
      </div>
      <div className="sidebar-section">
        <p className="sidebar-heading">Resources</p>
        {areas.resources.map((area) => link(area, false))}
        {RESOURCE_AREAS.map((area) => link(area, true))}
      </div>
    </nav>
  );
}

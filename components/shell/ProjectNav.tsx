'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { LIVE_RESOURCE_AREAS, MANAGE_AREAS, projectPath, RESOURCE_AREAS, type ProjectArea } from '../projects/areas';
import { Icon } from '../ui/Icon';

export function ProjectNav({ projectRef }: { projectRef: string }) {
  const pathname = usePathname();
  const base = projectPath(projectRef);

  function link(area: ProjectArea, soon: boolean) {
    const href = projectPath(projectRef, area.segment);
    const active = area.segment === '' ? pathname === base : pathname === href || pathname.startsWith(`${href}/`);
    return (
      <Link key={area.segment} href={href} className="sidebar-link" aria-current={active ? 'page' : undefined}>
        <Icon name={area.icon} />
        {area.label}
        {soon ? <span className="sidebar-soon">Soon</span> : null}
      </Link>
    );
  }

  return (
    <nav className="sidebar" aria-label="Project">
      <div className="sidebar-section">
        <p className="sidebar-heading">Project</p>
        {MANAGE_AREAS.map((area) => link(area, false))}
      </div>
      <div className="sidebar-section">
        <p className="sidebar-heading">Resources</p>
        {LIVE_RESOURCE_AREAS.map((area) => link(area, false))}
        {RESOURCE_AREAS.map((area) => link(area, true))}
      </div>
    </nav>
  );
}

'use client';

import { Badge } from '../ui/Badge';
import { ButtonLink } from '../ui/Button';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { projectPath, type ResourceArea } from './areas';
import { hasRole, useProject } from './ProjectContext';

export function ComingSoon({ area }: { area: ResourceArea }) {
  const project = useProject();
  return (
    <main className="page">
      <PageHeader eyebrow={project.name} title={area.label} description={area.summary} actions={<Badge tone="accent">Coming soon</Badge>} />
      <div className="card">
        <div className="coming-soon">
          <span className="empty-icon">
            <Icon name={area.icon} size={22} />
          </span>
          <h2>This area is coming soon</h2>
          <p className="empty-description">This area of the panel is being built. When it arrives you will be able to:</p>
          <ul className="coming-soon-list">
            {area.capabilities.map((capability) => (
              <li key={capability}>
                <Icon name="check" /> {capability}
              </li>
            ))}
          </ul>
          <div className="empty-action row">
            {hasRole(project, 'admin') ? <ButtonLink href={projectPath(project.id, 'api-keys')}>Create an API key</ButtonLink> : null}
            <ButtonLink href={projectPath(project.id)} variant="ghost">
              Back to overview
            </ButtonLink>
          </div>
        </div>
      </div>
    </main>
  );
}

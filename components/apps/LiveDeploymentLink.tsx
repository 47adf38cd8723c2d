'use client';

import Link from 'next/link';
import { useProject } from '../projects/ProjectContext';
import { deploymentPath, type AppView } from './apps';

/** The deployment an app serves, linked to its page; "None yet" until one has gone live. */
export function LiveDeploymentLink({ app }: { app: Pick<AppView, 'id' | 'liveDeploymentId'> }) {
  const project = useProject();
  if (!app.liveDeploymentId) return <span className="muted">None yet</span>;
  return (
    <Link className="mono" href={deploymentPath(project.id, app.id, app.liveDeploymentId)}>
      {app.liveDeploymentId}
    </Link>
  );
}

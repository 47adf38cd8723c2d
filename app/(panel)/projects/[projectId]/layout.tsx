import type { ReactNode } from 'react';
import { ProjectGate } from '@/components/projects/ProjectContext';
import { ProjectNav } from '@/components/shell/ProjectNav';
import { PANEL_AREAS } from '@/server/app';

export default async function ProjectLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId: projectRef } = await params;
  return (
    <div className="project-layout">
      <ProjectNav projectRef={projectRef} areas={PANEL_AREAS} />
      <div className="project-main">
        <ProjectGate projectRef={projectRef}>{children}</ProjectGate>
      </div>
    </div>
  );
}

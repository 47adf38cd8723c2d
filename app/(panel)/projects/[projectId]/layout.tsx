import type { ReactNode } from 'react';
import { ProjectGate } from '@/components/projects/ProjectContext';
import { ProjectNav } from '@/components/shell/ProjectNav';

export default async function ProjectLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId: projectRef } = await params;
  return (
    <div className="project-layout">
      <ProjectNav projectRef={projectRef} />
      <div className="project-main">
        <ProjectGate projectRef={projectRef}>{children}</ProjectGate>
      </div>
    </div>
  );
}

import { ProjectOverview } from '@/components/projects/ProjectOverview';

export default function ProjectOverviewPage() {
  return <ProjectOverview />;
}

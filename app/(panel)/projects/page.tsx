import type { Metadata } from 'next';
import { ProjectList } from '@/components/projects/ProjectList';

export const metadata: Metadata = { title: 'Projects' };

export default function ProjectsPage() {
  return <ProjectList />;
}

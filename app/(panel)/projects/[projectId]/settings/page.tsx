import type { Metadata } from 'next';
import { ProjectSettings } from '@/components/projects/ProjectSettings';

export const metadata: Metadata = { title: 'Project settings' };

export default function ProjectSettingsPage() {
  return <ProjectSettings />;
}

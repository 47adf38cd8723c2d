import type { Metadata } from 'next';
import { NewProjectForm } from '@/components/projects/NewProjectForm';
import { PageHeader } from '@/components/ui/PageHeader';

export const metadata: Metadata = { title: 'New project' };

export default function NewProjectPage() {
  return (
    <main className="page page-narrow">
      <PageHeader
        eyebrow="Projects"
        title="Create a project"
        description="Give it a name your team recognises. Resources, members, API keys and billing all belong to a project."
      />
      <NewProjectForm />
    </main>
  );
}

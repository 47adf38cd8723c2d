import { ButtonLink } from '@/components/ui/Button';
import { EmptyState } from '@/components/ui/EmptyState';

export default function NotFound() {
  return (
    <main className="center-screen">
      <div className="card" style={{ maxWidth: 480, width: '100%' }}>
        <EmptyState
          icon="folder"
          title="Page not found"
          description="The address may be mistyped, or the page has moved."
          action={
            <ButtonLink href="/projects" variant="primary">
              Go to your projects
            </ButtonLink>
          }
        />
      </div>
    </main>
  );
}

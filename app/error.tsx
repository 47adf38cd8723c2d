'use client';

import { Button, ButtonLink } from '@/components/ui/Button';
import { EmptyState } from '@/components/ui/EmptyState';

export default function ErrorScreen({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="center-screen">
      <div className="card" style={{ maxWidth: 480, width: '100%' }}>
        <EmptyState
          icon="alert"
          title="Something went wrong"
          description={`The page could not be shown.${error.digest ? ` Reference: ${error.digest}.` : ''} Try again, or come back in a moment.`}
          action={
            <div className="row">
              <Button variant="primary" onClick={reset}>
                Try again
              </Button>
              <ButtonLink href="/projects">Go to your projects</ButtonLink>
            </div>
          }
        />
      </div>
    </main>
  );
}

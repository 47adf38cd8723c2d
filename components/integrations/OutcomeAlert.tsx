'use client';

import { usePathname, useRouter } from 'next/navigation';
import { Alert, type AlertTone } from '../ui/Alert';
import { Button } from '../ui/Button';

export interface RoundTripOutcome {
  tone: Extract<AlertTone, 'success' | 'warning' | 'danger'>;
  title: string;
  text: string;
}

/**
 * A connect round trip (OAuth consent, app installation) ends on this page with a marker in the
 * address; its outcome is said once, and dismissing it takes the marker away.
 */
export function OutcomeAlert({ outcome }: { outcome: RoundTripOutcome }) {
  const router = useRouter();
  const pathname = usePathname();
  return (
    <Alert
      tone={outcome.tone}
      title={outcome.title}
      action={
        <Button size="sm" variant="ghost" onClick={() => router.replace(pathname)}>
          Dismiss
        </Button>
      }
    >
      {outcome.text}
    </Alert>
  );
}

import { errorMessage } from '../trpc/errors';
import { Alert } from './Alert';
import { Button } from './Button';

/** What every read shows when it failed: the server's message and a way to ask again. */
export function LoadFailed({ title, error, retry, retrying = false }: { title: string; error: unknown; retry: () => unknown; retrying?: boolean }) {
  return (
    <Alert
      tone="danger"
      title={title}
      action={
        <Button size="sm" loading={retrying} onClick={() => void retry()}>
          Try again
        </Button>
      }
    >
      {errorMessage(error)}
    </Alert>
  );
}

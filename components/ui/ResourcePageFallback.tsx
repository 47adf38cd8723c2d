import { appErrorOf } from '../trpc/errors';
import { ButtonLink } from './Button';
import { EmptyState } from './EmptyState';
import type { IconName } from './Icon';
import { LoadFailed } from './LoadFailed';
import { Skeleton } from './Skeleton';

/** The parts of a resource's read that its page reads before the resource is there; what `useQuery` returns fits as it is. */
export interface ResourceQuery {
  isPending: boolean;
  error: unknown;
  isFetching: boolean;
  refetch: () => unknown;
}

/**
 * What a resource's page shows in place of the resource: a skeleton of the page while it is read,
 * "not found" with the way back to its list when the API answers NOT_FOUND (it was deleted, or the
 * address is wrong), and the failure with a retry otherwise.
 */
export function ResourcePageFallback({
  query,
  icon,
  notFoundTitle,
  notFoundDescription = 'It does not exist in this project, or it was deleted.',
  back,
  failedTitle,
  bodyHeight = 180,
}: {
  query: ResourceQuery;
  icon: IconName;
  /** "App not found". */
  notFoundTitle: string;
  notFoundDescription?: string;
  /** Where "not found" leads: `label` is the button's text ("Back to Apps"). */
  back: { href: string; label: string };
  /** "The app could not be loaded". */
  failedTitle: string;
  /** The skeleton's main block, about as tall as the page's first card. */
  bodyHeight?: number;
}) {
  if (query.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={bodyHeight} style={{ marginTop: 28 }} />
      </main>
    );
  }
  return (
    <main className="page">
      {appErrorOf(query.error).code === 'NOT_FOUND' ? (
        <div className="card">
          <EmptyState icon={icon} title={notFoundTitle} description={notFoundDescription} action={<ButtonLink href={back.href}>{back.label}</ButtonLink>} />
        </div>
      ) : (
        <LoadFailed title={failedTitle} error={query.error} retry={query.refetch} retrying={query.isFetching} />
      )}
    </main>
  );
}

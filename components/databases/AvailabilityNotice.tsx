import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import { LoadFailed } from '../ui/LoadFailed';
import type { ClusterAvailability } from './databases';

/**
 * Why no database can be created here (the reason names the setting to fix), or that no pooler
 * runs; a failed check says so rather than leaving the page to look as if all were well.
 */
export function AvailabilityNotice({
  availability,
}: {
  availability: { data: ClusterAvailability | undefined; error: unknown; isFetching: boolean; refetch: () => unknown };
}) {
  const { data } = availability;
  if (!data) {
    if (!availability.error) return null;
    return (
      <LoadFailed
        title="Whether databases can be created could not be checked"
        error={availability.error}
        retry={availability.refetch}
        retrying={availability.isFetching}
      />
    );
  }
  if (!data.available) {
    return (
      <Alert tone="warning" title="Databases cannot be created on this installation">
        {sentence(data.reason ?? 'The database cluster is not ready')}
      </Alert>
    );
  }
  if (!data.pooler) {
    return (
      <Alert tone="info" title="Connection pooling is not offered here">
        PgBouncer does not run on this installation: applications connect directly, within the tier’s connection limit, and databases have no pooled connection
        string.
      </Alert>
    );
  }
  return null;
}

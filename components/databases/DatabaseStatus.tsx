import { Badge } from '../ui/Badge';
import { StatusBadge } from '../ui/StatusBadge';
import type { TenantView } from './databases';
import styles from './databases.module.css';

/** Ready once the database, its roles and its pool exist; a billing suspension refuses its logins. */
export function DatabaseStatus({ tenant }: { tenant: Pick<TenantView, 'status' | 'suspended'> }) {
  return (
    <span className={styles.statusCell}>
      {tenant.suspended ? (
        <Badge tone="danger" title="An invoice of the project is unpaid past its grace period: logins are refused until it is paid">
          Suspended
        </Badge>
      ) : (
        <StatusBadge status={tenant.status === 'ACTIVE' ? 'READY' : tenant.status} />
      )}
    </span>
  );
}

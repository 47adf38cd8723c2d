import { Badge } from '../ui/Badge';
import { StatusBadge } from '../ui/StatusBadge';
import type { SiteView } from './hosting';
import styles from './hosting.module.css';

/** Whether the site answers right now, and whether a billing suspension has taken it offline. */
export function SiteStatus({ site }: { site: Pick<SiteView, 'ready' | 'status'> }) {
  return (
    <span className={styles.statusCell}>
      {site.status === 'SUSPENDED' ? (
        <Badge tone="danger" title="An invoice of the project is unpaid past its grace period: the site is offline and SFTP is closed">
          Suspended
        </Badge>
      ) : (
        <StatusBadge status={site.ready ? 'READY' : 'PENDING'} />
      )}
    </span>
  );
}

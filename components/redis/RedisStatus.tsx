import { Badge } from '../ui/Badge';
import { StatusBadge } from '../ui/StatusBadge';
import type { RedisDatabase } from './catalog';
import styles from './redis.module.css';

/** The status, and whether a billing suspension has made the database refuse writes. */
export function RedisStatus({ database }: { database: Pick<RedisDatabase, 'status' | 'readOnly'> }) {
  return (
    <span className={styles.statusCell}>
      <StatusBadge status={database.status} />
      {database.readOnly ? (
        <Badge tone="danger" title="The project is suspended for an unpaid invoice: reads work, writes are refused until it is paid">
          Read-only
        </Badge>
      ) : null}
    </span>
  );
}

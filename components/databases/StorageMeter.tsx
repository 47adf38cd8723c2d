import { formatBytes } from '../format';
import { Badge } from '../ui/Badge';
import type { TenantView } from './databases';
import styles from './databases.module.css';

/**
 * The last storage reading against the tier's limit. Over the limit the database is read-only, so
 * the bar is red with a badge from then on; it turns amber from 80%.
 */
export function StorageMeter({ tenant, size = 'sm' }: { tenant: Pick<TenantView, 'dbName' | 'storage' | 'limits'>; size?: 'sm' | 'lg' }) {
  const { usedBytes, readOnly } = tenant.storage;
  const limit = tenant.limits.storageBytes;
  if (usedBytes === null) {
    return (
      <span className="muted" data-testid={`storage-${tenant.dbName}`}>
        Not measured yet
      </span>
    );
  }
  const share = limit > 0 ? usedBytes / limit : 0;
  const fill = readOnly || share >= 1 ? styles.barFillFull : share >= 0.8 ? styles.barFillWarn : styles.barFill;
  return (
    <div className={size === 'lg' ? `${styles.meter} ${styles.meterLarge}` : styles.meter} data-testid={`storage-${tenant.dbName}`}>
      <span className={styles.meterFigures}>
        <span>
          {formatBytes(usedBytes)} <span className="muted">of {formatBytes(limit)}</span>
        </span>
        {readOnly ? (
          <Badge tone="danger" title="Over the tier’s storage limit: new transactions are read-only">
            Read-only
          </Badge>
        ) : null}
      </span>
      <span
        className={styles.bar}
        role="meter"
        aria-label={`Storage of ${tenant.dbName}`}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(usedBytes, limit)}
        aria-valuetext={`${formatBytes(usedBytes)} of ${formatBytes(limit)} (${(share * 100).toFixed(1)}%)${readOnly ? ', read-only' : ''}`}
      >
        <span className={fill} style={{ width: `${Math.min(100, Math.max(share * 100, usedBytes > 0 ? 1 : 0))}%` }} />
      </span>
    </div>
  );
}

import { formatGb, type RepositoryView } from './registry';
import styles from './containerRegistry.module.css';

/**
 * Anonymous egress of the billing month against the cap. The repository is closed to PRIVATE when
 * the cap is reached, so the bar turns amber at 80% and red at 100%.
 */
export function EgressMeter({
  repository,
  size = 'sm',
}: {
  repository: Pick<RepositoryView, 'name' | 'publicEgressCapGb' | 'publicEgressUsedGb'>;
  size?: 'sm' | 'lg';
}) {
  const cap = repository.publicEgressCapGb;
  if (cap === null) return <span className="muted">No cap</span>;
  const used = repository.publicEgressUsedGb;
  const share = cap > 0 ? used / cap : 0;
  const fill = share >= 1 ? styles.barFillFull : share >= 0.8 ? styles.barFillWarn : styles.barFill;
  return (
    <div className={size === 'lg' ? `${styles.meter} ${styles.meterLarge}` : styles.meter} data-testid={`egress-${repository.name}`}>
      <span className={styles.meterFigures}>
        {formatGb(used)} <span className="muted">of {formatGb(cap)}</span>
      </span>
      <span
        className={styles.bar}
        role="meter"
        aria-label={`Public egress of ${repository.name}`}
        aria-valuemin={0}
        aria-valuemax={cap}
        aria-valuenow={Math.min(used, cap)}
        aria-valuetext={`${formatGb(used)} of ${formatGb(cap)} (${(share * 100).toFixed(1)}%)`}
      >
        <span className={fill} style={{ width: `${Math.min(100, Math.max(share * 100, used > 0 ? 1 : 0))}%` }} />
      </span>
    </div>
  );
}

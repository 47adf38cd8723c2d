import styles from './StatusBadge.module.css';

export type StatusTone = 'pending' | 'success' | 'neutral' | 'danger';

interface KnownStatus {
  label: string;
  tone: StatusTone;
}

/** Lifecycle statuses of provisioned resources; PROVISIONING is the one still changing, so it pulses. */
const STATUSES: Record<string, KnownStatus> = {
  PROVISIONING: { label: 'Provisioning', tone: 'pending' },
  RUNNING: { label: 'Running', tone: 'success' },
  OFF: { label: 'Off', tone: 'neutral' },
  READY: { label: 'Ready', tone: 'success' },
  FAILED: { label: 'Failed', tone: 'danger' },
  PENDING: { label: 'Pending', tone: 'pending' },
  VERIFIED: { label: 'Verified', tone: 'success' },
};

export function StatusBadge({ status }: { status: string }) {
  const known = STATUSES[status] ?? { label: status, tone: 'neutral' };
  return (
    <span className={`${styles.badge} ${styles[known.tone]}`} data-status={status}>
      <span className={styles.dot} aria-hidden />
      {known.label}
    </span>
  );
}

import type { NotificationType } from '@/server/domains/notifications/schema';
import type { BadgeTone } from '../ui/Badge';
import styles from './notifications.module.css';

export const TYPE_LABELS: Record<NotificationType, string> = { INFO: 'Info', SUCCESS: 'Success', WARNING: 'Warning', ERROR: 'Error' };
export const TYPE_TONES: Record<NotificationType, BadgeTone> = { INFO: 'accent', SUCCESS: 'success', WARNING: 'warning', ERROR: 'danger' };

/** The coloured dot beside a notification: its type at a glance, and unread ones stand out. */
export function TypeDot({ type, read }: { type: NotificationType; read: boolean }) {
  return <span className={`${styles.dot} ${styles[`dot${type}`]} ${read ? styles.dotRead : ''}`} title={TYPE_LABELS[type]} aria-hidden />;
}

/** A bell drawn like the panel's icons (components/ui/Icon.tsx). */
export function BellIcon({ size = 18 }: { size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden
    >
      <path d="M18 8a6 6 0 1 0-12 0c0 7-3 9-3 9h18s-3-2-3-9M13.73 21a2 2 0 0 1-3.46 0" />
    </svg>
  );
}

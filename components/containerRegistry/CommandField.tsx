import type { ReactNode } from 'react';
import { CopyButton } from '../ui/CopyButton';
import styles from './containerRegistry.module.css';

/** A value or a command to paste in a terminal, with its copy button. */
export function CommandField({ label, value, testId, hint }: { label: string; value: string; testId: string; hint?: ReactNode }) {
  return (
    <div className={styles.field}>
      <span className={styles.label}>{label}</span>
      <div className={styles.command}>
        <code data-testid={testId}>{value}</code>
        <CopyButton value={value} label={`Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`} />
      </div>
      {hint ? (
        <p className={styles.note} style={{ marginTop: 6 }}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

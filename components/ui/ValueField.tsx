import type { ReactNode } from 'react';
import { Button } from './Button';
import { CopyButton } from './CopyButton';
import { Icon } from './Icon';
import styles from './ValueField.module.css';

/** A value to paste elsewhere (a host, a command, a DNS record), with its copy button. */
export function ValueField({
  label,
  value,
  shown = value,
  copy = true,
  testId,
  hint,
}: {
  label: string;
  value: string;
  /** What is displayed when it differs from what is copied, e.g. a hidden password. */
  shown?: string;
  /** False while the value is hidden: the button stays, disabled, so the fields keep their width. */
  copy?: boolean;
  testId?: string;
  hint?: ReactNode;
}) {
  const copyLabel = `Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
  return (
    <div className={styles.field}>
      <span className={styles.label}>{label}</span>
      <div className={styles.value}>
        <code data-testid={testId}>{shown}</code>
        {copy ? (
          <CopyButton value={value} label={copyLabel} />
        ) : (
          <Button size="sm" variant="ghost" disabled aria-label={`${copyLabel}: reveal it first`} title="Reveal it first">
            <Icon name="copy" size={14} />
          </Button>
        )}
      </div>
      {hint ? <p className={styles.note}>{hint}</p> : null}
    </div>
  );
}

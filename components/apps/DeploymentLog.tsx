'use client';

import { useEffect, useRef } from 'react';
import { inProgress, type DeploymentWithLog } from './apps';
import styles from './apps.module.css';

const timeFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

/**
 * A deployment's build and release log as it grows. While the build runs the view follows the
 * newest line, unless the reader has scrolled up to read an earlier one.
 */
export function DeploymentLog({ deployment, compact = false }: { deployment: DeploymentWithLog; compact?: boolean }) {
  const viewRef = useRef<HTMLDivElement>(null);
  const followRef = useRef(true);
  const lines = deployment.log.length;

  useEffect(() => {
    const view = viewRef.current;
    if (view && followRef.current) view.scrollTop = view.scrollHeight;
  }, [lines]);

  return (
    <div
      ref={viewRef}
      className={`${styles.log} ${compact ? styles.logCompact : ''}`}
      role="log"
      aria-label={`Log of deployment ${deployment.id}`}
      aria-live={inProgress(deployment.status) ? 'polite' : 'off'}
      tabIndex={0}
      onScroll={(event) => {
        const view = event.currentTarget;
        followRef.current = view.scrollHeight - view.scrollTop - view.clientHeight < 24;
      }}
    >
      {lines === 0 ? (
        <p className={styles.logEmpty}>{deployment.status === 'QUEUED' ? 'Waiting for the build to start…' : 'No log lines.'}</p>
      ) : (
        <ol className={styles.logLines}>
          {deployment.log.map((line) => (
            <li key={line.seq}>
              <time dateTime={line.at} className={styles.logTime}>
                {timeFormat.format(new Date(line.at))}
              </time>
              <span className={styles.logText}>{line.line}</span>
            </li>
          ))}
        </ol>
      )}
      {inProgress(deployment.status) ? (
        <p className={styles.logCursor} aria-hidden>
          <span className={`spinner ${styles.statusSpinner}`} /> {deployment.status === 'QUEUED' ? 'queued' : 'building'}
        </p>
      ) : null}
    </div>
  );
}

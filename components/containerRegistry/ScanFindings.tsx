import { Badge } from '../ui/Badge';
import { findingsOf, SEVERITIES, SEVERITY_LABELS, type ImageView } from './registry';
import styles from './containerRegistry.module.css';

/** Counts per severity, worst first and coloured by it; what was never scanned says so. */
export function ScanFindings({ image, scanning }: { image: Pick<ImageView, 'scanStatus' | 'scanFindings'>; scanning: boolean }) {
  if (image.scanStatus !== 'COMPLETE' || !image.scanFindings) {
    return scanning ? (
      <span className="muted" title="Scan on push is on: the findings appear when the scan finishes">
        Scanning…
      </span>
    ) : (
      <span className="muted" title="Scan on push was off when the image was pushed">
        Not scanned
      </span>
    );
  }
  const findings = findingsOf(image.scanFindings);
  if (findings.length === 0) return <Badge tone="success">No findings</Badge>;
  return (
    <span className={styles.findings} data-testid="scan-findings">
      {findings.map(({ severity, count }) => {
        const known = (SEVERITIES as readonly string[]).includes(severity) && severity !== 'INFORMATIONAL';
        const label = SEVERITY_LABELS[severity] ?? severity.toLowerCase();
        return (
          <span
            key={severity}
            className={`${styles.severity} ${known ? styles[`sev${severity}`] : styles.sevOTHER}`}
            title={`${count} ${label.toLowerCase()} ${count === 1 ? 'finding' : 'findings'}`}
            data-severity={severity}
          >
            <strong>{count}</strong> {label}
          </span>
        );
      })}
    </span>
  );
}

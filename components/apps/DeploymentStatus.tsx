import type { DeploymentStatus as Status } from '@/db/schema/apps';
import { Badge, type BadgeTone } from '../ui/Badge';
import type { AppView } from './apps';
import styles from './apps.module.css';

const DEPLOYMENT_STATUSES: Record<Status, { label: string; tone: BadgeTone; title: string }> = {
  QUEUED: { label: 'Queued', tone: 'neutral', title: 'Waiting for the app’s earlier builds to finish' },
  BUILDING: { label: 'Building', tone: 'warning', title: 'The source is being built and released' },
  LIVE: { label: 'Live', tone: 'success', title: 'Serving now' },
  FAILED: { label: 'Failed', tone: 'danger', title: 'The build or release failed; what was live stays live' },
  SUPERSEDED: { label: 'Superseded', tone: 'neutral', title: 'Was live until a newer deployment replaced it' },
};

/** A deployment's place in QUEUED → BUILDING → LIVE | FAILED; the moving ones spin. */
export function DeploymentStatus({ status }: { status: Status }) {
  const known = DEPLOYMENT_STATUSES[status];
  return (
    <span className={styles.status} data-status={status}>
      <Badge tone={known.tone} title={known.title}>
        {status === 'QUEUED' || status === 'BUILDING' ? <span className={`spinner ${styles.statusSpinner}`} aria-hidden /> : null}
        {known.label}
      </Badge>
    </span>
  );
}

/** Whether the app serves: suspended by dunning, live, or not live yet (its first build is running or failed). */
export function AppStatus({ app }: { app: Pick<AppView, 'status' | 'liveDeploymentId'> }) {
  if (app.status === 'SUSPENDED') {
    return (
      <span className={styles.status} data-status="SUSPENDED">
        <Badge tone="danger" title="An invoice of the project is unpaid past its grace period: deploys are refused until it is paid">
          Suspended
        </Badge>
      </span>
    );
  }
  return (
    <span className={styles.status} data-status={app.liveDeploymentId ? 'LIVE' : 'NOT_LIVE'}>
      {app.liveDeploymentId ? <Badge tone="success">Live</Badge> : <Badge title="No deployment has gone live yet">Not live yet</Badge>}
    </span>
  );
}

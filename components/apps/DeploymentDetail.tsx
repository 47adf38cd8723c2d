'use client';

import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { BackLink } from '../ui/BackLink';
import { Card } from '../ui/Card';
import { PageHeader } from '../ui/PageHeader';
import { ResourcePageFallback } from '../ui/ResourcePageFallback';
import { formatDuration, shortSha, TRIGGER_LABELS, type DeploymentWithLog } from './apps';
import { DeploymentLog } from './DeploymentLog';
import { DeploymentStatus } from './DeploymentStatus';
import { useDeployment } from './useDeployment';
import styles from './apps.module.css';

/** One deployment of an app: what it built, how it went, and its whole log, followed while it runs. */
export function DeploymentDetail({ appId, deploymentId }: { appId: string; deploymentId: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const app = useQuery(trpc.apps.get.queryOptions({ projectId: project.id, appId }));
  const deployment = useDeployment(project.id, appId, deploymentId);
  const appPath = projectPath(project.id, `apps/${appId}`);

  if (!deployment.isSuccess) {
    return (
      <ResourcePageFallback
        query={deployment}
        icon="activity"
        notFoundTitle="Deployment not found"
        notFoundDescription="It does not exist, or its app was deleted."
        back={{ href: appPath, label: 'Back to the app' }}
        failedTitle="The deployment could not be loaded"
        bodyHeight={320}
      />
    );
  }

  const shown = deployment.data;
  return (
    <main className="page">
      <PageHeader
        eyebrow={<BackLink href={appPath}>{app.data?.name ?? 'App'}</BackLink>}
        title={
          <span className={styles.titleRow}>
            <span>Deployment {shown.commitSha ? <span className="mono">{shortSha(shown.commitSha)}</span> : null}</span>
            <DeploymentStatus status={shown.status} />
          </span>
        }
        description={
          <>
            {TRIGGER_LABELS[shown.trigger]} of branch <span className="mono">{shown.branch}</span>, queued{' '}
            <span title={formatDateTime(shown.createdAt)}>{formatRelative(shown.createdAt)}</span>
          </>
        }
      />
      <div className="stack-lg">
        {shown.failureReason ? (
          <Alert tone="danger" title="The deployment failed">
            {shown.failureReason}
          </Alert>
        ) : null}
        {app.data && shown.id === app.data.liveDeploymentId ? (
          <Alert tone="success" title="Serving now">
            This deployment is the app’s live one.
          </Alert>
        ) : null}
        <div className={styles.deploymentGrid}>
          <DeploymentFacts deployment={shown} />
          <Card title="Log" aria-label="Log" description="The build and release log, in order. Environment values never appear in it.">
            <DeploymentLog deployment={shown} />
          </Card>
        </div>
      </div>
    </main>
  );
}

function DeploymentFacts({ deployment }: { deployment: DeploymentWithLog }) {
  const at = (iso: string | null) => (iso ? formatDateTime(iso) : <span className="muted">—</span>);
  return (
    <Card title="Details" aria-label="Details">
      <dl className="details-list">
        <dt>Commit</dt>
        <dd className="mono">{deployment.commitSha ?? <span className="muted">Not read yet</span>}</dd>
        {deployment.commitMessage ? (
          <>
            <dt>Message</dt>
            <dd className={styles.commitMessage}>{deployment.commitMessage}</dd>
          </>
        ) : null}
        <dt>Trigger</dt>
        <dd>{TRIGGER_LABELS[deployment.trigger]}</dd>
        <dt>Branch</dt>
        <dd className="mono">{deployment.branch}</dd>
        <dt>Queued</dt>
        <dd>{at(deployment.createdAt)}</dd>
        <dt>Started</dt>
        <dd>{at(deployment.startedAt)}</dd>
        <dt>Finished</dt>
        <dd>{at(deployment.finishedAt)}</dd>
        <dt>Took</dt>
        <dd>{formatDuration(deployment.startedAt, deployment.finishedAt) ?? <span className="muted">—</span>}</dd>
        <dt>Deployment id</dt>
        <dd className="mono">{deployment.id}</dd>
      </dl>
    </Card>
  );
}

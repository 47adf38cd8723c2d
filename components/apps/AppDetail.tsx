'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDate, formatDateTime, formatRelative } from '../format';
import { BranchSelect } from '../integrations/BranchSelect';
import { EnvVarKeys } from '../integrations/EnvVarKeys';
import { GIT_HOST_TITLES } from '../integrations/gitHosts';
import { APP_TYPE_LABELS, BUILD_STRATEGY_LABELS } from '../integrations/TemplatePreview';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { BackLink } from '../ui/BackLink';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList, type ListQuery } from '../ui/DataList';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { ResourcePageFallback } from '../ui/ResourcePageFallback';
import { Skeleton } from '../ui/Skeleton';
import { Table, type Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { useHydrated } from '../ui/useHydrated';
import { formatMinorUnits } from '../ui/money';
import {
  commitTitle,
  DEPLOYMENT_POLL_MS,
  deploymentPath,
  formatDuration,
  inProgress,
  regionName,
  shortSha,
  sizeName,
  TRIGGER_LABELS,
  type AppServiceView,
  type AppView,
  type DeploymentView,
} from './apps';
import { useAppCatalog } from './useAppCatalog';
import { DeploymentLog } from './DeploymentLog';
import { AppStatus, DeploymentStatus } from './DeploymentStatus';
import { LiveDeploymentLink } from './LiveDeploymentLink';
import { useDeployment } from './useDeployment';
import styles from './apps.module.css';

export function AppDetail({ appId, currency }: { appId: string; currency: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const app = useQuery(trpc.apps.get.queryOptions({ projectId: project.id, appId }));

  if (!app.isSuccess) {
    return (
      <ResourcePageFallback
        query={app}
        icon="power"
        notFoundTitle="App not found"
        back={{ href: projectPath(project.id, 'apps'), label: 'Back to Apps' }}
        failedTitle="The app could not be loaded"
      />
    );
  }
  return <AppPage app={app.data} currency={currency} />;
}

function AppPage({ app, currency }: { app: AppView; currency: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canManage = hasRole(project, 'member');
  const deployments = useQuery(
    trpc.apps.deployments.queryOptions(
      { projectId: project.id, appId: app.id },
      { refetchInterval: (query) => (query.state.data?.some((deployment) => inProgress(deployment.status)) ? DEPLOYMENT_POLL_MS : false) },
    ),
  );
  const latest = deployments.data?.[0];
  const running = deployments.data?.filter((deployment) => inProgress(deployment.status)).length ?? 0;
  const wasRunning = useRef(running);

  // A build that lands may change which deployment is live.
  useEffect(() => {
    if (wasRunning.current > running) void queryClient.invalidateQueries({ queryKey: trpc.apps.get.queryKey({ projectId: project.id, appId: app.id }) });
    wasRunning.current = running;
  }, [running, queryClient, trpc, project.id, app.id]);

  return (
    <main className="page">
      <PageHeader
        eyebrow={<BackLink href={projectPath(project.id, 'apps')}>Apps</BackLink>}
        title={
          <span className={styles.titleRow}>
            <span className="mono">{app.name}</span>
            <AppStatus app={app} />
          </span>
        }
        description={
          <>
            <span className="mono">{app.repository}</span> · branch <span className="mono">{app.branch}</span> · {GIT_HOST_TITLES[app.gitHost]} · created{' '}
            {formatDate(app.createdAt)}
          </>
        }
        actions={canManage ? <DeployButton app={app} /> : null}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        {app.status === 'SUSPENDED' ? (
          <Alert tone="danger" title="This app is suspended">
            An invoice of the project is unpaid past its grace period: deploying is refused and pushes deploy nothing. What is live keeps serving, and deploying
            works again once the invoice is paid.
          </Alert>
        ) : null}
        {deployments.isError && !deployments.data ? (
          <LoadFailed title="The deployments could not be loaded" error={deployments.error} retry={deployments.refetch} retrying={deployments.isFetching} />
        ) : latest ? (
          <LatestDeployment key={latest.id} app={app} deployment={latest} />
        ) : deployments.isPending ? (
          <Skeleton height={200} />
        ) : null}
        <div className={styles.detailGrid}>
          <DetailsCard app={app} currency={currency} />
          <SettingsCard app={app} />
        </div>
        <ServicesCard app={app} />
        <DeploymentsCard app={app} deployments={deployments} />
        {canManage ? <DeleteCard app={app} /> : null}
      </div>
    </main>
  );
}

function DeployButton({ app }: { app: AppView }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const deploy = useMutation(trpc.apps.deploy.mutationOptions());
  const suspended = app.status === 'SUSPENDED';

  async function run() {
    try {
      await deploy.mutateAsync({ projectId: project.id, appId: app.id });
    } catch (error) {
      toast.error(appErrorOf(error).message);
      return;
    }
    toast.success(`A deployment of ${app.branch} is queued`);
    await queryClient.invalidateQueries({ queryKey: trpc.apps.deployments.queryKey({ projectId: project.id, appId: app.id }) });
  }

  return (
    <Button
      variant="primary"
      loading={deploy.isPending}
      disabled={suspended}
      title={suspended ? 'Deploying is refused while the app is suspended' : `Build and release the head of ${app.branch}`}
      onClick={() => void run()}
    >
      <Icon name="bolt" /> Deploy now
    </Button>
  );
}

function DeploymentSummary({ deployment }: { deployment: DeploymentView }) {
  const duration = formatDuration(deployment.startedAt, deployment.finishedAt);
  return (
    <dl className={`details-list ${styles.deploymentFacts}`}>
      <dt>Commit</dt>
      <dd>
        {deployment.commitSha ? (
          <>
            <span className="mono" title={deployment.commitSha}>
              {shortSha(deployment.commitSha)}
            </span>{' '}
            {deployment.commitMessage ? commitTitle(deployment.commitMessage) : null}
          </>
        ) : (
          <span className="muted">Not read yet</span>
        )}
      </dd>
      <dt>Trigger</dt>
      <dd>
        {TRIGGER_LABELS[deployment.trigger]} · branch <span className="mono">{deployment.branch}</span>
      </dd>
      <dt>Queued</dt>
      <dd title={formatDateTime(deployment.createdAt)}>{formatRelative(deployment.createdAt)}</dd>
      {duration ? (
        <>
          <dt>Took</dt>
          <dd>{duration}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** The newest deployment and its log as the build writes it. */
function LatestDeployment({ app, deployment }: { app: AppView; deployment: DeploymentView }) {
  const project = useProject();
  const detail = useDeployment(project.id, app.id, deployment.id);
  const shown = detail.data ?? null;
  const status = shown?.status ?? deployment.status;

  return (
    <Card
      aria-label="Latest deployment"
      title={
        <span className={styles.titleRow}>
          Latest deployment
          <DeploymentStatus status={status} />
        </span>
      }
      actions={
        <ButtonLink size="sm" variant="ghost" href={deploymentPath(project.id, app.id, deployment.id)}>
          Open deployment
        </ButtonLink>
      }
    >
      <div className="stack-lg">
        <DeploymentSummary deployment={shown ?? deployment} />
        {shown?.failureReason ? (
          <Alert tone="danger" title="The deployment failed">
            {shown.failureReason}
          </Alert>
        ) : null}
        {shown ? (
          <DeploymentLog deployment={shown} compact />
        ) : detail.isError ? (
          <LoadFailed title="The log could not be loaded" error={detail.error} retry={detail.refetch} retrying={detail.isFetching} />
        ) : (
          <Skeleton height={160} />
        )}
      </div>
    </Card>
  );
}

function DetailsCard({ app, currency }: { app: AppView; currency: string }) {
  const { regions } = useAppCatalog();
  return (
    <Card title="Details" aria-label="Details">
      <dl className="details-list">
        <dt>Repository</dt>
        <dd>
          <span className="mono">{app.repository}</span>
          <div className="cell-sub">{GIT_HOST_TITLES[app.gitHost]}</div>
        </dd>
        <dt>Region</dt>
        <dd>
          {regionName(app.region, regions.data)} <span className="muted mono">{app.region}</span>
        </dd>
        <dt>Price</dt>
        <dd data-testid="app-monthly">
          {formatMinorUnits(app.monthly, currency)}
          <span className="muted">/month</span>
        </dd>
        <dt>Live deployment</dt>
        <dd>
          <LiveDeploymentLink app={app} />
        </dd>
        <dt>Services from</dt>
        <dd>{app.templatePath ? <span className="mono">{app.templatePath}</span> : 'The create form'}</dd>
        <dt>App id</dt>
        <dd className="mono">{app.id}</dd>
        <dt>Created</dt>
        <dd title={formatDateTime(app.createdAt)}>{formatDate(app.createdAt)}</dd>
      </dl>
    </Card>
  );
}

/** The branch the app builds and whether pushes deploy it: what can change without buying anything. */
function SettingsCard({ app }: { app: AppView }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const canManage = hasRole(project, 'member');
  const update = useMutation(trpc.apps.update.mutationOptions());
  const hydrated = useHydrated();
  const [branch, setBranch] = useState(app.branch);
  const [branchError, setBranchError] = useState<string | undefined>();
  const [autoDeploy, setAutoDeploy] = useState<boolean | null>(null);

  async function save(changes: { branch?: string; autoDeploy?: boolean }): Promise<AppView | null> {
    try {
      const saved = await update.mutateAsync({ projectId: project.id, appId: app.id, ...changes });
      queryClient.setQueryData(trpc.apps.get.queryKey({ projectId: project.id, appId: app.id }), saved);
      await queryClient.invalidateQueries({ queryKey: trpc.apps.list.queryKey({ projectId: project.id }) });
      return saved;
    } catch (error) {
      const refusal = appErrorOf(error);
      if (changes.branch !== undefined) setBranchError(refusal.fields?.branch ?? refusal.message);
      else toast.error(refusal.message);
      return null;
    }
  }

  async function toggle(next: boolean) {
    setAutoDeploy(next);
    const saved = await save({ autoDeploy: next });
    setAutoDeploy(null);
    if (saved) toast.success(saved.autoDeploy ? `Pushes to ${saved.branch} deploy the app` : 'Pushes no longer deploy the app');
  }

  async function changeBranch() {
    setBranchError(undefined);
    const saved = await save({ branch });
    if (saved) toast.success(`The app now builds ${saved.branch}; the next deployment releases it`);
  }

  return (
    <Card title="Deploys" aria-label="Deploys" description="Which branch the app builds, and whether a push to it deploys the app on its own.">
      <div className="stack-lg">
        <div className={styles.branchForm}>
          <BranchSelect
            host={app.gitHost}
            repository={app.repository}
            value={branch}
            disabled={!canManage}
            error={branchError}
            hint="Changing the branch deploys nothing by itself: deploy now, or push to it."
            onChange={(next) => {
              setBranch(next);
              setBranchError(undefined);
            }}
          />
          {canManage && branch !== app.branch ? (
            <div className="row">
              <Button size="sm" variant="primary" loading={update.isPending && update.variables?.branch !== undefined} onClick={() => void changeBranch()}>
                Use {branch}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setBranch(app.branch)}>
                Cancel
              </Button>
            </div>
          ) : null}
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            role="switch"
            name="autoDeploy"
            checked={autoDeploy ?? app.autoDeploy}
            disabled={!canManage || !hydrated || update.isPending}
            onChange={(event) => void toggle(event.target.checked)}
          />
          Deploy on push to <span className="mono">{app.branch}</span>
        </label>
      </div>
    </Card>
  );
}

function ServicesCard({ app }: { app: AppView }) {
  const { sizes } = useAppCatalog();
  const columns: Column<AppServiceView>[] = [
    {
      header: 'Service',
      cell: (service) => (
        <div>
          <span className="cell-primary mono">{service.name}</span>
          <div className="cell-sub">
            {APP_TYPE_LABELS[service.appType]} · {service.sourceDir === '.' ? 'repository root' : <span className="mono">{service.sourceDir}</span>}
          </div>
        </div>
      ),
    },
    {
      header: 'Size',
      cell: (service) => (
        <div>
          <div>
            {sizeName(service.instanceSize, sizes.data)} × {service.instances}
          </div>
          <div className="cell-sub mono">{service.instanceSize}</div>
        </div>
      ),
    },
    {
      header: 'Build and run',
      className: 'hide-sm',
      cell: (service) => (
        <div className={styles.commands}>
          <span>
            {BUILD_STRATEGY_LABELS[service.buildStrategy]}
            {service.buildCommand ? <code>{service.buildCommand}</code> : null}
          </span>
          {service.appType === 'STATIC' ? (
            <span className="cell-sub">
              serves <span className="mono">{service.outputDir}</span>
            </span>
          ) : service.runCommand ? (
            <code>{service.runCommand}</code>
          ) : (
            <span className="cell-sub">default run command</span>
          )}
        </div>
      ),
    },
    {
      header: 'Ports',
      className: 'hide-xs',
      cell: (service) =>
        service.appType === 'WORKER' ? (
          <span className="muted">{service.internalPort}, not public</span>
        ) : service.appType === 'STATIC' ? (
          service.publicPort
        ) : (
          `${service.publicPort} → ${service.internalPort}`
        ),
    },
    {
      header: 'Environment',
      className: 'hide-sm',
      cell: (service) =>
        service.envVars.length === 0 ? (
          <span className="muted">None</span>
        ) : (
          <EnvVarKeys variables={service.envVars} titleOf={(variable) => (variable.secret ? 'Secret: its value is never shown' : (variable.value ?? ''))} />
        ),
    },
  ];
  return (
    <Card flush title="Services" description="What the app runs; every instance is billed at its size’s price." aria-label="Services">
      <Table label="Services" columns={columns} rows={app.services} rowKey={(service) => service.name} loadingRows={1} />
    </Card>
  );
}

function DeploymentsCard({ app, deployments }: { app: AppView; deployments: ListQuery<DeploymentView> }) {
  const project = useProject();
  const router = useRouter();
  const pathOf = (deployment: DeploymentView) => deploymentPath(project.id, app.id, deployment.id);

  const columns: Column<DeploymentView>[] = [
    {
      header: 'Deployment',
      cell: (deployment) => (
        <div>
          <Link href={pathOf(deployment)} className={styles.nameLink}>
            {deployment.commitMessage ? commitTitle(deployment.commitMessage) : TRIGGER_LABELS[deployment.trigger]}
          </Link>
          <div className="cell-sub">
            {deployment.commitSha ? <span className="mono">{shortSha(deployment.commitSha)}</span> : null}
            {deployment.commitSha ? ' · ' : null}
            {TRIGGER_LABELS[deployment.trigger]}
            {deployment.id === app.liveDeploymentId ? ' · serving now' : ''}
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (deployment) => <DeploymentStatus status={deployment.status} /> },
    { header: 'Branch', className: 'hide-sm', cell: (deployment) => <span className="mono">{deployment.branch}</span> },
    {
      header: 'Queued',
      className: 'hide-xs',
      cell: (deployment) => <span title={formatDateTime(deployment.createdAt)}>{formatRelative(deployment.createdAt)}</span>,
    },
    {
      header: 'Took',
      className: 'hide-sm',
      cell: (deployment) => formatDuration(deployment.startedAt, deployment.finishedAt) ?? <span className="muted">—</span>,
    },
  ];

  return (
    <Card flush title="Deployments" description="Newest first. Builds of the app run one at a time, in the order they were queued." aria-label="Deployments">
      <DataList
        label="Deployments"
        query={deployments}
        columns={columns}
        rowKey={(deployment) => deployment.id}
        onRowClick={(deployment) => router.push(pathOf(deployment))}
        empty={<EmptyState icon="activity" title="No deployments yet" />}
      />
    </Card>
  );
}

function DeleteCard({ app }: { app: AppView }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.apps.delete.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete app"
      description="Stops billing for the app and takes it down. Builds still queued or running are stopped; its push webhook goes when no other app of the project builds the repository."
      dialogTitle={`Delete ${app.name}?`}
      dialogDescription="The app stops serving at once and its deployments are no longer shown. The repository is not touched. This month is not refunded."
      name={app.name}
      confirmLabel="Delete this app"
      errorTitle="The app was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, appId: app.id })}
      onDeleted={async () => {
        toast.success(`App ${app.name} was deleted`);
        router.replace(projectPath(project.id, 'apps'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.apps.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}

'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { DATABASE_TIERS, type DatabaseTier } from '@/db/schema/databases';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatBytes, formatDate, formatDateTime, formatRelative } from '../format';
import { ValueField } from '../ui/ValueField';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { TierChangePanel } from '../ui/TierChangePanel';
import { useToast } from '../ui/Toast';
import { CredentialsDialog } from './CredentialsDialog';
import { DatabaseStatus } from './DatabaseStatus';
import { POOL_MODES_EXPLAINED, psqlCommand, TIER_LABELS, type TenantView } from './databases';
import { StorageMeter } from './StorageMeter';
import { TierSpecs } from './TierSpecs';
import styles from './databases.module.css';

export function DatabaseDetail({ tenantId, retentionDays }: { tenantId: string; retentionDays: number }) {
  const project = useProject();
  const trpc = useTRPC();
  const tenant = useQuery(trpc.databases.get.queryOptions({ projectId: project.id, tenantId }));

  if (tenant.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (tenant.isError) {
    const { code } = appErrorOf(tenant.error);
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="database"
              title="Database not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={projectPath(project.id, 'databases')}>Back to Databases</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The database could not be loaded" error={tenant.error} retry={tenant.refetch} retrying={tenant.isFetching} />
        )}
      </main>
    );
  }
  return <DatabasePage tenant={tenant.data} retentionDays={retentionDays} />;
}

function DatabasePage({ tenant, retentionDays }: { tenant: TenantView; retentionDays: number }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const [rotating, setRotating] = useState(false);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'databases')} className="muted">
            ← Databases
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className="mono">{tenant.dbName}</span>
            <DatabaseStatus tenant={tenant} />
          </span>
        }
        description={`PostgreSQL · ${TIER_LABELS[tenant.tier]} tier · ${POOL_MODES_EXPLAINED[tenant.poolMode].label.toLowerCase()} pooling · created ${formatDate(tenant.createdAt)}`}
        actions={
          canManage ? (
            <Button onClick={() => setRotating(true)}>
              <Icon name="key" /> Rotate password
            </Button>
          ) : null
        }
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        {tenant.suspended ? (
          <Alert tone="danger" title="This database is suspended">
            An invoice of the project is unpaid past its grace period: logins are refused, directly and through the pool. Nothing is deleted, and logins work
            again when the invoice is paid.
          </Alert>
        ) : null}
        {tenant.storage.readOnly ? (
          <Alert tone="danger" title="Read-only: the database is over its storage limit">
            It holds more than the {formatBytes(tenant.limits.storageBytes)} of the {TIER_LABELS[tenant.tier]} tier, so new transactions are read-only. Delete
            data (a session can still run <code>SET default_transaction_read_only = off</code> to do so) or move to a larger tier; it is writable again once it
            fits.
          </Alert>
        ) : null}
        <ConnectionCard tenant={tenant} />
        <div className={styles.detailGrid}>
          <StorageCard tenant={tenant} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Status</dt>
              <dd>
                <DatabaseStatus tenant={tenant} />
              </dd>
              <dt>Tier</dt>
              <dd>{TIER_LABELS[tenant.tier]}</dd>
              <dt>Pool mode</dt>
              <dd>
                {POOL_MODES_EXPLAINED[tenant.poolMode].label}
                <div className="cell-sub">{POOL_MODES_EXPLAINED[tenant.poolMode].explained}</div>
              </dd>
              <dt>Database id</dt>
              <dd className="mono">{tenant.tenantId}</dd>
              <dt>Created</dt>
              <dd title={formatDateTime(tenant.createdAt)}>{formatDate(tenant.createdAt)}</dd>
            </dl>
          </Card>
        </div>
        {canManage ? <TierCard tenant={tenant} /> : null}
        {canManage ? <DeleteCard tenant={tenant} retentionDays={retentionDays} /> : null}
      </div>
      {canManage ? <RotatePassword tenant={tenant} open={rotating} onClose={() => setRotating(false)} /> : null}
    </main>
  );
}

function ConnectionCard({ tenant }: { tenant: TenantView }) {
  return (
    <Card
      title="Connection"
      aria-label="Connection"
      description="TLS is required on every connection. The password was shown once, when the database was created or its password last rotated: these strings leave it out."
    >
      <div className={styles.connectGrid}>
        <ValueField label="Host" value={tenant.host} testId="db-host" />
        <ValueField label="Port" value={String(tenant.port)} testId="db-port" />
        <ValueField label="Database" value={tenant.dbName} testId="db-name" />
        <ValueField label="User" value={tenant.dbUser} testId="db-user" />
        <div className={styles.wide}>
          <ValueField label="Connection string" value={tenant.connectionUri} testId="db-uri" />
        </div>
        <div className={styles.wide}>
          <ValueField label="psql command" value={psqlCommand(tenant.connectionUri)} testId="db-psql" hint="psql asks for the password." />
        </div>
        {tenant.poolConnectionUri && tenant.poolHost && tenant.poolPort ? (
          <>
            <h3 className={`${styles.wide} ${styles.sectionTitle}`}>Through the pool</h3>
            <ValueField label="Pool host" value={tenant.poolHost} testId="pool-host" />
            <ValueField label="Pool port" value={String(tenant.poolPort)} testId="pool-port" />
            <ValueField label="Pool name" value={tenant.poolName ?? tenant.dbName} testId="pool-name" />
            <ValueField label="User" value={tenant.dbUser} testId="pool-user" />
            <div className={styles.wide}>
              <ValueField
                label="Pooled connection string"
                value={tenant.poolConnectionUri}
                testId="pool-uri"
                hint={`PgBouncer in ${POOL_MODES_EXPLAINED[tenant.poolMode].label.toLowerCase()} mode, with up to ${tenant.limits.poolSize} server connections.`}
              />
            </div>
          </>
        ) : (
          <p className={`${styles.wide} muted`}>No pooler runs on this installation: connect directly, within the tier’s connection limit.</p>
        )}
      </div>
    </Card>
  );
}

function StorageCard({ tenant }: { tenant: TenantView }) {
  const { measuredAt } = tenant.storage;
  return (
    <Card
      title="Storage and limits"
      aria-label="Storage"
      description={
        measuredAt ? (
          <>
            Measured <span title={formatDateTime(measuredAt)}>{formatRelative(measuredAt)}</span>; the database is measured every 10 minutes.
          </>
        ) : (
          'The database is measured every 10 minutes.'
        )
      }
    >
      <div className="stack-lg">
        <StorageMeter tenant={tenant} size="lg" />
        <div className={styles.limits}>
          <Limit label="Storage" value={formatBytes(tenant.limits.storageBytes)} />
          <Limit label="Direct connections" value={String(tenant.limits.maxConnections)} />
          <Limit label="Pool size" value={String(tenant.limits.poolSize)} />
        </div>
      </div>
    </Card>
  );
}

function Limit({ label, value }: { label: string; value: string }) {
  return (
    <div className={styles.limit}>
      <span className={styles.limitLabel}>{label}</span>
      <span className={styles.limitValue}>{value}</span>
    </div>
  );
}

function RotatePassword({ tenant, open, onClose }: { tenant: TenantView; open: boolean; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const rotate = useMutation(trpc.databases.rotatePassword.mutationOptions());
  const [rotated, setRotated] = useState<TenantView | null>(null);

  function close() {
    rotate.reset();
    onClose();
  }

  async function confirm() {
    let answer;
    try {
      answer = await rotate.mutateAsync({ projectId: project.id, tenantId: tenant.tenantId });
    } catch {
      return;
    }
    close();
    setRotated(answer);
  }

  return (
    <>
      <ConfirmDialog
        open={open}
        onClose={close}
        title={`Rotate the password of ${tenant.dbName}?`}
        description="A new password is made and shown once. The old one stops working at once, and every open session of the database, direct and through the pool, is dropped: applications must reconnect with the new password."
        confirmLabel="Rotate password"
        onConfirm={() => void confirm()}
        pending={rotate.isPending}
        errorTitle="The password was not rotated"
        error={rotate.isError ? errorMessage(rotate.error) : null}
      />
      <CredentialsDialog tenant={rotated} title={`New password for ${tenant.dbName}`} onClose={() => setRotated(null)} />
    </>
  );
}

function TierCard({ tenant }: { tenant: TenantView }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<DatabaseTier | null>(null);
  const prices = useQuery(trpc.databases.prices.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  const preview = useQuery(trpc.databases.tierPreview.queryOptions(target ? { projectId: project.id, tenantId: tenant.tenantId, tier: target } : skipToken));
  const change = useMutation(trpc.databases.changeTier.mutationOptions());

  async function confirm() {
    if (!target) return;
    try {
      await change.mutateAsync({ projectId: project.id, tenantId: tenant.tenantId, tier: target });
    } catch {
      return;
    }
    toast.success(`${tenant.dbName} is now on the ${TIER_LABELS[target]} tier`);
    setTarget(null);
    await Promise.all([queryClient.invalidateQueries(trpc.databases.pathFilter()), queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() })]);
  }

  const refusal = change.isError ? appErrorOf(change.error) : null;
  return (
    <Card
      title="Tier"
      description="The new connection limit, pool size and storage limit apply at once; open sessions stay. An upgrade is charged now for the rest of the month; a downgrade credits the difference back, if the data fits the smaller tier."
    >
      <div className="stack-lg">
        <OptionCards
          label="Tier"
          name="tier"
          layout="wide"
          value={target ?? tenant.tier}
          onChange={(slug) => {
            setTarget(slug === tenant.tier ? null : slug);
            change.reset();
          }}
          options={DATABASE_TIERS.map((slug) => {
            const price = prices.data?.find((p) => p.tier === slug);
            return tierOption({
              value: slug,
              label: TIER_LABELS[slug],
              current: slug === tenant.tier,
              price,
              specs: price ? <TierSpecs price={price} /> : null,
            });
          })}
        />
        {target ? (
          <TierChangePanel
            className={styles.detailGrid}
            preview={preview.data}
            loading={preview.isPending}
            previewError={preview.isError ? errorMessage(preview.error) : null}
            currentLabel={TIER_LABELS[tenant.tier]}
            targetLabel={TIER_LABELS[target]}
            subject="database"
            notFitTitle="The data does not fit that tier"
            refusal={refusal}
            changing={change.isPending}
            onConfirm={() => void confirm()}
            onCancel={() => setTarget(null)}
          />
        ) : null}
      </div>
    </Card>
  );
}

function DeleteCard({ tenant, retentionDays }: { tenant: TenantView; retentionDays: number }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.databases.delete.mutationOptions());
  const recovery = `Logins are refused and the pool removed at once; the database is kept for ${retentionDays} days for recovery (contact support), then dropped.`;

  return (
    <DeleteResourceCard
      title="Delete database"
      description={`Stops billing for the database. ${recovery}`}
      footnote={`The name stays taken until the database is dropped.`}
      dialogTitle={`Delete ${tenant.dbName}?`}
      dialogDescription={`Every open session is dropped. ${recovery} This month is not refunded.`}
      name={tenant.dbName}
      confirmLabel="Delete this database"
      errorTitle="The database was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, tenantId: tenant.tenantId })}
      onDeleted={async () => {
        toast.success(`Database ${tenant.dbName} was deleted`);
        router.replace(projectPath(project.id, 'databases'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.databases.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}

'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { PERSISTENCE_EXPLAINED } from '@/server/domains/redis/schema';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatBinaryBytes, formatDate, formatDateTime, formatMemory } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { useToast } from '../ui/Toast';
import {
  formatCpu,
  PERSISTENCE_LABELS,
  planName,
  PROVISIONING_POLL_MS,
  regionName,
  USAGE_REFRESH_MS,
  useRedisCatalog,
  type RedisDatabaseWithCredentials,
  type RedisProviderInfo,
} from './catalog';
import { RedisStatus } from './RedisStatus';
import { SimulatorNotice } from './SimulatorNotice';
import { MemoryChart, NetworkChart } from './UsageChart';
import styles from './redis.module.css';

const numberFormat = new Intl.NumberFormat('en');
const timeFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function RedisDetail({ redisId, provider }: { redisId: string; provider: RedisProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const database = useQuery(
    trpc.redis.get.queryOptions(
      { projectId: project.id, redisId },
      { refetchInterval: (query) => (query.state.data?.status === 'PROVISIONING' ? PROVISIONING_POLL_MS : false) },
    ),
  );
  const listPath = projectPath(project.id, 'redis');

  if (database.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (database.isError) {
    const { code } = appErrorOf(database.error);
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="bolt"
              title="Redis database not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={listPath}>Back to Redis</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The Redis database could not be loaded" error={database.error} retry={database.refetch} retrying={database.isFetching} />
        )}
      </main>
    );
  }
  return <RedisView database={database.data} provider={provider} />;
}

function RedisView({ database, provider }: { database: RedisDatabaseWithCredentials; provider: RedisProviderInfo }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const { plans, regions } = useRedisCatalog();
  const plan = plans.data?.find((p) => p.slug === database.planSlug);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'redis')} className="muted">
            ← Redis
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            {database.name}
            <RedisStatus database={database} />
          </span>
        }
        description={`${planName(database.planSlug, plans.data)} in ${regionName(database.region, regions.data)}, created ${formatDate(database.createdAt)}.`}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <SimulatorNotice provider={provider} />
        {database.status === 'FAILED' ? (
          <Alert tone="danger" title="This database could not be started">
            Its billing stopped and the rest of the month was credited back to the project. Delete it and create another.
          </Alert>
        ) : null}
        {database.readOnly ? (
          <Alert tone="warning" title="Read-only while the project is suspended">
            Reads keep working; writes are refused until the unpaid invoice is paid.
          </Alert>
        ) : null}
        <div className={styles.detailGrid}>
          <ConnectionCard database={database} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Status</dt>
              <dd>
                <RedisStatus database={database} />
              </dd>
              <dt>Plan</dt>
              <dd>
                {planName(database.planSlug, plans.data)} <span className="muted mono">{database.planSlug}</span>
                {plan ? <div className="muted">{formatCpu(plan.cpuMilli)} reserved</div> : null}
              </dd>
              <dt>Region</dt>
              <dd>
                {regionName(database.region, regions.data)} <span className="muted mono">{database.region}</span>
              </dd>
              <dt>Memory</dt>
              <dd>
                {formatMemory(database.memoryMb)}
                <div className="muted">{formatMemory(database.usableMemoryMb)} usable by the data</div>
              </dd>
              <dt>Replication</dt>
              <dd>{database.replication ? 'A replica kept in sync on its own process' : 'None'}</dd>
              <dt>Persistence</dt>
              <dd>
                {PERSISTENCE_LABELS[database.dataPersistence]}
                <div className="muted">{PERSISTENCE_EXPLAINED[database.dataPersistence]}</div>
              </dd>
              <dt>Created</dt>
              <dd title={formatDateTime(database.createdAt)}>{formatDate(database.createdAt)}</dd>
            </dl>
          </Card>
        </div>
        <UsageCard database={database} />
        {canManage ? <DeleteCard database={database} /> : null}
      </div>
    </main>
  );
}

function ConnectionCard({ database }: { database: RedisDatabaseWithCredentials }) {
  const [revealed, setRevealed] = useState(false);
  const hidden = '•'.repeat(16);
  return (
    <Card
      title="Connection"
      description={database.status === 'PROVISIONING' ? 'The database accepts connections once it is ready; this page refreshes itself until then.' : undefined}
      actions={
        <Button size="sm" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
          <Icon name={revealed ? 'lock' : 'key'} size={14} /> {revealed ? 'Hide' : 'Reveal'}
        </Button>
      }
    >
      <div className={styles.connect}>
        <div className={styles.connectRow}>
          <Field label="Host" value={database.host} testId="redis-host" />
          <Field label="Port" value={String(database.port)} testId="redis-port" />
        </div>
        <div className={styles.connectRow}>
          <div>
            <span className={styles.connectLabel}>TLS</span>
            <div className={styles.plainValue}>{database.tls ? 'Required: connect with rediss://' : 'Off: connect with redis://'}</div>
          </div>
          <Field label="Username" value={database.username} testId="redis-username" />
        </div>
        <Field label="Password" value={database.password} shown={revealed ? database.password : hidden} copy={revealed} testId="redis-password" />
        <Field
          label="Connection URL"
          value={database.url}
          shown={revealed ? database.url : `${database.tls ? 'rediss' : 'redis'}://default:${hidden}@${database.host}:${database.port}`}
          copy={revealed}
          testId="redis-url"
        />
        {revealed ? null : (
          <p className="muted" style={{ fontSize: 13 }}>
            The password and the URL holding it are shown and copied after Reveal.
          </p>
        )}
      </div>
    </Card>
  );
}

function Field({ label, value, shown = value, copy = true, testId }: { label: string; value: string; shown?: string; copy?: boolean; testId: string }) {
  return (
    <div className={styles.field}>
      <span className={styles.connectLabel}>{label}</span>
      <div className={styles.command}>
        <code data-testid={testId}>{shown}</code>
        {copy ? <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} /> : null}
      </div>
    </div>
  );
}

function UsageCard({ database }: { database: RedisDatabaseWithCredentials }) {
  const project = useProject();
  const trpc = useTRPC();
  const ready = database.status === 'READY';
  const usage = useQuery(
    trpc.redis.usage.queryOptions(ready ? { projectId: project.id, redisId: database.id } : skipToken, { refetchInterval: USAGE_REFRESH_MS }),
  );

  if (!ready) {
    return (
      <Card title="Usage" aria-label="Usage">
        <p className="muted">
          {database.status === 'PROVISIONING' ? 'Usage is available once the database is ready.' : 'There is no usage to show: the database never started.'}
        </p>
      </Card>
    );
  }
  if (usage.isPending) {
    return (
      <Card title="Usage" aria-label="Usage">
        <Skeleton height={120} />
      </Card>
    );
  }
  if (usage.isError && !usage.data) {
    return <LoadFailed title="Usage could not be read" error={usage.error} retry={usage.refetch} retrying={usage.isFetching} />;
  }
  const { data } = usage;
  const share = data.memoryLimitBytes > 0 ? Math.min(1, data.memoryUsedBytes / data.memoryLimitBytes) : 0;
  return (
    <Card
      title="Usage"
      aria-label="Usage"
      description={
        data.sampledAt ? `Read at ${timeFormat.format(new Date(data.sampledAt))}; refreshed every minute. Traffic counts from the last start.` : undefined
      }
    >
      <div className="stack-lg">
        <div className={styles.figures}>
          <div className={styles.memoryFigure}>
            <span className={styles.connectLabel}>Memory used</span>
            <div className={styles.figureValue} data-testid="usage-memory">
              {formatBinaryBytes(data.memoryUsedBytes)} <span className="muted">of {formatBinaryBytes(data.memoryLimitBytes)}</span>
            </div>
            <div
              className={styles.bar}
              role="meter"
              aria-label="Memory used"
              aria-valuemin={0}
              aria-valuemax={data.memoryLimitBytes}
              aria-valuenow={data.memoryUsedBytes}
              aria-valuetext={`${(share * 100).toFixed(1)}% of the usable memory`}
            >
              <span className={share > 0.9 ? styles.barFillFull : styles.barFill} style={{ width: `${Math.max(share * 100, 0.5)}%` }} />
            </div>
            <span className="muted" style={{ fontSize: 13 }}>
              {(share * 100).toFixed(1)}% · a full database refuses writes rather than dropping keys
            </span>
          </div>
          <Figure label="Network in" value={formatBinaryBytes(data.networkInBytes)} testId="usage-network-in" />
          <Figure label="Network out" value={formatBinaryBytes(data.networkOutBytes)} testId="usage-network-out" />
          <Figure label="Operations" value={numberFormat.format(data.operations)} testId="usage-operations" />
        </div>
        {data.sampledAt ? (
          <div className={styles.charts}>
            <MemoryChart history={data.history} limitBytes={data.memoryLimitBytes} end={Date.parse(data.sampledAt)} />
            <NetworkChart history={data.history} end={Date.parse(data.sampledAt)} />
          </div>
        ) : null}
      </div>
    </Card>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div>
      <span className={styles.connectLabel}>{label}</span>
      <div className={styles.figureValue} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

function DeleteCard({ database }: { database: RedisDatabaseWithCredentials }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.redis.delete.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete database"
      description="Stops the database and removes its data, and stops billing for it. The data cannot be recovered."
      dialogTitle={`Delete ${database.name}?`}
      dialogDescription="The database stops, its data is removed and billing stops. This month is not refunded. This cannot be undone."
      name={database.name}
      confirmLabel="Delete this database"
      errorTitle="The database was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, redisId: database.id })}
      onDeleted={async () => {
        toast.success(`Redis database ${database.name} was deleted`);
        router.replace(projectPath(project.id, 'redis'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.redis.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}

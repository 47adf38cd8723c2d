'use client';

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ALL_EVENTS, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointWithSecret } from '@/server/domains/webhooks/schema';
import { formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { SecretDialog } from '../ui/SecretDialog';
import { Skeleton } from '../ui/Skeleton';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { DeliveryStatusBadge, EndpointStatusBadge, pauseReasonText } from './EndpointStatusBadge';
import styles from './webhooks.module.css';

/** While something is queued the page reads the deliveries again, so a sent test shows up without a reload. */
const PENDING_POLL_MS = 2000;

export function WebhookEndpointDetail({ endpointId }: { endpointId: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const endpoint = useQuery(trpc.webhooks.get.queryOptions({ projectId: project.id, endpointId }));
  const listPath = projectPath(project.id, 'webhooks');

  if (endpoint.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={320} height={26} />
        <Skeleton width={420} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (endpoint.isError) {
    return (
      <main className="page">
        {appErrorOf(endpoint.error).code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="inbox"
              title="Endpoint not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={listPath}>Back to webhooks</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The endpoint could not be loaded" error={endpoint.error} retry={endpoint.refetch} retrying={endpoint.isFetching} />
        )}
      </main>
    );
  }
  return <EndpointView endpoint={endpoint.data} />;
}

function EndpointView({ endpoint }: { endpoint: WebhookEndpoint }) {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  const reason = pauseReasonText(endpoint.pausedReason);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'webhooks')} className="muted">
            ← Webhooks
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className={styles.titleUrl}>{endpoint.url}</span>
            <EndpointStatusBadge endpoint={endpoint} />
          </span>
        }
        description={endpoint.description || undefined}
        actions={canManage ? <EndpointActions endpoint={endpoint} /> : null}
      />
      <div className="stack-lg">
        {endpoint.status !== 'active' ? (
          <Alert tone="warning" title={endpoint.status === 'disabled' ? 'Deliveries are disabled' : 'Deliveries are paused'}>
            {reason}
            {reason ? '. ' : ''}New events are held, not sent. Resume the endpoint to send them, in the order they happened.
          </Alert>
        ) : null}
        <div className={styles.detailGrid}>
          <Card title="Subscribed events">
            {endpoint.events.includes(ALL_EVENTS) ? (
              <p>Every event of the project, including types added later.</p>
            ) : (
              <div className={styles.events}>
                {endpoint.events.map((type) => (
                  <Badge key={type} mono>
                    {type}
                  </Badge>
                ))}
              </div>
            )}
          </Card>
          <Card title="Details">
            <dl className="details-list">
              <dt>Endpoint id</dt>
              <dd className="mono">{endpoint.id}</dd>
              <dt>Failed deliveries in a row</dt>
              <dd>{endpoint.consecutiveFailures}</dd>
              <dt>Signing secret</dt>
              <dd>
                Shown once, when created or rotated.
                {endpoint.previousSecretExpiresAt ? (
                  <div className="muted">The previous secret also signs until {formatDateTime(endpoint.previousSecretExpiresAt)}.</div>
                ) : null}
              </dd>
              <dt>Created</dt>
              <dd>{formatDateTime(endpoint.createdAt)}</dd>
            </dl>
          </Card>
        </div>
        <Deliveries endpoint={endpoint} canManage={canManage} />
      </div>
    </main>
  );
}

function EndpointActions({ endpoint }: { endpoint: WebhookEndpoint }) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const ref = { projectId: project.id, endpointId: endpoint.id };
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey(ref) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.infiniteQueryKey(ref) }),
    ]);
  const onError = (error: unknown) => toast.error(errorMessage(error));
  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({ onSuccess: () => void refresh().then(() => toast.success('Test event queued')), onError }),
  );
  const pause = useMutation(trpc.webhooks.pause.mutationOptions({ onSuccess: () => void refresh(), onError }));
  const resume = useMutation(trpc.webhooks.resume.mutationOptions({ onSuccess: () => void refresh(), onError }));
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions());
  const remove = useMutation(trpc.webhooks.delete.mutationOptions());
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [rotated, setRotated] = useState<WebhookEndpointWithSecret | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const active = endpoint.status === 'active';

  async function doRotate() {
    try {
      const result = await rotate.mutateAsync(ref);
      setConfirmRotate(false);
      setRotated(result);
      await refresh();
    } catch {
      return;
    }
  }

  async function doDelete() {
    try {
      await remove.mutateAsync(ref);
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId: project.id }) });
    router.push(projectPath(project.id, 'webhooks'));
  }

  return (
    <>
      <Button onClick={() => sendTest.mutate(ref)} loading={sendTest.isPending} disabled={!active} title={active ? undefined : 'Resume the endpoint first'}>
        <Icon name="sparkles" /> Send test event
      </Button>
      {active ? (
        <Button onClick={() => pause.mutate(ref)} loading={pause.isPending}>
          <Icon name="power" /> Pause
        </Button>
      ) : (
        <Button variant="primary" onClick={() => resume.mutate(ref)} loading={resume.isPending}>
          <Icon name="power" /> Resume
        </Button>
      )}
      <Button onClick={() => setConfirmRotate(true)}>
        <Icon name="key" /> Rotate secret
      </Button>
      <Button variant="danger-ghost" onClick={() => setConfirmDelete(true)}>
        <Icon name="trash" /> Delete
      </Button>
      <ConfirmDialog
        open={confirmRotate}
        onClose={() => {
          rotate.reset();
          setConfirmRotate(false);
        }}
        title="Rotate the signing secret?"
        description="A new secret signs every delivery from now on. The current one keeps signing beside it for 24 hours, so you can switch your receiver without losing deliveries."
        confirmLabel="Rotate secret"
        onConfirm={() => void doRotate()}
        pending={rotate.isPending}
        error={rotate.isError ? errorMessage(rotate.error) : null}
      />
      {rotated ? (
        <SecretDialog
          open
          title="New signing secret"
          description="Deliveries carry a signature with this secret and, for 24 hours, one with the previous secret too."
          secret={rotated.secret}
          secretTestId="webhook-secret"
          onClose={() => setRotated(null)}
        />
      ) : null}
      <ConfirmDialog
        open={confirmDelete}
        onClose={() => {
          remove.reset();
          setConfirmDelete(false);
        }}
        title="Delete this endpoint?"
        description="Nothing more is sent to it, and its delivery history is deleted with it."
        confirmLabel="Delete endpoint"
        onConfirm={() => void doDelete()}
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : null}
      />
    </>
  );
}

function Deliveries({ endpoint, canManage }: { endpoint: WebhookEndpoint; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const ref = { projectId: project.id, endpointId: endpoint.id };
  const deliveries = useInfiniteQuery(
    trpc.webhooks.deliveries.infiniteQueryOptions(ref, {
      getNextPageParam: (page) => page.nextCursor,
      refetchInterval: (query) => (query.state.data?.pages.some((page) => page.deliveries.some((d) => d.status === 'pending')) ? PENDING_POLL_MS : false),
    }),
  );
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSuccess: () => {
        toast.success('Redelivery queued');
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.infiniteQueryKey(ref) });
      },
      onError: (error) => toast.error(errorMessage(error)),
    }),
  );
  const items = deliveries.data?.pages.flatMap((page) => page.deliveries);

  const columns: Column<WebhookDelivery>[] = [
    {
      header: 'Event',
      cell: (delivery) => (
        <div>
          <div className="cell-primary mono">{delivery.eventType}</div>
          <div className="cell-sub mono" title="webhook-id">
            {delivery.id}
          </div>
        </div>
      ),
    },
    { header: 'Status', cell: (delivery) => <DeliveryStatusBadge status={delivery.status} /> },
    { header: 'Response', cell: (delivery) => <LastResponse delivery={delivery} /> },
    {
      header: 'Attempts',
      className: 'hide-sm',
      cell: (delivery) => (
        <div>
          {delivery.attemptCount}
          {delivery.nextAttemptAt && delivery.attemptCount > 0 ? <div className="cell-sub">next {formatRelative(delivery.nextAttemptAt)}</div> : null}
          <AttemptList delivery={delivery} />
        </div>
      ),
    },
    {
      header: 'Created',
      className: 'hide-xs',
      cell: (delivery) => <span title={formatDateTime(delivery.createdAt)}>{formatRelative(delivery.createdAt)}</span>,
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (delivery) =>
        delivery.status === 'succeeded' || delivery.status === 'failed' ? (
          <Button
            size="sm"
            onClick={() => redeliver.mutate({ ...ref, deliveryId: delivery.id })}
            disabled={endpoint.status !== 'active'}
            loading={redeliver.isPending && redeliver.variables?.deliveryId === delivery.id}
            aria-label={`Redeliver ${delivery.id}`}
          >
            Redeliver
          </Button>
        ) : null,
    });
  }

  return (
    <Card
      flush
      title="Deliveries"
      description="Newest first. Each delivery keeps its webhook-id across retries and redeliveries."
      footer={
        deliveries.hasNextPage ? (
          <Button size="sm" onClick={() => void deliveries.fetchNextPage()} loading={deliveries.isFetchingNextPage}>
            Load older deliveries
          </Button>
        ) : null
      }
    >
      <DataList
        label="Deliveries"
        query={{ data: items, error: deliveries.error, isFetching: deliveries.isFetching, refetch: deliveries.refetch }}
        columns={columns}
        rowKey={(delivery) => delivery.id}
        empty={
          <EmptyState
            icon="activity"
            title="No deliveries yet"
            description="Events the endpoint subscribes to show up here as they are sent. Send a test event to try it."
          />
        }
      />
    </Card>
  );
}

function LastResponse({ delivery }: { delivery: WebhookDelivery }) {
  const last = delivery.attempts.at(-1);
  if (!last) return <span className="muted">{delivery.status === 'held' ? 'Held' : 'Not sent yet'}</span>;
  return (
    <div>
      {last.responseStatus !== null ? (
        <Badge tone={last.ok ? 'success' : 'danger'} mono>
          {last.responseStatus}
        </Badge>
      ) : (
        <span className={styles.attemptError}>No answer</span>
      )}
      <div className="cell-sub">{last.durationMs} ms</div>
    </div>
  );
}

function AttemptList({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return null;
  return (
    <ul className={styles.attempts} aria-label={`Attempts of ${delivery.id}`}>
      {delivery.attempts.map((attempt) => (
        <li key={attempt.attemptedAt} title={attempt.responseBody ?? attempt.error ?? undefined}>
          {formatDateTime(attempt.attemptedAt)}: {attempt.responseStatus ?? <span className={styles.attemptError}>{attempt.error}</span>} ({attempt.durationMs}{' '}
          ms)
        </li>
      ))}
    </ul>
  );
}

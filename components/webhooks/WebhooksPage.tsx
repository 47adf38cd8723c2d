'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ALL_EVENTS, WEBHOOK_ENDPOINTS_PER_PROJECT, type WebhookEndpoint } from '@/server/domains/webhooks/schema';
import { formatDate, formatDateTime } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { CreateEndpointDialog } from './CreateEndpointDialog';
import { EndpointStatusBadge } from './EndpointStatusBadge';
import styles from './webhooks.module.css';

export function WebhooksPage() {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  const trpc = useTRPC();
  const router = useRouter();
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ projectId: project.id }));
  const [creating, setCreating] = useState(false);
  const full = (endpoints.data?.length ?? 0) >= WEBHOOK_ENDPOINTS_PER_PROJECT;
  const open = (endpoint: WebhookEndpoint) => router.push(projectPath(project.id, `webhooks/${endpoint.id}`));

  const columns: Column<WebhookEndpoint>[] = [
    {
      header: 'Endpoint',
      cell: (endpoint) => (
        <div>
          <Link href={projectPath(project.id, `webhooks/${endpoint.id}`)} className={`cell-primary ${styles.url}`}>
            {endpoint.url}
          </Link>
          {endpoint.description ? <div className="cell-sub">{endpoint.description}</div> : null}
        </div>
      ),
    },
    {
      header: 'Events',
      className: 'hide-xs',
      cell: (endpoint) =>
        endpoint.events.includes(ALL_EVENTS) ? (
          <Badge tone="accent">All events</Badge>
        ) : (
          <span title={endpoint.events.join(', ')}>
            {endpoint.events.length} {endpoint.events.length === 1 ? 'event' : 'events'}
          </span>
        ),
    },
    { header: 'Status', cell: (endpoint) => <EndpointStatusBadge endpoint={endpoint} /> },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (endpoint) => <span title={formatDateTime(endpoint.createdAt)}>{formatDate(endpoint.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Webhooks"
        description="Signed HTTP POSTs of this project's events to your endpoints, retried for about a day when they fail. Endpoints that keep failing pause themselves; resuming sends what was held."
        actions={
          canManage ? (
            <Button
              variant="primary"
              onClick={() => setCreating(true)}
              disabled={full}
              title={full ? `A project holds ${WEBHOOK_ENDPOINTS_PER_PROJECT} endpoints` : undefined}
            >
              <Icon name="plus" /> Add endpoint
            </Button>
          ) : null
        }
      />
      <Card
        flush
        title="Endpoints"
        description="Deliveries follow the Standard Webhooks specification: verify them with its libraries and your endpoint's signing secret."
      >
        <DataList
          label="Webhook endpoints"
          query={endpoints}
          columns={columns}
          rowKey={(endpoint) => endpoint.id}
          onRowClick={open}
          empty={
            <EmptyState
              icon="inbox"
              title="No webhook endpoints yet"
              description={
                canManage
                  ? 'Add an endpoint to receive events such as server.created or invoice.paid as they happen.'
                  : 'Owners and admins of the project can add endpoints.'
              }
              action={
                canManage ? (
                  <Button variant="primary" onClick={() => setCreating(true)}>
                    <Icon name="plus" /> Add endpoint
                  </Button>
                ) : null
              }
            />
          }
        />
      </Card>
      {canManage ? <CreateEndpointDialog projectId={project.id} open={creating} onClose={() => setCreating(false)} /> : null}
    </main>
  );
}

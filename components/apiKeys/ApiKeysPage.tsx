'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import type { AppRouter } from '@/server/app';
import { formatDate, formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { SecretDialog } from '../ui/SecretDialog';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { CreateApiKeyDialog } from './CreateApiKeyDialog';

type ApiKey = inferRouterOutputs<AppRouter>['apiKeys']['list'][number];

const SHOWN_SCOPES = 4;

export function ApiKeysPage() {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="API keys"
        description={
          <>
            Keys let scripts and CI call the REST API as <code>Authorization: Bearer &lt;key&gt;</code>. A key reaches only this project and acts with its
            creator&apos;s role.
          </>
        }
        actions={
          canManage ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              <Icon name="plus" /> Create API key
            </Button>
          ) : null
        }
      />
      {canManage ? (
        <>
          <KeyList projectId={project.id} onCreate={() => setCreating(true)} />
          <CreateApiKeyDialog
            projectId={project.id}
            open={creating}
            onClose={() => setCreating(false)}
            onCreated={(key) => {
              setCreating(false);
              setCreated(key);
            }}
          />
          <SecretDialog
            open={created !== null}
            title={`API key “${created?.name ?? ''}” created`}
            description="Use it as a Bearer token or in the X-API-Key header."
            secret={created?.key ?? ''}
            secretTestId="new-api-key"
            onClose={() => setCreated(null)}
          >
            <div className="key-usage" data-testid="api-key-usage">
              <p>From the shell, paste it into</p>
              <pre>npx cloud auth login</pre>
              <p>
                From TypeScript, pass it to <code>createClient({'{ apiKey }'})</code> of <code>@cloudpanel/sdk</code>. Both send an Idempotency-Key with every
                write and wait out rate limits for you.
              </p>
              <p>
                <a href="/docs/cli" target="_blank" rel="noreferrer">
                  The command line and SDK guide
                </a>
              </p>
            </div>
          </SecretDialog>
        </>
      ) : (
        <div className="card">
          <EmptyState
            icon="lock"
            title="API keys are managed by owners and admins"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin to create a key for you.`}
          />
        </div>
      )}
    </main>
  );
}

function KeyList({ projectId, onCreate }: { projectId: string; onCreate: () => void }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ projectId }));
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const columns: Column<ApiKey>[] = [
    {
      header: 'Name',
      cell: (key) => (
        <div>
          <div className="cell-primary">{key.name}</div>
          <div className="cell-sub">
            <code>{key.prefix}…</code>
          </div>
        </div>
      ),
    },
    {
      header: 'Scopes',
      className: 'hide-sm',
      cell: (key) => (
        <div className="scope-list" title={key.scopes.join(', ')}>
          {key.scopes.slice(0, SHOWN_SCOPES).map((scope) => (
            <Badge key={scope} mono tone={scope.endsWith(':write') ? 'warning' : 'neutral'}>
              {scope}
            </Badge>
          ))}
          {key.scopes.length > SHOWN_SCOPES ? <Badge>+{key.scopes.length - SHOWN_SCOPES} more</Badge> : null}
        </div>
      ),
    },
    {
      header: 'Last used',
      cell: (key) =>
        key.lastUsedAt ? <span title={formatDateTime(key.lastUsedAt)}>{formatRelative(key.lastUsedAt)}</span> : <span className="muted">Never</span>,
    },
    {
      header: 'Created by',
      className: 'hide-sm',
      cell: (key) => (
        <div>
          <div>{key.createdBy.name}</div>
          <div className="cell-sub">{formatDate(key.createdAt)}</div>
        </div>
      ),
    },
    {
      header: 'Expires',
      className: 'hide-xs',
      cell: (key) => (key.expiresAt ? <ExpiryBadge expiresAt={key.expiresAt} /> : <span className="muted">Never</span>),
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (key) => (
        <Button size="sm" variant="danger-ghost" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
          Revoke
        </Button>
      ),
    },
  ];

  return (
    <>
      <Card flush title="Active keys" description="Revoked keys stop working at once and are not listed.">
        <DataList
          label="API keys"
          query={keys}
          columns={columns}
          rowKey={(key) => key.id}
          empty={
            <EmptyState
              icon="key"
              title="No API keys yet"
              description="Create a key for a script, CI pipeline or integration. Give it only the scopes it needs."
              action={
                <Button variant="primary" onClick={onCreate}>
                  <Icon name="plus" /> Create API key
                </Button>
              }
            />
          }
        />
      </Card>
      <RevokeDialog projectId={projectId} apiKey={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function ExpiryBadge({ expiresAt }: { expiresAt: string }) {
  // Judged when the badge mounts (render must stay pure): a key that expires while the page is open shows so on the next visit.
  const [mountedAt] = useState(Date.now);
  const expired = new Date(expiresAt).getTime() <= mountedAt;
  return (
    <Badge tone={expired ? 'danger' : 'neutral'} title={formatDateTime(expiresAt)}>
      {expired ? 'Expired' : formatDate(expiresAt)}
    </Badge>
  );
}

function RevokeDialog({ projectId, apiKey, onClose }: { projectId: string; apiKey: ApiKey | null; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions());

  function close() {
    revoke.reset();
    onClose();
  }

  async function confirm() {
    if (!apiKey) return;
    // The key leaves the list as soon as the revocation is confirmed; a refusal puts it back.
    const listKey = trpc.apiKeys.list.queryKey({ projectId });
    await queryClient.cancelQueries({ queryKey: listKey });
    queryClient.setQueryData(listKey, (current) => current?.filter((k) => k.id !== apiKey.id));
    try {
      await revoke.mutateAsync({ projectId, keyId: apiKey.id });
    } catch {
      await queryClient.invalidateQueries({ queryKey: listKey });
      return;
    }
    await queryClient.invalidateQueries({ queryKey: listKey });
    toast.success(`API key ${apiKey.name} was revoked`);
    close();
  }

  return (
    <ConfirmDialog
      open={apiKey !== null}
      onClose={close}
      title={`Revoke “${apiKey?.name ?? ''}”?`}
      description="Anything still using this key will get 401 Unauthorized from its next request. This cannot be undone."
      confirmLabel="Revoke key"
      onConfirm={confirm}
      pending={revoke.isPending}
      error={revoke.isError ? errorMessage(revoke.error) : null}
    >
      {apiKey ? (
        <p className="secondary">
          Key <code>{apiKey.prefix}…</code> with {apiKey.scopes.length} {apiKey.scopes.length === 1 ? 'scope' : 'scopes'}.
        </p>
      ) : null}
    </ConfirmDialog>
  );
}

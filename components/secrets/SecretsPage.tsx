'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ENVIRONMENTS, type Environment } from '@/server/domains/secrets/schema';
import { formatDate, formatDateTime } from '../format';
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
import type { Column } from '../ui/Table';
import { ENVIRONMENT_LABELS } from '../configuration/environments';
import type { SecretRow } from './secretRow';
import { SecretAuditDialog } from './SecretAuditDialog';
import { CreateSecretDialog, UpdateSecretDialog } from './SecretFormDialogs';
import { SecretsUsageCard } from './SecretsUsageCard';
import styles from './secrets.module.css';

const ENVIRONMENT_HINTS: Record<Environment, string> = {
  default: 'Default secrets apply to every environment that has no secret of the same name.',
  development: 'Development secrets override a default secret of the same name in development.',
  staging: 'Staging secrets override a default secret of the same name in staging.',
  production: 'Production secrets override a default secret of the same name in production.',
};

/**
 * Secrets by environment. Every member reads the names and who changed them; owners and admins
 * create, replace and delete values and read each secret's trail. Values are only ever in the
 * answer of a create or an update, shown once in a dialog that forgets them when it closes.
 */
export function SecretsPage() {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  const [environment, setEnvironment] = useState<Environment>('default');
  const [creating, setCreating] = useState(false);

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Secrets"
        description="Encrypted configuration for your deployments, per environment. A value is shown once, when it is created or replaced, and can never be read back."
        actions={
          canManage ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              <Icon name="plus" /> New secret
            </Button>
          ) : null
        }
      />
      <div className="stack-lg">
        <SecretsUsageCard projectId={project.id} canUpgrade={canManage} />
        <div>
          <div className={styles.tabs} role="tablist" aria-label="Environment">
            {ENVIRONMENTS.map((env) => (
              <button
                key={env}
                type="button"
                role="tab"
                id={`secrets-tab-${env}`}
                aria-controls="secrets-panel"
                aria-selected={env === environment}
                className={styles.tab}
                onClick={() => setEnvironment(env)}
              >
                {ENVIRONMENT_LABELS[env]}
              </button>
            ))}
          </div>
          <p className={styles.tabHint}>{ENVIRONMENT_HINTS[environment]}</p>
        </div>
        <div role="tabpanel" id="secrets-panel" aria-labelledby={`secrets-tab-${environment}`}>
          <SecretList projectId={project.id} environment={environment} canManage={canManage} onCreate={() => setCreating(true)} />
        </div>
      </div>
      {canManage ? <CreateSecretDialog projectId={project.id} environment={environment} open={creating} onClose={() => setCreating(false)} /> : null}
    </main>
  );
}

function SecretList({
  projectId,
  environment,
  canManage,
  onCreate,
}: {
  projectId: string;
  environment: Environment;
  canManage: boolean;
  onCreate: () => void;
}) {
  const trpc = useTRPC();
  const secrets = useQuery(trpc.secrets.list.queryOptions({ projectId, environment }));
  const [updating, setUpdating] = useState<SecretRow | null>(null);
  const [auditing, setAuditing] = useState<SecretRow | null>(null);
  const [deleting, setDeleting] = useState<SecretRow | null>(null);

  const columns: Column<SecretRow>[] = [
    {
      header: 'Name',
      cell: (secret) => (
        <div>
          <div className={`cell-primary ${styles.name}`}>{secret.name}</div>
          {secret.description ? <div className="cell-sub">{secret.description}</div> : null}
        </div>
      ),
    },
    {
      header: 'Version',
      className: 'hide-xs',
      cell: (secret) => <Badge mono>v{secret.version}</Badge>,
    },
    {
      header: 'Updated',
      className: 'hide-sm',
      cell: (secret) => (
        <div>
          <span title={formatDateTime(secret.updatedAt)}>{formatDate(secret.updatedAt)}</span>
          <div className="cell-sub" title={secret.updatedByUser.email}>
            by {secret.updatedByUser.name}
          </div>
        </div>
      ),
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (secret) => (
        <div className={styles.actions}>
          <Button size="sm" variant="ghost" onClick={() => setUpdating(secret)} aria-label={`Update value of ${secret.name}`}>
            Update value
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setAuditing(secret)} aria-label={`History of ${secret.name}`}>
            History
          </Button>
          <Button size="sm" variant="danger-ghost" onClick={() => setDeleting(secret)} aria-label={`Delete ${secret.name}`}>
            Delete
          </Button>
        </div>
      ),
    });
  }

  return (
    <>
      <Card flush title={`${ENVIRONMENT_LABELS[environment]} secrets`} description="Names and versions only: values are never shown again after they are set.">
        <DataList
          label={`${ENVIRONMENT_LABELS[environment]} secrets`}
          query={secrets}
          columns={columns}
          rowKey={(secret) => secret.id}
          empty={
            <EmptyState
              icon="lock"
              title={`No ${environment} secrets`}
              description={
                canManage
                  ? 'Add API tokens, database URLs and other values your deployments need. They are encrypted at rest and shown only once.'
                  : 'Owners and admins of the project can add secrets.'
              }
              action={
                canManage ? (
                  <Button variant="primary" onClick={onCreate}>
                    <Icon name="plus" /> New secret
                  </Button>
                ) : null
              }
            />
          }
        />
      </Card>
      <UpdateSecretDialog projectId={projectId} secret={updating} onClose={() => setUpdating(null)} />
      <SecretAuditDialog projectId={projectId} secret={auditing} onClose={() => setAuditing(null)} />
      <DeleteSecretDialog projectId={projectId} secret={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}

function DeleteSecretDialog({ projectId, secret, onClose }: { projectId: string; secret: SecretRow | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.secrets.delete.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!secret) return;
    try {
      await remove.mutateAsync({ projectId, secretId: secret.id });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.secrets.pathKey() });
    close();
  }

  return (
    <ConfirmDialog
      open={secret !== null}
      onClose={close}
      title={`Delete secret ${secret?.name ?? ''}?`}
      description={
        secret
          ? `Deployments in ${secret.environment === 'default' ? 'every environment without their own value' : secret.environment} stop receiving it from their next start. The value cannot be recovered; its history is kept.`
          : undefined
      }
      confirmLabel="Delete secret"
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
    />
  );
}

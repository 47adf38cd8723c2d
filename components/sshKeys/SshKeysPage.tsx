'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import Link from 'next/link';
import { useState } from 'react';
import type { AppRouter } from '@/server/app';
import { formatDate, formatDateTime } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { AddSshKeyForm } from './AddSshKeyForm';
import { GenerateSshKeyDialog } from './GenerateSshKeyDialog';
import styles from './sshKeys.module.css';

type SshKey = inferRouterOutputs<AppRouter>['sshKeys']['list'][number];

export function SshKeysPage() {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const [generating, setGenerating] = useState(false);

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="SSH keys"
        description="Public keys that new servers trust for root logins. A server gets the keys chosen when it is created; deleting a key here does not remove it from servers."
        actions={
          canManage ? (
            <Button variant="primary" onClick={() => setGenerating(true)}>
              <Icon name="sparkles" /> Generate key pair
            </Button>
          ) : null
        }
      />
      <div className="stack-lg">
        <KeyList projectId={project.id} canManage={canManage} onGenerate={() => setGenerating(true)} />
        {canManage ? <AddSshKeyForm projectId={project.id} /> : null}
      </div>
      {canManage ? <GenerateSshKeyDialog projectId={project.id} open={generating} onClose={() => setGenerating(false)} /> : null}
    </main>
  );
}

function KeyList({ projectId, canManage, onGenerate }: { projectId: string; canManage: boolean; onGenerate: () => void }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.sshKeys.list.queryOptions({ projectId }));
  const [deleting, setDeleting] = useState<SshKey | null>(null);

  const columns: Column<SshKey>[] = [
    {
      header: 'Name',
      cell: (key) => <div className="cell-primary">{key.name}</div>,
    },
    {
      header: 'Fingerprint',
      cell: (key) => <code className={styles.fingerprint}>{key.fingerprint}</code>,
    },
    {
      header: 'Type',
      className: 'hide-xs',
      cell: (key) => (
        <div>
          <Badge mono>{key.keyType}</Badge>
          <div className="cell-sub">{key.bits} bits</div>
        </div>
      ),
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (key) => <span title={formatDateTime(key.createdAt)}>{formatDate(key.createdAt)}</span>,
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (key) => (
        <Button size="sm" variant="danger-ghost" onClick={() => setDeleting(key)} aria-label={`Delete ${key.name}`}>
          Delete
        </Button>
      ),
    });
  }

  return (
    <>
      <Card
        flush
        title="Keys"
        description={
          <>
            Compare a fingerprint with the output of <code className={styles.nowrap}>ssh-keygen -lf ~/.ssh/id_ed25519.pub</code>.{' '}
            <Link href="/docs/ssh-keys">Learn about SSH keys</Link>
          </>
        }
      >
        <DataList
          label="SSH keys"
          query={keys}
          columns={columns}
          rowKey={(key) => key.id}
          empty={
            <EmptyState
              icon="terminal"
              title="No SSH keys yet"
              description={
                canManage
                  ? 'Add the public key of your computer below, or generate a new key pair. Servers can only be reached with keys chosen when they are created.'
                  : 'Members of the project can add keys.'
              }
              action={
                canManage ? (
                  <Button variant="primary" onClick={onGenerate}>
                    <Icon name="sparkles" /> Generate key pair
                  </Button>
                ) : null
              }
            />
          }
        />
      </Card>
      <DeleteKeyDialog projectId={projectId} sshKey={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}

function DeleteKeyDialog({ projectId, sshKey, onClose }: { projectId: string; sshKey: SshKey | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.sshKeys.delete.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!sshKey) return;
    try {
      await remove.mutateAsync({ projectId, sshKeyId: sshKey.id });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.sshKeys.list.queryKey({ projectId }) });
  }

  const result = remove.data;
  if (result && sshKey) {
    const count = result.stillAuthorisedOn;
    return (
      <Dialog
        open
        onClose={close}
        title={`SSH key “${sshKey.name}” deleted`}
        footer={
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        }
      >
        {count > 0 ? (
          <Alert tone="warning" title={`Still accepted by ${count} ${count === 1 ? 'server' : 'servers'}`}>
            Servers keep the keys they were created with. To revoke access, remove this key from <code>~/.ssh/authorized_keys</code> on{' '}
            {count === 1 ? 'that server' : 'each of them'}.
          </Alert>
        ) : (
          <Alert tone="success" title="No server accepts it">
            No live server was created with this key. New servers can no longer choose it.
          </Alert>
        )}
      </Dialog>
    );
  }

  return (
    <ConfirmDialog
      open={sshKey !== null}
      onClose={close}
      title={`Delete SSH key “${sshKey?.name ?? ''}”?`}
      description="New servers will no longer be able to choose it. Servers created with it keep trusting it until you remove it from them."
      confirmLabel="Delete key"
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
    >
      {sshKey ? (
        <p className="secondary">
          Fingerprint <code className={styles.fingerprint}>{sshKey.fingerprint}</code>
        </p>
      ) : null}
    </ConfirmDialog>
  );
}

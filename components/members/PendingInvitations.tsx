'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import type { AppRouter } from '@/server/app';
import { formatDate, formatRelative, ROLE_LABELS } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';

type Invitation = inferRouterOutputs<AppRouter>['invitations']['listForProject'][number];

export function PendingInvitations({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const invitations = useQuery(trpc.invitations.listForProject.queryOptions({ projectId }));
  const [revoking, setRevoking] = useState<Invitation | null>(null);

  const columns: Column<Invitation>[] = [
    { header: 'Email', cell: (invitation) => <span className="cell-primary">{invitation.email}</span> },
    { header: 'Role', cell: (invitation) => <Badge>{ROLE_LABELS[invitation.role]}</Badge> },
    { header: 'Invited by', className: 'hide-sm', cell: (invitation) => invitation.invitedBy.name },
    {
      header: 'Expires',
      className: 'hide-xs',
      cell: (invitation) => <span title={formatDate(invitation.expiresAt)}>{formatRelative(invitation.expiresAt)}</span>,
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (invitation) => (
        <Button size="sm" variant="danger-ghost" onClick={() => setRevoking(invitation)} aria-label={`Revoke invitation for ${invitation.email}`}>
          Revoke
        </Button>
      ),
    },
  ];

  return (
    <>
      <Card flush title="Pending invitations" description="Invitations that have not been answered yet.">
        <DataList
          label="Pending invitations"
          query={invitations}
          columns={columns}
          rowKey={(invitation) => invitation.id}
          empty={
            <EmptyState
              icon="mail"
              title="No pending invitations"
              description="Invitations you send appear here until they are accepted, rejected or expire."
            />
          }
        />
      </Card>
      <RevokeInvitationDialog projectId={projectId} invitation={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function RevokeInvitationDialog({ projectId, invitation, onClose }: { projectId: string; invitation: Invitation | null; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions());

  function close() {
    revoke.reset();
    onClose();
  }

  async function confirm() {
    if (!invitation) return;
    try {
      await revoke.mutateAsync({ projectId, invitationId: invitation.id });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.invitations.listForProject.queryKey({ projectId }) });
    toast.success(`Invitation for ${invitation.email} was revoked`);
    close();
  }

  return (
    <ConfirmDialog
      open={invitation !== null}
      onClose={close}
      title="Revoke this invitation?"
      description={`The link sent to ${invitation?.email ?? ''} stops working at once. You can invite them again later.`}
      confirmLabel="Revoke invitation"
      onConfirm={confirm}
      pending={revoke.isPending}
      error={revoke.isError ? errorMessage(revoke.error) : null}
    />
  );
}

'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { AppRouter } from '@/server/app';
import { PROJECT_ROLES, roleAtLeast } from '@/server/platform/auth/roles';
import { formatDate, initials, ROLE_LABELS } from '../format';
import { hasRole, useProject, type Project } from '../projects/ProjectContext';
import { useSignedInAccount } from '../shell/SignedInAccount';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { PageHeader } from '../ui/PageHeader';
import { Select } from '../ui/Select';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { InviteForm } from './InviteForm';
import { PendingInvitations } from './PendingInvitations';

type Member = inferRouterOutputs<AppRouter>['members']['list'][number];
type Role = Member['role'];

export function MembersPage() {
  const project = useProject();
  const canManage = hasRole(project, 'admin');
  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Members"
        description="Owners and admins manage the project; members create and change resources; viewers can only look."
      />
      <div className="stack-lg">
        {canManage ? <InviteForm projectId={project.id} /> : null}
        <MemberList project={project} />
        {canManage ? <PendingInvitations projectId={project.id} /> : null}
      </div>
    </main>
  );
}

/** Which roles the signed-in user may give this member; an empty list means the role is not theirs to change. */
function assignableRoles(project: Project, member: Member, isSelf: boolean): readonly Role[] {
  if (isSelf || !hasRole(project, 'admin')) return [];
  const grantable = project.role === 'owner' ? PROJECT_ROLES : member.role === 'owner' ? [] : PROJECT_ROLES.filter((role) => role !== 'owner');
  // The server keeps the biller at admin or above until billing has been handed on.
  return member.isBiller ? grantable.filter((role) => roleAtLeast(role, 'admin')) : grantable;
}

function MemberList({ project }: { project: Project }) {
  const trpc = useTRPC();
  const me = useSignedInAccount();
  const toast = useToast();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.members.list.queryOptions({ projectId: project.id }));
  const updateRole = useMutation(trpc.members.updateRole.mutationOptions());
  const [removing, setRemoving] = useState<Member | null>(null);

  async function changeRole(member: Member, role: Role) {
    // The select shows the new role at once; a refusal is undone by the refetch below.
    const listKey = trpc.members.list.queryKey({ projectId: project.id });
    await queryClient.cancelQueries({ queryKey: listKey });
    queryClient.setQueryData(listKey, (current) => current?.map((m) => (m.userId === member.userId ? { ...m, role } : m)));
    try {
      await updateRole.mutateAsync({ projectId: project.id, userId: member.userId, role });
      toast.success(`${member.name} is now ${ROLE_LABELS[role].toLowerCase()}`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
    await queryClient.invalidateQueries({ queryKey: listKey });
  }

  const columns: Column<Member>[] = [
    {
      header: 'Member',
      cell: (member) => (
        <div className="row" style={{ flexWrap: 'nowrap', gap: 12 }}>
          <span className="avatar hide-xs" aria-hidden>
            {initials(member.name)}
          </span>
          <div style={{ minWidth: 0 }}>
            <div className="cell-primary row" style={{ gap: 6 }}>
              {member.name}
              {member.userId === me.id ? <Badge tone="accent">You</Badge> : null}
              {member.isBiller ? (
                <Badge tone="success" title="Their saved card pays for this project">
                  Biller
                </Badge>
              ) : null}
            </div>
            <div className="cell-sub">{member.email}</div>
          </div>
        </div>
      ),
    },
    {
      header: 'Role',
      cell: (member) => {
        const roles = assignableRoles(project, member, member.userId === me.id);
        if (roles.length === 0) return <Badge tone={member.role === 'owner' ? 'accent' : 'neutral'}>{ROLE_LABELS[member.role]}</Badge>;
        return (
          <div style={{ maxWidth: 140 }}>
            <Select
              label={`Role of ${member.name}`}
              hideLabel
              size="sm"
              value={member.role}
              disabled={updateRole.isPending}
              options={roles.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
              onChange={(event) => changeRole(member, event.target.value as Role)}
            />
          </div>
        );
      },
    },
    { header: 'Joined', className: 'hide-sm', cell: (member) => formatDate(member.joinedAt) },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (member) => {
        const isSelf = member.userId === me.id;
        if (!isSelf && assignableRoles(project, member, false).length === 0) return null;
        return (
          <Button size="sm" variant="danger-ghost" onClick={() => setRemoving(member)}>
            {isSelf ? 'Leave' : 'Remove'}
          </Button>
        );
      },
    },
  ];

  return (
    <>
      <Card
        flush
        title="People with access"
        description={members.data ? `${members.data.length} ${members.data.length === 1 ? 'member' : 'members'}` : undefined}
      >
        <DataList
          label="Members"
          query={members}
          columns={columns}
          rowKey={(member) => member.userId}
          empty={<EmptyState icon="users" title="No members" description="Invite people to work on this project with you." />}
        />
      </Card>
      <RemoveMemberDialog project={project} member={removing} isSelf={removing?.userId === me.id} onClose={() => setRemoving(null)} />
    </>
  );
}

function RemoveMemberDialog({ project, member, isSelf, onClose }: { project: Project; member: Member | null; isSelf: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.members.remove.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!member) return;
    try {
      await remove.mutateAsync({ projectId: project.id, userId: member.userId });
    } catch {
      return;
    }
    if (isSelf) {
      toast.success(`You left ${project.name}`);
      router.replace('/projects');
      await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
      return;
    }
    toast.success(`${member.name} was removed from ${project.name}`);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey({ projectId: project.id }) }),
    ]);
    close();
  }

  return (
    <ConfirmDialog
      open={member !== null}
      onClose={close}
      title={isSelf ? `Leave ${project.name}?` : `Remove ${member?.name ?? ''}?`}
      description={
        isSelf
          ? 'You will lose access to this project and the API keys you created for it stop working. Someone will need to invite you again.'
          : 'They lose access at once, and API keys they created for this project stop working.'
      }
      confirmLabel={isSelf ? 'Leave project' : 'Remove member'}
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
    />
  );
}
